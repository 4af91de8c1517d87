// Call metadata, as the Python client sends it: the `x-request-id` of every call, found again in
// the service's log line (its call observer binds it to the call's canonical line), and the game
// a call is about (`tienlen-game-id`, hexadecimal): a balancer that hashes it sends every call of
// a game to one replica, whose state cache then answers without decoding the token again, while
// any replica still answers any call (deploy/README.md, "Affinity"). A call that starts a game
// (NewGame, ReplayGame) or is about none names none.

import { randomBytes } from "node:crypto";
import * as grpc from "@grpc/grpc-js";

export const REQUEST_ID_HEADER = "x-request-id";
export const GAME_ID_HEADER = "tienlen-game-id";

/** 32 hexadecimal digits, new on every call. */
export function newRequestId(): string {
  return randomBytes(16).toString("hex");
}

/** The metadata of a call: a new request id, and the id of the game it is about (if any). */
export function requestMetadata(gameId?: Uint8Array): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(REQUEST_ID_HEADER, newRequestId());
  if (gameId !== undefined && gameId.length > 0) metadata.set(GAME_ID_HEADER, Buffer.from(gameId).toString("hex"));
  return metadata;
}
