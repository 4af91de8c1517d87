// WireMoveStream (the client's PlayStream) against the real server: the Node twin of
// tests/client/test_stream.py. Whole games over one stream equal the unary calls' move by move,
// many tables' moves in flight at once each get their own answer, a refused move rejects like
// ApplyMove while the stream goes on, TOO_MANY_STREAMS and a vanished replica reject the waiting
// moves with that status, and `close` answers what was sent or, after its timeout, says why not.
// (Basic answers over a stream: update-view.test.ts plays them in lockstep with unary ones.)
//
// The contract server runs 2 workers, so it serves one PlayStream at a time: every test closes
// its streams before the next one starts.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GameUpdate } from "../gen/tienlen/v1/game_pb.js";
import type { NewGameRequestSchema } from "../gen/tienlen/v1/service_pb.js";
import { cardText, WireClient, TienLenError, type ClientOptions, type WireMoveStream } from "../src/wire.js";
import { python, serverArgs, startServer, type RunningServer } from "../src/server.js";
import { assertSameGame, handled, hands, randomFrom, randomMove, type Cards } from "./support.js";

const PRESETS = ["southern", "northern", "hue", "da_nang", "dau", "dem_la"];
const FOUR_HANDS = ["3S 9S", "4S 10S", "5S JS", "6S QS"];

let server: RunningServer;
let client: WireClient;

before(async () => {
  server = await startServer(undefined, 30_000, { metrics: true });
  client = new WireClient(server.address);
});
after(async () => {
  client?.close();
  await server?.stop();
});

interface Table {
  game: GameUpdate;
  tokens: string[];
}

async function newGame(request: MessageInitShape<typeof NewGameRequestSchema>, on = client): Promise<Table> {
  const answer = await on.newGame(request);
  return { game: answer.game!, tokens: answer.seatTokens };
}

/** `seat` plays `cards` (or passes, null) on `stream`. */
function streamed(stream: WireMoveStream, table: Table, seat: number, cards: Cards): Promise<GameUpdate> {
  const token = table.tokens[seat]!;
  return cards === null ? stream.pass(table.game, seat, token) : stream.play(table.game, seat, token, cards);
}

/** What the stream rejects a move with, or fails when it is answered. */
async function refusal(answer: Promise<GameUpdate>): Promise<TienLenError> {
  try {
    await answer;
  } catch (error) {
    assert.ok(error instanceof TienLenError, `not a TienLenError: ${String(error)}`);
    return error;
  }
  assert.fail("the move was answered");
}

test("whole games of every preset over one stream give the unary calls' GameUpdates after every move", { timeout: 60_000 }, async () => {
  // The tables are played at once, so their moves interleave on the one stream.
  const stream = client.playStream();
  const moves = await Promise.all(PRESETS.map(async (variant, index) => {
    const rng = randomFrom(`stream-${variant}`);
    const players = variant === "dau" ? 3 : [2, 3, 4][index % 3]!;
    const start = await newGame({ rules: { variant }, players, deal: { case: "seed", value: BigInt(index + 1) } });
    let unary = start.game;
    let viaStream = start.game;
    let count = 0;
    for (; !unary.finished; count++) {
      assert.ok(count < 1000, `${variant}: the game did not end`);
      const [seat, cards] = await randomMove(client, unary, start.tokens, rng);
      const token = start.tokens[seat]!;
      [unary, viaStream] = await Promise.all([
        cards === null ? client.pass(unary, seat, token) : client.play(unary, seat, token, cards),
        streamed(stream, { game: viaStream, tokens: start.tokens }, seat, cards),
      ]);
      assertSameGame(viaStream, unary, `${variant}, move ${count + 1}: seat ${seat} ${cards?.join(" ") ?? "pass"}`);
    }
    assert.ok(viaStream.finished && viaStream.settlement !== undefined);
    return count;
  }));
  await stream.close();
  assert.ok(moves.every((n) => n > 0), `moves per game: ${moves.join(", ")}`);
});

