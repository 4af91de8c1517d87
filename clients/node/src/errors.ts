// Errors of the service as one exception type, from the rich status: the gRPC code, the
// ErrorInfo (reason, domain, metadata) and the BadRequest field paths. A move that PlayStream
// refuses in-band (PlayStreamError) becomes the same TienLenError ApplyMove would have thrown.
// A request the client can't even encode is refused before it is sent (`checkEncodable`).

import * as grpc from "@grpc/grpc-js";
import { fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { BadRequestSchema, ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../gen/google/rpc/status_pb.js";
import type { PlayStreamError } from "../gen/tienlen/v1/service_pb.js";

/** The ErrorInfo domain of every refusal of the service. */
export const DOMAIN = "tienlen.v1";

/** A call's final status, as grpc-js gives it (a grpc.ServiceError is one). */
export interface ErrorStatus {
  code: grpc.status;
  details: string;
  /** The trailers: the rich error details are in `grpc-status-details-bin`. */
  metadata?: grpc.Metadata;
}

/** Whether a call ended because the connection under it was torn down: the INTERNAL grpc-js
 * reports then ("Received RST_STREAM with code 2 ...": a replica killed or restarted; gRPC's C
 * core, the Python client's, says UNAVAILABLE there — grpc/grpc-node#2672). The service itself
 * never ends a call that way, and every RPC is pure, so such a call is tried again. */
export function connectionLost(status: Pick<ErrorStatus, "code" | "details">): boolean {
  return status.code === grpc.status.INTERNAL && status.details.startsWith("Received RST_STREAM");
}

/** A refused call: the gRPC status code and the rich error details. */
export class TienLenError extends Error {
  /** The gRPC status code, e.g. grpc.status.FAILED_PRECONDITION. */
  readonly code: grpc.status;
  /** The code's name, e.g. "FAILED_PRECONDITION". */
  readonly codeName: string;
  /** ErrorInfo.reason of every ErrorInfo detail (the service sends exactly one). */
  readonly reasons: string[] = [];
  /** ErrorInfo.domain of every ErrorInfo detail. */
  readonly domains: string[] = [];
  /** ErrorInfo.metadata (e.g. `{ seat: "1" }` for a move refused by the rules). */
  readonly metadata: Record<string, string> = {};
  /** BadRequest field violations: the request fields that were malformed. */
  readonly fieldViolations: string[] = [];

  constructor(status: ErrorStatus) {
    super(`${grpc.status[status.code] ?? status.code}: ${status.details}`);
    this.name = "TienLenError";
    this.code = status.code;
    this.codeName = grpc.status[status.code] ?? String(status.code);
    for (const raw of status.metadata?.get("grpc-status-details-bin") ?? []) {
      const rich = fromBinary(StatusSchema, raw instanceof Buffer ? raw : Buffer.from(raw));
      for (const detail of rich.details) {
        const info = anyUnpack(detail, ErrorInfoSchema);
        if (info) {
          this.reasons.push(info.reason);
          this.domains.push(info.domain);
          Object.assign(this.metadata, info.metadata);
          continue;
        }
        const bad = anyUnpack(detail, BadRequestSchema);
        if (bad) this.fieldViolations.push(...bad.fieldViolations.map((v) => v.field));
      }
    }
  }

  /** The error ApplyMove would have thrown for a move PlayStream refused in-band: the code,
   * reason, message and metadata of the status it would have ended with (PlayStreamError
   * carries no BadRequest; a field at fault is named in `metadata.field`). */
  static fromStreamError(error: PlayStreamError): TienLenError {
    const refused = new TienLenError({ code: error.code as grpc.status, details: error.message });
    if (error.reason) {
      refused.reasons.push(error.reason);
      refused.domains.push(DOMAIN);
    }
    Object.assign(refused.metadata, error.metadata);
    return refused;
  }

  /** The single ErrorInfo reason (e.g. "NOT_YOUR_TURN"), or "" when there is none. */
  get reason(): string {
    return this.reasons[0] ?? "";
  }
}

/** Throws a TienLenError INVALID_ARGUMENT, naming the field and what is wrong, when `message` can't
 * be encoded (e.g. a seat of 1.5, 2**40 or "one" for an int32: protobuf-es builds such a message
 * and only its encoder refuses it). Called on every request before it is handed to grpc-js,
 * whose own encoding fails the call with INTERNAL "Request message serialization failure" —
 * and a PlayStream call with every table's move on it. The client refuses that one request
 * instead, as the service refuses a malformed one and as the Python client's protobuf refuses
 * the value when the request is built. (The request is encoded again by grpc-js, a few
 * microseconds per call; handing it the bytes instead would show interceptors bytes.) */
export function checkEncodable<D extends DescMessage>(schema: D, message: MessageShape<D>): void {
  try {
    toBinary(schema, message);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new TienLenError({ code: grpc.status.INVALID_ARGUMENT, details: `the request can't be sent: ${why}` });
  }
}
