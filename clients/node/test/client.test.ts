// The thin client's typed API against the real server: deal, play, pass, refusals as
// TienLenError with the status code, the ErrorInfo reason and the BadRequest fields.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { card, cardText, TienLenClient, TienLenError } from "../src/client.js";
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

test("card text round-trips", () => {
  for (const text of ["3S", "10D", "QH", "2H", "AC"]) assert.equal(cardText(card(text) as never), text);
  assert.throws(() => card("1S"));
});