test("moves of many tables in flight at once are each answered for their own table", { timeout: 30_000 }, async () => {
  // Table i is dealt so that its leader opens with a card of its own: an answer routed to
  // the wrong move shows another table's card.
  const openers = ["3S", "3C", "3D", "3H", "4S", "4C", "4D", "4H"];
  const tables = await Promise.all(openers.map((opener) =>
    newGame({ deal: hands(`${opener} KS`, "5S 9S", "5C 10S", "5D JS"), firstGame: false, leader: 0 })));
  const stream = client.playStream();
  try {
    const answers = await Promise.all(tables.map((table, i) => streamed(stream, table, 0, [openers[i]!])));
    for (const [i, answer] of answers.entries()) {
      const played = answer.events.find((e) => e.kind.case === "played");
      assert.deepEqual(played?.kind.case === "played" && played.kind.value.combination?.cards.map(cardText), [openers[i]]);
      assert.deepEqual(answer.view!.played.map(cardText), [openers[i]]);
      assertSameGame(answer, await client.play(tables[i]!.game, 0, tables[i]!.tokens[0]!, [openers[i]!]), `table ${i}`);
    }
  } finally {
    await stream.close();
  }
});

test("a refused move rejects with the TienLenError ApplyMove throws, and the stream goes on", { timeout: 30_000 }, async () => {
  const table = await newGame({ deal: hands(...FOUR_HANDS), leader: 0 });
  const stream = client.playStream();
  try {
    // Sent together: the refused moves are answered in the stream between the others. Each
    // refusal is caught as it is sent: on a busy machine one may reject before the test awaits it.
    const [early, notYourTurn, forged, late] = [
      streamed(stream, table, 0, ["3S"]),
      refusal(streamed(stream, table, 1, ["4S"])),
      refusal(stream.play({ ...table.game, stateToken: flipLastByte(table.game.stateToken) }, 0, table.tokens[0]!, ["3S"])),
      refusal(streamed(stream, table, 0, ["3S", "9S"])), // not a combination
    ];
    const unary = await refusal(client.play(table.game, 1, table.tokens[1]!, ["4S"]));
    const refused = await notYourTurn;
    assert.deepEqual(
      [refused.code, refused.codeName, refused.reason, refused.domains, refused.metadata],
      [grpc.status.FAILED_PRECONDITION, "FAILED_PRECONDITION", "NOT_YOUR_TURN", ["tienlen.v1"], unary.metadata],
    );
    assert.deepEqual(refused.metadata, { seat: "1" });
    assert.equal(refused.message, unary.message);
    const badToken = await forged;
    assert.deepEqual([badToken.codeName, badToken.reason], ["INVALID_ARGUMENT", "TOKEN_BAD_SIGNATURE"]);
    assert.equal((await late).reason, "NOT_A_COMBINATION");
    assert.equal((await early).toAct, 1); // answered, with the refusals around it
    const after = await streamed(stream, { ...table, game: await early }, 1, ["4S"]);
    assert.deepEqual([after.toAct, after.view!.seats[1]!.cardsLeft], [2, 1]);
  } finally {
    await stream.close();
  }
});

test("one malformed move must not fail the other tables' moves", { timeout: 30_000 }, async () => {
  // A seat that can't be encoded as an int32 (1.5, 2**40, a non-numeric string from JSON):
  // grpc-js would cancel the whole PlayStream call with INTERNAL, so the client refuses that
  // one move before sending it, as ApplyMove refuses a malformed request.
  const deal = hands(...FOUR_HANDS);
  const a = await client.newGame({ deal, leader: 0 });
  const b = await client.newGame({ deal, leader: 0 });
  const stream = client.playStream();
  try {
    const good = stream.play(a.game!, 0, a.seatTokens[0]!, ["3S"]);
    const bad = await stream.play(b.game!, 1.5, b.seatTokens[0]!, ["3S"]).then(() => "answered", (e: unknown) => e);
    const res = await good.then((g) => `answered toAct=${g.toAct}`, (e: unknown) => `REJECTED ${String(e)}`);
    assert.ok(bad instanceof TienLenError, `not a TienLenError: ${String(bad)}`);
    assert.equal(res, "answered toAct=1");
    assert.deepEqual([bad.code, bad.codeName, bad.reason], [grpc.status.INVALID_ARGUMENT, "INVALID_ARGUMENT", ""]);
    assert.match(bad.message, /^INVALID_ARGUMENT: the request can't be sent: .*ApplyMoveRequest\.seat.*1\.5/);
    for (const seat of [2 ** 40, "one" as unknown as number]) {
      const refused = await refusal(stream.play(b.game!, seat, b.seatTokens[0]!, ["3S"]));
      assert.deepEqual([refused.codeName, refused.reason], ["INVALID_ARGUMENT", ""], refused.message);
    }
    // The stream goes on: a later move, on the table the malformed ones were made for, is answered.
    assert.equal((await stream.play(b.game!, 0, b.seatTokens[0]!, ["3S"])).toAct, 1);
  } finally {
    await stream.close(2_000);
  }
});

/** Whether `promise` settles before the event loop's next turn: it waited on no I/O and no
 * timer (an event, not a wall-clock margin, so it holds on a busy machine). */
async function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
  const atOnce = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
  await promise;
  return atOnce;
}

