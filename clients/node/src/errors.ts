// Errors of the service as typed exceptions, from the rich status: the gRPC code, the
// ErrorInfo (reason, domain, metadata) and the BadRequest field paths. Every error the client
// throws for a call is a TienLenError; its class says what went wrong, as the Python client's
// exceptions do (tienlen_client/errors.py):
//
//   class             gRPC code                          when
//   MoveRejected      FAILED_PRECONDITION                the rules refuse the move (or the game is over)
//   InvalidToken      INVALID_ARGUMENT, reason TOKEN_*   a state token altered or from another service
//   InvalidRequest    INVALID_ARGUMENT                   a malformed field, rules or deal
//   CardTextError     INVALID_ARGUMENT, INVALID_CARD     card text that is not a card ("3X"), before any call
//   PermissionDenied  PERMISSION_DENIED                  a missing or wrong seat token
//   Unavailable       UNAVAILABLE, DEADLINE_EXCEEDED,    no server answered in time (after the retries)
//                     RESOURCE_EXHAUSTED
//   TienLenError      anything else
//
// A move that PlayStream refuses in-band (PlayStreamError) becomes the same error ApplyMove
// would have thrown. A request the client can't even encode is refused before it is sent
// (`checkEncodable`) as InvalidRequest.

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

/** Whether a call ended because the stream under it was torn down: the INTERNAL grpc-js
 * reports then ("Received RST_STREAM with code 2 ...": a replica killed or restarted, or a
 * proxy such as nginx resetting the stream when the replica behind it died mid-answer; the
 * Python client treats the same INTERNAL alike, `connection_lost`). The service itself never
 * ends a call that way, and every RPC is pure, so such a call is tried again. */
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
    this.name = new.target.name;
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
    const status = { code: error.code as grpc.status, details: error.message };
    const refused = new (errorClass(status.code, error.reason))(status);
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

/** The rules refuse the move (FAILED_PRECONDITION); `reason` is the engine's code
 * (DOES_NOT_BEAT, NOT_YOUR_TURN, GAME_OVER, ...). */
export class MoveRejected extends TienLenError {}

/** A malformed request (INVALID_ARGUMENT): a bad card, option, deal or field (see
 * `fieldViolations`). */
export class InvalidRequest extends TienLenError {}

/** The state token was refused (INVALID_ARGUMENT, reason TOKEN_MALFORMED, TOKEN_BAD_SIGNATURE,
 * ...). */
export class InvalidToken extends InvalidRequest {}

/** The seat token is missing or is not the seat's (PERMISSION_DENIED, SEAT_TOKEN_INVALID). */
export class PermissionDenied extends TienLenError {}

/** The service could not be reached, answered too late or was overloaded, even after the
 * retries (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED). */
export class Unavailable extends TienLenError {}

/** Card text that is not a card ("3X", "1S"): refused by the client before any call, as the
 * service would refuse the card (INVALID_ARGUMENT, reason INVALID_CARD). `text` is the
 * offending token. */
export class CardTextError extends InvalidRequest {
  /** The text that is not a card. */
  readonly text: string;

  constructor(text: string, why: string) {
    super({ code: grpc.status.INVALID_ARGUMENT, details: `bad card ${JSON.stringify(text)}: ${why}` });
    this.text = text;
    this.reasons.push("INVALID_CARD");
    this.domains.push(DOMAIN);
  }
}

const TRANSIENT: ReadonlySet<grpc.status> = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.RESOURCE_EXHAUSTED]);

/** The class of the error for a status `code` and ErrorInfo `reason` (the table above). */
export function errorClass(code: grpc.status, reason = ""): new (status: ErrorStatus) => TienLenError {
  if (code === grpc.status.FAILED_PRECONDITION) return MoveRejected;
  if (code === grpc.status.INVALID_ARGUMENT) return reason.startsWith("TOKEN_") ? InvalidToken : InvalidRequest;
  if (code === grpc.status.PERMISSION_DENIED) return PermissionDenied;
  if (TRANSIENT.has(code)) return Unavailable;
  return TienLenError;
}

/** The typed error of a call that ended with `status` (its class from the code and the
 * ErrorInfo reason the trailers carry). */
export function errorFor(status: ErrorStatus): TienLenError {
  const error = new TienLenError(status);
  const cls = errorClass(status.code, error.reason);
  return cls === TienLenError ? error : new cls(status);
}

/** Throws an InvalidRequest (INVALID_ARGUMENT), naming the field and what is wrong, when `message` can't
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
    throw new InvalidRequest({ code: grpc.status.INVALID_ARGUMENT, details: `the request can't be sent: ${why}` });
  }
}
