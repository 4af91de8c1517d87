// The client against the real server: games as plain records that carry their tokens, card text
// in and out, seeds as numbers, values that survive JSON, typed errors (the Python client's
// classes), several addresses balanced round robin with a draining replica left out; and the
// protobuf-level client's request checks, request ids and retries underneath.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { card, cardText } from "../src/cards.js";
import { TienLenClient, type MoveStream } from "../src/client.js";
import {
  CardTextError,
  connectionLost,
  InvalidRequest,
  InvalidToken,
  MoveRejected,
  PermissionDenied,
  TienLenError,
  Unavailable,
} from "../src/errors.js";
import type { Game } from "../src/models.js";
import { GAME_ID_HEADER, REQUEST_ID_HEADER } from "../src/request-ids.js";
import { python, serverArgs, startServer, type RunningServer } from "../src/server.js";
import { WireClient } from "../src/wire.js";
import { handled } from "./support.js";

let server: RunningServer;
let client: TienLenClient;

before(async () => {
  // Every call's access-log line (the request-id test reads them): not the 1-in-100 default.
  server = await startServer([python(), "-m", "tienlen_service", ...serverArgs(), "--log-sample", "1"]);
  client = new TienLenClient(server.address);
});
after(async () => {
  client?.close();
  await server?.stop();
});

const HANDS = ["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"];