function flipLastByte(token: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(token); // a copy: a token read off the wire is a Buffer, whose slice() is a view
  copy[copy.length - 1]! ^= 1;
  return copy;
}

describe("closing", () => {
  test("close answers every move sent before it; later moves reject", { timeout: 30_000 }, async () => {
    const tables = await Promise.all([1, 2, 3, 4, 5].map(() => newGame({ deal: hands(...FOUR_HANDS) })));
    let answers: Promise<GameUpdate>[];
    let closed: WireMoveStream;
    {
      await using stream = client.playStream();
      closed = stream;
      answers = tables.map((table) => streamed(stream, table, 0, ["3S"]));
      // the block ends here: `await using` closes the stream with the five moves in flight
    }
    const settled = await Promise.allSettled(answers);
    assert.deepEqual(settled.map((s) => s.status === "fulfilled" && s.value.toAct), [1, 1, 1, 1, 1]);
    await assert.rejects(streamed(closed, tables[0]!, 0, ["3S"]), /the move stream is closed/);
  });

  test("a stream opens its call at its first move: an unused one holds no slot and closes at once", { timeout: 30_000 }, async () => {
    const unused = client.playStream();
    const used = client.playStream();
    try {
      const table = await newGame({ deal: hands(...FOUR_HANDS) });
      assert.equal((await streamed(used, table, 0, ["3S"])).toAct, 1); // the one slot was free
      assert.ok(await settlesAtOnce(unused.close()), "closing an unused stream waited on I/O or a timer");
    } finally {
      await used.close();
    }
  });
  test("on a closed client, a move rejects with the channel's error and close returns at once", { timeout: 30_000 }, async () => {
    const closedClient = new WireClient(server.address);
    const table = await newGame({ deal: hands(...FOUR_HANDS) });
    const stream = closedClient.playStream();
    closedClient.close();
    await assert.rejects(streamed(stream, table, 0, ["3S"]), /Channel has been shut down/);
    await assert.rejects(streamed(stream, table, 0, ["3S"]), /Channel has been shut down/); // failed for good
    assert.ok(await settlesAtOnce(stream.close()), "close waited on I/O or a timer");
  });
});

/** The replica's one stream slot taken by `holder` (a stream of the shared client, which made
 * the first move of `table`), and `waiter`, a stream of a new client with `options`, whose moves
 * must wait for a slot. `release` closes both streams (again, if a test closed them) and the
 * new client. */
async function slotTaken(options: ClientOptions) {
  const waiting = new WireClient(server.address, options);
  const table = await newGame({ deal: hands(...FOUR_HANDS) });
  const holder = client.playStream();
  const waiter = waiting.playStream();
  const release = async () => {
    await waiter.close();
    await holder.close();
    waiting.close();
  };
  try {
    await streamed(holder, table, 0, ["3S"]); // the replica's one slot is the holder's
  } catch (error) {
    await release();
    throw error;
  }
  return { table, holder, waiter, release };
}

