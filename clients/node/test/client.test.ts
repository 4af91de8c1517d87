// The thin client's typed API against the real server: deal, play, pass, refusals as
// TienLenError with the status code, the ErrorInfo reason and the BadRequest fields.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { card, cardText, TienLenClient, TienLenError } from "../src/client.js";
import { connectionLost } from "../src/errors.js";
import { REQUEST_ID_HEADER } from "../src/request-ids.js";
import { startServer, type RunningServer } from "../src/server.js";

let server: RunningServer;
let client: TienLenClient;

before(async () => {
  server = await startServer();
  client = new TienLenClient(server.address);
});
after(async () => {
  client?.close();
  await server?.stop();
});

const hands = ["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"].map((h) => ({ cards: h.split(" ").map(card) }));

test("a game dealt, played and passed through the typed API", { timeout: 30_000 }, async () => {
  const { game, seatTokens } = await client.newGame({ deal: { case: "explicit", value: { hands } } });
  assert.ok(game);
  assert.equal(game.toAct, 0);
  assert.equal(seatTokens.length, 4);
  const view = await client.getView({ stateToken: game.stateToken, seat: 0, seatToken: seatTokens[0]! });
  assert.deepEqual(view.view!.hand.map(cardText), ["3S", "9H", "KS"]);
  const after1 = await client.play(game, 0, seatTokens[0]!, ["3S"]);
  assert.equal(after1.toAct, 1);
  const after2 = await client.pass(after1, 1, seatTokens[1]!);
  assert.equal(after2.toAct, 2);
  assert.equal(after2.events[0]?.kind.case, "passed");
});

test("an illegal move is a TienLenError with its code and reason", { timeout: 30_000 }, async () => {
  const { game, seatTokens } = await client.newGame({ deal: { case: "explicit", value: { hands } } });
  await assert.rejects(client.play(game!, 0, seatTokens[0]!, ["9H"]), (error: unknown) => {
    assert.ok(error instanceof TienLenError);
    assert.equal(error.code, grpc.status.FAILED_PRECONDITION);
    assert.equal(error.reason, "MUST_INCLUDE_STARTING_CARD");
    assert.deepEqual(error.domains, ["tienlen.v1"]);
    assert.deepEqual(error.metadata, { seat: "0" });
    return true;
  });
  await assert.rejects(client.newGame({ rules: { variant: "western" } }), (error: unknown) => {
    assert.ok(error instanceof TienLenError);
    assert.equal(error.codeName, "INVALID_ARGUMENT");
    assert.equal(error.reason, "UNKNOWN_VARIANT");
    assert.deepEqual(error.fieldViolations, ["rules.variant"]);
    return true;
  });
});

test("a request that can't be encoded is refused by the client with INVALID_ARGUMENT, not grpc-js's INTERNAL", { timeout: 30_000 }, async () => {
  const { game, seatTokens } = await client.newGame({ deal: { case: "explicit", value: { hands } } });
  for (const seat of [1.5, 2 ** 40, "one" as unknown as number]) {
    await assert.rejects(client.play(game!, seat, seatTokens[0]!, ["3S"]), (error: unknown) => {
      assert.ok(error instanceof TienLenError, `not a TienLenError: ${String(error)}`);
      assert.deepEqual([error.code, error.codeName, error.reason], [grpc.status.INVALID_ARGUMENT, "INVALID_ARGUMENT", ""]);
      assert.match(error.message, /^INVALID_ARGUMENT: the request can't be sent: .*ApplyMoveRequest\.seat/);
      return true;
    });
  }
  await assert.rejects(client.getView({ stateToken: game!.stateToken, seat: 2 ** 40 }), /^TienLenError: INVALID_ARGUMENT: .*GetViewRequest\.seat/);
  assert.equal((await client.play(game!, 0, seatTokens[0]!, ["3S"])).toAct, 1); // the client goes on
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
  try {
    const { game, seatTokens } = await traced.newGame({ deal: { case: "explicit", value: { hands } } });
    const after1 = await traced.play(game!, 0, seatTokens[0]!, ["3S"]);
    const stream = traced.playStream();
    await stream.pass(after1, 1, seatTokens[1]!);
    await stream.close();
  } finally {
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
  for (let i = 0; i < 50 && !sent.every((id) => logged().includes(id)); i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(sent.filter((id) => !logged().includes(id)), []);
});

test("a connection torn down under a call is told apart from the service's own INTERNAL", () => {
  const torn = { code: grpc.status.INTERNAL, details: "Received RST_STREAM with code 2 triggered by internal client error: read ECONNRESET" };
  assert.ok(connectionLost(torn));
  assert.ok(!connectionLost({ code: grpc.status.INTERNAL, details: "Exception calling application" }));
  assert.ok(!connectionLost({ code: grpc.status.UNAVAILABLE, details: "Received RST_STREAM with code 2" }));
});

test("card text round-trips", () => {
  for (const text of ["3S", "10D", "QH", "2H", "AC"]) assert.equal(cardText(card(text) as never), text);
  assert.throws(() => card("1S"));
});
