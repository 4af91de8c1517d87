// A refused call in words: the service's sentence, its stable reason code (the one ErrorInfo of
// domain tienlen.v1) and the Connect code. The page shows the sentence; the code is for players
// who report a problem and for tests.

import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";

/** Why the service refused a call. */
export interface Refusal {
  /** The service's sentence, e.g. "7♠ does not beat 9♥" (Connect's raw message). */
  readonly message: string;
  /** ErrorInfo.reason (NOT_YOUR_TURN, DOES_NOT_BEAT...), or "" when the error carries none. */
  readonly reason: string;
  /** The Connect/gRPC code's name in snake case, e.g. "failed_precondition". */
  readonly code: string;
}

function codeName(code: Code): string {
  return (Code[code] ?? "unknown").replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** The refusal an error carries: a ConnectError's message and ErrorInfo, or any error's text. */
export function refusalOf(error: unknown): Refusal {
  const connectError = ConnectError.from(error);
  const info = connectError.findDetails(ErrorInfoSchema).find((detail) => detail.domain === "tienlen.v1");
  return {
    message: connectError.rawMessage || "The service gave no reason.",
    reason: info?.reason ?? "",
    code: codeName(connectError.code),
  };
}
