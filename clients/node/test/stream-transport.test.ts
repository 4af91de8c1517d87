// WireMoveStream against a scripted transport: the orders of events a real replica gives only by
// chance (a move made after a stream's status is in but before its end is handled).
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import { GameUpdateSchema } from "../gen/tienlen/v1/game_pb.js";
import { PlayStreamResponseSchema, type PlayStreamRequest } from "../gen/tienlen/v1/service_pb.js";
import { TienLenError } from "../src/errors.js";
import { WireMoveStream, type PlayStreamCall } from "../src/stream.js";

/** One scripted PlayStream call: records what is written; the test emits what the replica says. */
class ScriptedCall extends EventEmitter {
  readonly writes: PlayStreamRequest[] = [];
  write(request: PlayStreamRequest): boolean {
    this.writes.push(request);
    return true;
  }
  end(): void {}
  cancel(): void {}
  /** The replica refuses the move in-band (NOT_YOUR_TURN). */
  refuse(tag: string): void {
    const error = { code: grpc.status.FAILED_PRECONDITION, reason: "NOT_YOUR_TURN", message: "scripted" };
    this.emit("data", create(PlayStreamResponseSchema, { tag, result: { case: "error", value: error } }));
  }
}

const OK: grpc.StatusObject = { code: grpc.status.OK, details: "", metadata: new grpc.Metadata() };
const GAME = create(GameUpdateSchema, { stateToken: new Uint8Array([1]) });

function scripted(): { stream: WireMoveStream; calls: ScriptedCall[] } {
  const calls: ScriptedCall[] = [];
  const transport = {
    open: () => {
      const call = new ScriptedCall();
      calls.push(call);
      return call as unknown as PlayStreamCall;
    },
    withView: async () => GAME,
  };
  return { stream: new WireMoveStream(transport, { updateView: "full", attempts: 1, deadlineMs: 5_000 }), calls };
}

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TienLenError, String(error));
    return `${error.codeName} ${error.reason ?? ""}`;
  }
  return "answered";
}

test("a move made after a drained stream's status goes to the next stream, not counted a failure", async () => {
  const { stream, calls } = scripted();
  const first = stream.play(GAME, 0, "", ["3S"]);
  calls[0]!.refuse(calls[0]!.writes[0]!.tag);
  assert.equal(await reason(first), "FAILED_PRECONDITION NOT_YOUR_TURN");
  calls[0]!.emit("status", OK); // the replica ended the stream cleanly (a drain)...
  const second = stream.play(GAME, 1, "", ["4S"]); // ...and this move is never written to it
  assert.equal(calls[0]!.writes.length, 1);
  calls[0]!.emit("end");
  assert.equal(calls.length, 2, "the waiting move opens the next stream at once");
  assert.equal(calls[1]!.writes.length, 1);
  calls[1]!.refuse(calls[1]!.writes[0]!.tag);
  assert.equal(await reason(second), "FAILED_PRECONDITION NOT_YOUR_TURN"); // answered, with 1 attempt
  calls[1]!.emit("status", OK);
  calls[1]!.emit("end");
  await stream.close(1_000);
});

test("a drained stream that lost a move written to it still counts as a failed attempt", async () => {
  const { stream, calls } = scripted();
  const lost = stream.play(GAME, 0, "", ["3S"]);
  calls[0]!.emit("status", OK);
  calls[0]!.emit("end");
  assert.equal(await reason(lost), "UNAVAILABLE ");
  assert.equal(calls.length, 1);
  await stream.close(1_000);
});