describe("when the replica has no stream slot free (TOO_MANY_STREAMS)", () => {
  test("the waiting moves are tried on new streams, then reject with RESOURCE_EXHAUSTED", { timeout: 30_000 }, async () => {
    const { table, holder, waiter, release } = await slotTaken({});
    try {
      const refused = await refusal(streamed(waiter, table, 0, ["3S"]));
      assert.deepEqual([refused.code, refused.reason, refused.domains], [grpc.status.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS", ["tienlen.v1"]]);
      assert.match(refused.message, /^RESOURCE_EXHAUSTED: this replica serves at most 1 PlayStream calls at once/);
      // The stream stays failed: the next move rejects at once, with the same error.
      assert.equal(await refusal(streamed(waiter, table, 0, ["3S"])), refused);
      assert.equal((await streamed(holder, table, 0, ["3S"])).toAct, 1); // the holder goes on
    } finally {
      await release();
    }
  });

  test("a move waiting for a slot is answered once the slot is free", { timeout: 30_000 }, async () => {
    const { table, holder, waiter, release } = await slotTaken({ attempts: 50 });
    try {
      let answered = false;
      const refusedStreams = async () => (await handled(server.metricsUrl!, "PlayStream")) - before;
      const before = await handled(server.metricsUrl!, "PlayStream");
      const waiting = streamed(waiter, table, 0, ["3S"]).finally(() => (answered = true));
      // Wait for the event, not a time: the full replica has refused the waiting move's streams twice.
      for (let i = 0; i < 1_000 && (await refusedStreams()) < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok((await refusedStreams()) >= 2, "the full replica never refused the waiting move's streams");
      assert.equal(answered, false);
      await holder.close(); // frees the slot
      assert.equal((await waiting).toAct, 1);
    } finally {
      await release();
    }
  });

  test("a move's Promise gives up at the client's deadline; the move is still sent, and answered", { timeout: 30_000 }, async () => {
    const { table, holder, waiter, release } = await slotTaken({ attempts: 50, deadlineMs: 300 });
    try {
      const refused = await refusal(streamed(waiter, table, 0, ["3S"]));
      assert.equal(refused.code, grpc.status.DEADLINE_EXCEEDED);
      assert.match(refused.message, /no answer to the move within 300 ms \(it may still be answered\)/);
      const answers = () => handled(server.metricsUrl!, "PlayStream", "grpc_server_msg_sent_total");
      const answered = await answers();
      await holder.close(); // frees the slot: the waiting move is sent on the next stream
      await waiter.close(5_000); // returns once that move is answered
      assert.equal((await answers()) - answered, 1, "the move the caller gave up on was answered");
    } finally {
      await release();
    }
  });

  test("close gives up after its timeout: the moves still waiting reject with CANCELLED", { timeout: 30_000 }, async () => {
    const { table, waiter, release } = await slotTaken({ attempts: 50 });
    try {
      const waiting = refusal(streamed(waiter, table, 0, ["3S"]));
      await waiter.close(300);
      const refused = await waiting;
      assert.equal(refused.code, grpc.status.CANCELLED);
      assert.match(refused.message, /closed before the move was answered \(waited 300 ms\)/); // its own timeout, not the default
    } finally {
      await release();
    }
  });
});

test("when the replica goes away, the waiting moves reject with UNAVAILABLE after the attempts", { timeout: 60_000 }, async () => {
  // A replica of its own, stopped at once (no grace for the open stream).
  const lost = await startServer([python(), "-m", "tienlen_service", ...serverArgs(), "--grace", "0"]);
  const doomed = new WireClient(lost.address, { attempts: 2 });
  try {
    const table = await newGame({ deal: hands(...FOUR_HANDS) }, doomed);
    const stream = doomed.playStream();
    assert.equal((await streamed(stream, table, 0, ["3S"])).toAct, 1);
    await lost.stop();
    const refused = await refusal(streamed(stream, table, 0, ["3S"]));
    assert.equal(refused.code, grpc.status.UNAVAILABLE, refused.message);
    assert.equal(await refusal(streamed(stream, table, 0, ["3S"])), refused); // failed for good
    await stream.close();
  } finally {
    doomed.close();
    await lost.stop();
  }
});
