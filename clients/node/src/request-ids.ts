// Request ids: the `x-request-id` of every call, found again in the service's log line (its
// interceptor binds it to the call's canonical line), as the Python client sends them.

import { randomBytes } from "node:crypto";
import * as grpc from "@grpc/grpc-js";

export const REQUEST_ID_HEADER = "x-request-id";

/** 32 hexadecimal digits, new on every call. */
export function newRequestId(): string {
  return randomBytes(16).toString("hex");
}

/** The metadata of a call: a new request id. */
export function requestMetadata(): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(REQUEST_ID_HEADER, newRequestId());
  return metadata;
}
