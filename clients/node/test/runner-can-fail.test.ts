// The Node runner can fail: against a deliberately broken copy of the service
// (tests/contract/broken_server.py: the real server with one RPC answering wrongly) it reports
// a mismatch naming the file, the step and the field. The Python runner proves the same in
// tests/contract/test_runner_can_fail.py.
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { join } from "node:path";
import { test } from "node:test";
import type { JsonValue } from "@bufbuild/protobuf";
import { checkRefusal, compare, load, Mismatch, replay } from "../src/conversation.js";
import { DOMAIN, TienLenError, WireClient } from "../src/wire.js";
import { CONVERSATIONS_DIR, python, REPO, serverArgs, startServer } from "../src/server.js";

const CONVERSATION = join(CONVERSATIONS_DIR, "southern_refusals.json");

async function replayAgainstBroken(fault: string): Promise<Mismatch> {
  const server = await startServer([python(), join(REPO, "tests", "contract", "broken_server.py"), "--break", fault, ...serverArgs()]);
  const client = new WireClient(server.address);
  try {
    await replay(load(CONVERSATION), client);
  } catch (error) {
    if (error instanceof Mismatch) return error;
    throw error;
  } finally {
    client.close();
    await server.stop();
  }
  assert.fail("the runner replayed the conversation against a broken server without a mismatch");
}

test("a refusal with the wrong code is reported with the file, the step and the field", { timeout: 60_000 }, async () => {
  const mismatch = await replayAgainstBroken("refusal-code");
  assert.deepEqual([mismatch.file, mismatch.step, mismatch.rpc, mismatch.where], ["southern_refusals.json", 2, "ApplyMove", "code"]);
  assert.match(mismatch.message, /^southern_refusals\.json step 2 \(ApplyMove\): code: expected FAILED_PRECONDITION, got INVALID_ARGUMENT/);
});

test("a wrong field in an answer is reported with its path", { timeout: 60_000 }, async () => {
  const mismatch = await replayAgainstBroken("to-act");
  const firstMove = load(CONVERSATION).steps.find((s) => s.rpc === "ApplyMove" && s.expect.code === "OK")!;
  assert.deepEqual([mismatch.file, mismatch.step, mismatch.where], ["southern_refusals.json", firstMove.number, "game.toAct"]);
  assert.match(mismatch.detail, /expected 1, got 2/);
});

test("the comparison names the deepest differing field", () => {
  const expected: JsonValue = { game: { events: [{ played: { seat: 0 } }, { turnPassed: { seat: 1 } }] } };
  const actual: JsonValue = { game: { events: [{ played: { seat: 0 } }, { turnPassed: { seat: 2 } }] } };
  assert.deepEqual(compare(expected, actual, ""), ["game.events[1].turnPassed.seat", "expected 1, got 2"]);
  assert.deepEqual(compare({ toAct: null }, { toAct: 0 }, ""), ["toAct", "expected absent, got 0"]);
  assert.notEqual(compare({ finished: false }, { finished: 0 }, ""), null);
  assert.notEqual(compare({ net: ["100"] }, { net: [100] }, ""), null);
  assert.deepEqual(compare({ moves: { $len: 2 } }, { moves: [1] }, ""), ["moves", "expected 2 elements, got 1"]);
});

test("a refusal with other error metadata is reported with the entry", () => {
  const refusal = new TienLenError({ code: grpc.status.INVALID_ARGUMENT, details: "move 4 (seat 1: 8C) is illegal" });
  refusal.reasons.push("RECORD_ILLEGAL_MOVE");
  refusal.domains.push(DOMAIN);
  Object.assign(refusal.metadata, { move_number: "4", move_reason: "DOES_NOT_BEAT" });
  const expect = { code: "INVALID_ARGUMENT", reason: "RECORD_ILLEGAL_MOVE" };
  assert.equal(checkRefusal({ ...expect, metadata: { move_number: "4" } }, refusal), null);
  assert.deepEqual(checkRefusal({ ...expect, metadata: { move_number: "5" } }, refusal), ["metadata.move_number", 'expected "5", got "4"']);
  assert.deepEqual(checkRefusal({ ...expect, metadata: { seat: "1" } }, refusal), ["metadata.seat", 'expected "1", got (absent)']);
});