/** The error `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<TienLenError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof TienLenError, `not a TienLenError: ${String(error)}`);
  return error;
}

// --- games as plain records ---------------------------------------------------------------------

test("a game dealt, played and passed: the Game carries the seat tokens, cards are text", { timeout: 30_000 }, async () => {
  const game = await client.newGame({ hands: HANDS });
  assert.equal(game.toAct, 0);
  assert.equal(game.seatTokens.length, 4);
  assert.equal(game.view.mustInclude, "3S");
  assert.deepEqual((await client.view(game, 0)).hand, ["3S", "9H", "KS"]);
  assert.deepEqual((await client.view(game)).hand, [], "a spectator sees no hand");
  const played = await client.play(game, 0, "3s");
  assert.equal(played.toAct, 1);
  assert.deepEqual(played.events, [
    { kind: "played", seat: 0, combination: { type: "SINGLE", length: 1, top: "3S", cards: ["3S"] }, chop: false, outOfTurn: false, steal: false, cardsLeft: 2 },
    { kind: "turnPassed", seat: 1 },
  ]);
  assert.deepEqual(played.view.table, { type: "SINGLE", length: 1, top: "3S", cards: ["3S"] });
  const passed = await client.pass(played, 1);
  assert.equal(passed.toAct, 2);
  assert.deepEqual(passed.events, [{ kind: "passed", seat: 1 }, { kind: "turnPassed", seat: 2 }]);
});

test("a seed is a plain number: the same seed deals the same cards, and a bad one is refused before any call", { timeout: 30_000 }, async () => {
  const a = await client.newGame({ players: 4, seed: 7 });
  const b = await client.newGame({ players: 4, seed: 7 });
  const c = await client.newGame({ players: 4, seed: 8 });
  const hands = async (game: Game) => Promise.all([0, 1, 2, 3].map(async (seat) => (await client.view(game, seat)).hand.join(" ")));
  assert.deepEqual(await hands(a), await hands(b));
  assert.notDeepEqual(await hands(a), await hands(c));
  const over = await client.play(await client.newGame({ players: 2, hands: ["3S", "4S 5S"] }), 0, "3S");
  const next = await client.nextGame(over, { seed: 2 ** 53 - 1 });
  assert.equal(next.view.gameNumber, 2);
  assert.deepEqual(next.seatTokens, over.seatTokens);
  const offline = new TienLenClient("127.0.0.1:1", { attempts: 1, deadlineMs: 1_000 });
  try {
    for (const seed of [1.5, -1, 2 ** 53, Number.NaN]) {
      const error = await refusal(offline.newGame({ seed }));
      assert.ok(error instanceof InvalidRequest, `${seed}: ${error.name}`);
      assert.match(error.message, /seed/);
    }
    assert.match((await refusal(offline.newGame({ seed: 1, hands: HANDS }))).message, /a seed or explicit hands, not both/);
  } finally {
    offline.close();
  }
});

test("every value survives JSON.stringify, and a game back from JSON plays on", { timeout: 60_000 }, async () => {
  for (const updateView of ["full", "basic"] as const) {
    const host = new TienLenClient(server.address, { updateView });
    try {
      let game = await host.newGame({ hands: HANDS });
      game = await host.play(game, 0, "3S");
      const text = JSON.stringify(game); // throws on a BigInt
      assert.ok(!text.includes('"raw"'));
      const copy = JSON.parse(text) as Game;
      assert.deepEqual(copy, { ...game });
      const fromCopy = await host.pass(copy, 1);
      const fromGame = await host.pass(game, 1);
      assert.deepEqual({ ...fromCopy, state: "" }, { ...fromGame, state: "" }, updateView);
      assert.equal(typeof fromCopy.view.seats[0]!.matchTotal, "number");
    } finally {
      host.close();
    }
  }
  const finished = await client.newGame({ players: 2, hands: ["3S", "4S 5S"] });
  const over = await client.play(finished, 0, "3S");
  assert.ok(over.finished && over.settlement !== null);
  assert.deepEqual(JSON.parse(JSON.stringify(over.settlement)), over.settlement);
  assert.ok(over.settlement.transfers.every((t) => typeof t.amount === "number" && typeof t.reason === "string"));
  const rules = await client.describeRules();
  assert.deepEqual(JSON.parse(JSON.stringify(rules)), rules);
  assert.ok(rules.variants.some((v) => v.name === "southern"));
  assert.ok(rules.options.every((o) => ["BOOL", "INT", "STAKES", "CHOICE"].includes(o.type) && typeof o.minimum === "number"));
  assert.ok(rules.bots.length > 0);
});

test("questions: validate, legal moves (one group or all), a bot's suggestion", { timeout: 30_000 }, async () => {
  const game = await client.newGame({ hands: ["3S 3C 4D 5H 6S", "4C 10D 5S", "5D JS 6C", "6H QC 7D"] });
  assert.deepEqual(await client.validate(game, 0, "3S 3C"), {
    legal: true, combination: { type: "PAIR", length: 2, top: "3C", cards: ["3S", "3C"] }, reason: "", message: "", chop: false,
  });
  const illegal = await client.validate(game, 0, "4D");
  assert.equal(illegal.legal, false);
  assert.equal(illegal.reason, "MUST_INCLUDE_STARTING_CARD");
  const all = await client.legalMoves(game, 0, { pageSize: 2 });
  assert.ok(all.every((m) => !m.isPass && m.cards.includes("3S")));
  assert.ok(all.some((m) => m.combination?.type === "STRAIGHT"));
  const pairs = await client.legalMoves(game, 0, { combinationType: "pair" });
  assert.deepEqual(pairs.map((m) => m.cards), [["3S", "3C"]]);
  await assert.rejects(client.legalMoves(game, 0, { combinationType: "QUINTET" }), InvalidRequest);
  const suggestion = await client.suggest(game, 0);
  assert.ok(suggestion !== null && suggestion.cards.includes("3S"));
  assert.equal(await client.suggest(game, 1), null, "not seat 1's turn");
});

test("the move stream takes and returns Games, and refuses with the unary calls' typed errors", { timeout: 30_000 }, async () => {
  const host = new TienLenClient(server.address, { updateView: "basic" });
  const stream = host.playStream();
  try {
    const game = await host.newGame({ hands: HANDS });
    const [streamed, unary] = [await stream.play(game, 0, "3S"), await host.play(game, 0, "3S")];
    assert.deepEqual({ ...streamed, state: "" }, { ...unary, state: "" });
    const refused = await refusal(stream.play(streamed, 2, "5D"));
    assert.ok(refused instanceof MoveRejected, refused.name);
    assert.equal(refused.reason, "NOT_YOUR_TURN");
    assert.ok((await refusal(stream.play(streamed, 1, "4X"))) instanceof CardTextError);
    const fromJson = JSON.parse(JSON.stringify(streamed)) as Game;
    assert.equal((await stream.pass(fromJson, 1)).toAct, 2);
  } finally {
    await stream.close();
    host.close();
  }
});

// --- typed errors -------------------------------------------------------------------------------

test("refusals are typed: MoveRejected, InvalidRequest, InvalidToken, PermissionDenied, all TienLenErrors", { timeout: 30_000 }, async () => {
  const game = await client.newGame({ hands: HANDS });
  const rejected = await refusal(client.play(game, 0, "9H"));
  assert.ok(rejected instanceof MoveRejected);
  assert.deepEqual([rejected.name, rejected.code, rejected.reason], ["MoveRejected", grpc.status.FAILED_PRECONDITION, "MUST_INCLUDE_STARTING_CARD"]);
  assert.deepEqual(rejected.domains, ["tienlen.v1"]);
  assert.deepEqual(rejected.metadata, { seat: "0" });

  const unknown = await refusal(client.newGame({ variant: "western" }));
  assert.ok(unknown instanceof InvalidRequest && !(unknown instanceof InvalidToken));
  assert.deepEqual([unknown.codeName, unknown.reason, unknown.fieldViolations], ["INVALID_ARGUMENT", "UNKNOWN_VARIANT", ["rules.variant"]]);

  const state = Buffer.from(game.state, "base64");
  state[state.length - 5]! ^= 0xff;
  const tampered = await refusal(client.play({ ...game, state: state.toString("base64") }, 0, "3S"));
  assert.ok(tampered instanceof InvalidToken && tampered instanceof InvalidRequest);
  assert.equal(tampered.reason, "TOKEN_BAD_SIGNATURE");

  const swapped = await refusal(client.play({ ...game, seatTokens: [...game.seatTokens].reverse() }, 0, "3S"));
  assert.ok(swapped instanceof PermissionDenied);
  assert.equal(swapped.reason, "SEAT_TOKEN_INVALID");

  const over = await client.play(await client.newGame({ players: 2, hands: ["3S", "4S 5S"] }), 0, "3S");
  const finished = await refusal(client.pass(over, 1));
  assert.ok(finished instanceof MoveRejected, finished.name);
});

test("card text that is not a card is a CardTextError (a TienLenError), thrown before any call", { timeout: 30_000 }, async () => {
  const game = await client.newGame({ hands: HANDS });
  // A client whose address answers nothing: a call would end in Unavailable.
  const offline = new TienLenClient("127.0.0.1:1", { attempts: 1, deadlineMs: 1_000 });
  try {
    for (const text of ["3X", "1S", "S3", "10", ["3S", "ZZ"]] as const) {
      const error = await refusal(offline.play(game, 0, text));
      assert.ok(error instanceof CardTextError && error instanceof InvalidRequest, `${String(text)}: ${error.name}`);
      assert.deepEqual([error.name, error.codeName, error.reason], ["CardTextError", "INVALID_ARGUMENT", "INVALID_CARD"]);
    }
    assert.ok((await refusal(offline.newGame({ hands: ["3S 4Q", "5S", "6S", "7S"] }))) instanceof CardTextError);
    assert.ok((await refusal(offline.validate(game, 0, "3X"))) instanceof CardTextError);
    assert.equal(((await refusal(offline.play(game, 0, "3S"))) as Unavailable).name, "Unavailable", "the offline client does call");
  } finally {
    offline.close();
  }
  assert.throws(() => card("3X"), CardTextError);
  assert.throws(() => card("3X"), /bad card "3X": unknown suit "X"/);
  for (const text of ["3S", "10D", "QH", "2H", "AC"]) assert.equal(cardText(card(text) as never), text);
  assert.equal(cardText(card(" td ") as never), "10D");
  assert.equal(cardText(card("2♥") as never), "2H");
});

// --- several addresses --------------------------------------------------------------------------

test("several addresses: calls go round robin, and a draining replica (NOT_SERVING) gets none", { timeout: 120_000 }, async () => {
  const command = [python(), "-m", "tienlen_service", ...serverArgs()];
  const [a, b] = await Promise.all([
    startServer(command, 30_000, { metrics: true }),
    startServer([...command, "--drain-delay", "120"], 30_000, { metrics: true }),
  ]);
  const both = new TienLenClient([a.address, b.address]);
  try {
    const count = async () => [await handled(a.metricsUrl!, "DescribeRules"), await handled(b.metricsUrl!, "DescribeRules")];
    for (let i = 0; i < 20; i++) await both.describeRules();
    const [onA, onB] = await count();
    assert.equal(onA! + onB!, 20);
    assert.ok(onA! >= 5 && onB! >= 5, `round robin: ${onA} and ${onB}`);
    let game = await both.newGame({ hands: HANDS }); // a token from one replica works on the other
    for (const [seat, cards] of [[0, "3S"], [1, "4C"], [2, "5D"], [3, "6H"]] as const) game = await both.play(game, seat, cards);
    assert.equal(game.toAct, 0);

    b.terminate(); // b drains: NOT_SERVING for 120 s before its port closes
    for (let i = 0; i < 200 && both.wire.health[1]!.health !== "NOT_SERVING"; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(both.wire.health.map((r) => r.health), ["SERVING", "NOT_SERVING"]);
    const [beforeA, beforeB] = await count();
    for (let i = 0; i < 10; i++) await both.describeRules();
    assert.deepEqual(await count(), [beforeA! + 10, beforeB!], "the draining replica got calls");
  } finally {
    both.close();
    b.terminate("SIGINT"); // a second signal stops it at once
    await Promise.all([a.stop(), b.stop()]);
  }
});

test("a call is retried on the next replica when one is down", { timeout: 60_000 }, async () => {
  // 127.0.0.1:1 refuses connections: its calls fail UNAVAILABLE and go to the next replica.
  const withDown = new TienLenClient(["127.0.0.1:1", server.address], { healthCheck: false, attempts: 2 });
  try {
    for (let i = 0; i < 6; i++) assert.ok((await withDown.describeRules()).variants.length > 0);
    assert.deepEqual(withDown.wire.health.map((r) => r.health), ["UNKNOWN", "UNKNOWN"]);
  } finally {
    withDown.close();
  }
  const alone = new TienLenClient("127.0.0.1:1", { attempts: 2, deadlineMs: 2_000 });
  try {
    const error = await refusal(alone.describeRules());
    assert.ok(error instanceof Unavailable, error.name);
  } finally {
    alone.close();
  }
  assert.throws(() => new TienLenClient([]), TypeError);
  assert.throws(() => new TienLenClient("127.0.0.1:1", { attempts: 0 }), RangeError);
});

// --- the protobuf-level client underneath ---------------------------------------------------------

test("a request that can't be encoded is refused by the client with INVALID_ARGUMENT, not grpc-js's INTERNAL", { timeout: 30_000 }, async () => {
  const game = await client.newGame({ hands: HANDS });
  for (const seat of [1.5, 2 ** 40, "one" as unknown as number]) {
    const error = await refusal(client.play(game, seat, "3S"));
    assert.ok(error instanceof InvalidRequest);
    assert.deepEqual([error.code, error.codeName, error.reason], [grpc.status.INVALID_ARGUMENT, "INVALID_ARGUMENT", ""]);
    assert.match(error.message, /^INVALID_ARGUMENT: the request can't be sent: .*ApplyMoveRequest\.seat/);
  }
  await assert.rejects(client.view(game, 2 ** 40), /^InvalidRequest: INVALID_ARGUMENT: .*GetViewRequest\.seat/);
  assert.equal((await client.play(game, 0, "3S")).toAct, 1); // the client goes on
});

test("every call, unary or streamed, carries a new x-request-id that the service's log line names", { timeout: 30_000 }, async () => {
  const sent: string[] = [];
  const interceptor: grpc.Interceptor = (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start: (metadata, listener, next) => {
        sent.push(String(metadata.get(REQUEST_ID_HEADER)[0] ?? ""));
        next(metadata, listener);
      },
    });
  const traced = new TienLenClient(server.address, { channelOptions: { interceptors: [interceptor] } });
  let stream: MoveStream | undefined;
  try {
    const game = await traced.newGame({ hands: HANDS });
    const after1 = await traced.play(game, 0, "3S");
    stream = traced.playStream();
    await stream.pass(after1, 1);
  } finally {
    await stream?.close();
    traced.close();
  }
  assert.equal(sent.length, 3);
  for (const id of sent) assert.match(id, /^[0-9a-f]{32}$/);
  assert.equal(new Set(sent).size, 3);
  const logged = () =>
    server.output.flatMap((line) => {
      try {
        const record = JSON.parse(line) as { event?: string; request_id?: string };
        return record.event === "rpc" && record.request_id ? [record.request_id] : [];
      } catch {
        return [];
      }
    });
  // Wait for the lines themselves (the server writes them after answering), up to the test's own bound.
  for (let i = 0; i < 250 && !sent.every((id) => logged().includes(id)); i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(sent.filter((id) => !logged().includes(id)), []);
});

test("the wire client answers the contract's messages", { timeout: 30_000 }, async () => {
  const wire = new WireClient(server.address);
  try {
    const { game, seatTokens } = await wire.newGame({ deal: { case: "explicit", value: { hands: HANDS.map((h) => ({ cards: h.split(" ").map(card) })) } } });
    const next = await wire.play(game!, 0, seatTokens[0]!, ["3S"]);
    assert.equal(next.toAct, 1);
    assert.ok(next.stateToken instanceof Uint8Array);
    assert.equal(client.wire instanceof WireClient, true);
  } finally {
    wire.close();
  }
});

test("a connection torn down under a call is told apart from the service's own INTERNAL", () => {
  const torn = { code: grpc.status.INTERNAL, details: "Received RST_STREAM with code 2 triggered by internal client error: read ECONNRESET" };
  assert.ok(connectionLost(torn));
  assert.ok(!connectionLost({ code: grpc.status.INTERNAL, details: "Exception calling application" }));
  assert.ok(!connectionLost({ code: grpc.status.UNAVAILABLE, details: "Received RST_STREAM with code 2" }));
});

test("every call about a game names it (tienlen-game-id) for a balancer; a call that starts one names none", { timeout: 30_000 }, async () => {
  const named: [string, string | undefined][] = [];
  const interceptor: grpc.Interceptor = (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start: (metadata, listener, next) => {
        const value = metadata.get(GAME_ID_HEADER)[0];
        named.push([options.method_definition.path.split("/").pop()!, value === undefined ? undefined : String(value)]);
        next(metadata, listener);
      },
    });
  const traced = new TienLenClient(server.address, { channelOptions: { interceptors: [interceptor] } });
  try {
    const game = await traced.newGame({ hands: HANDS });
    await traced.validate(game, 0, "3S");
    await traced.legalMoves(game, 0);
    await traced.view(game, 0);
    const after = await traced.play(game, 0, "3S");
    await traced.suggest(after, 1);
    const id = Buffer.from(game.raw!.gameId).toString("hex");
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.deepEqual(named, [
      ["NewGame", undefined],
      ["ValidateMove", id],
      ["ListLegalMoves", id],
      ["GetView", id],
      ["ApplyMove", id],
      ["SuggestMove", id],
    ]);
  } finally {
    traced.close();
  }
});
