// WireMoveStream: the moves of many tables over one PlayStream call (for game hosts), on
// GameUpdates with the seat token by hand; TienLenClient's MoveStream (client.ts) is this one on
// Game records. The Node twin of the Python client's tienlen_client/stream.py: the same
// semantics, as Promises.
//
//   await using stream = wire.playStream({ updateView: "basic" });   // wire: a WireClient
//   const next = await stream.play(game, seat, seatToken, ["3S"]);        // one move, its answer
//   const all = await Promise.all(tables.map((t) => stream.pass(t.game, t.game.toAct!, t.token)));
//
// PlayStream is ApplyMove on a bidirectional stream: each message still carries its state
// token, so the service stays stateless, and a replica spends about half the CPU per move of a
// unary ApplyMove (bench/README.md §3). `play` and `pass` resolve to the GameUpdate the client's
// unary `play` / `pass` would return; a refused move is answered in the stream and rejected
// here with the TienLenError ApplyMove would have thrown (code, reason, metadata); the stream
// goes on. So does it after a move that can't even be encoded (a seat of 1.5): that one move
// rejects with INVALID_ARGUMENT before it is sent.
//
// Any number of tables may have moves in flight at once: each move is sent with its own tag
// and its answer is matched by that tag. Every move is a pure function of its request, so when
// the stream breaks (the replica drains, restarts, or has no stream slot free: UNAVAILABLE,
// CANCELLED, RESOURCE_EXHAUSTED with reason TOO_MANY_STREAMS) the moves still waiting are sent
// again on a new stream, with backoff, up to `attempts` streams in a row that answer nothing;
// after that they, and every later move, reject with that last status as a TienLenError (e.g.
// RESOURCE_EXHAUSTED / TOO_MANY_STREAMS): open a new stream, or use the unary calls. Another
// status (INTERNAL, ...) fails the stream at once. Nothing sent is lost: every move gets an
// answer or an error.
//
// With `updateView: "basic"` the answers carry no spectator view and the stream follows it
// from the events with the client's follower (follow.ts); an answer that can't be followed gets
// its view from a GetView call, while the other answers go on being routed.

import * as grpc from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import type { GameUpdate } from "../gen/tienlen/v1/game_pb.js";
import { PlayStreamRequestSchema, type PlayStreamRequest, type PlayStreamResponse } from "../gen/tienlen/v1/service_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { MoveSchema } from "../gen/tienlen/v1/moves_pb.js";
import { move, type CardsLike } from "./cards.js";
import { checkEncodable, connectionLost, errorFor, TienLenError } from "./errors.js";
import { applyRequest, checkUpdateView, type UpdateView } from "./follow.js";
import { LEAVE_MOVE, TIMEOUT_MOVE } from "./table.js";

/** Status codes after which the waiting moves are sent again on a new stream. */
export const RETRYABLE: ReadonlySet<grpc.status> = new Set([grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.RESOURCE_EXHAUSTED]);

/** Whether a stream that ended with `status` broke on the way (its waiting moves are sent again)
 * rather than being refused: OK (the replica ended it: a drain), a RETRYABLE code, or a
 * connection torn down under it (`connectionLost`). */
export function broken(status: grpc.StatusObject): boolean {
  return status.code === grpc.status.OK || RETRYABLE.has(status.code) || connectionLost(status);
}
/** The wait before the first new stream after a break; it doubles up to BACKOFF_MAX_MS. */
export const BACKOFF_INITIAL_MS = 100;
export const BACKOFF_MAX_MS = 1_000;
/** How long `close()` waits, by default, for the moves sent to be answered. */
export const CLOSE_TIMEOUT_MS = 10_000;

/** One PlayStream call, as grpc-js gives it. */
export type PlayStreamCall = grpc.ClientDuplexStream<PlayStreamRequest, PlayStreamResponse>;

/** What a WireMoveStream needs of its client (WireClient.playStream gives it). */
export interface StreamTransport {
  /** Start one PlayStream call. */
  open(): PlayStreamCall;
  /** The game after `update`, the answer to a move made on `previous`: the unary calls' own
   * step (the view followed from the events, or asked of GetView). */
  withView(previous: GameUpdate, update: GameUpdate): Promise<GameUpdate>;
}

/** How a WireMoveStream behaves (WireClient.playStream takes them from the client). */
export interface MoveStreamSettings {
  /** How moves are answered by default. */
  updateView: UpdateView;
  /** How many streams in a row may break without answering before the waiting moves fail. */
  attempts: number;
  /** How long a move's Promise waits for its answer, in milliseconds. */
  deadlineMs: number;
  /** The host's deal key, sent with every move (the chop seats, RULES §9.5); default none. */
  dealKey?: string;
}

/** Options of one streamed move. */
export interface StreamMoveOptions {
  /** This move's answer: "full" or "basic" (default: the stream's `updateView`). */
  updateView?: UpdateView;
}

/** A move sent and not yet answered. */
interface Pending {
  readonly request: PlayStreamRequest;
  /** The game the move was made on: a basic answer is followed from it. */
  readonly game: GameUpdate;
  resolve(game: GameUpdate): void;
  reject(error: Error): void;
}

/** One PlayStream call shared by the moves of any number of tables; see the module comment.
 * Made by `WireClient.playStream()`. */
export class WireMoveStream implements AsyncDisposable {
  /** How moves are answered by default ("full" or "basic"). */
  readonly updateView: UpdateView;
  private readonly transport: StreamTransport;
  private readonly attempts: number;
  private readonly deadlineMs: number;
  private readonly dealKey: string;
  /** Moves sent and not answered, by tag (in the order they were sent). */
  private readonly pending = new Map<string, Pending>();
  /** Answers being completed (a basic answer waiting for GetView): `close` waits for them. */
  private readonly completing = new Set<Promise<void>>();
  private tags = 0;
  /** The current call, from its start until its end is handled (unset between streams). */
  private call: PlayStreamCall | undefined;
  /** Whether moves are written to `call`: not once its status is in (the waiting moves go to
   * the next stream). */
  private writing = false;
  /** The tags of the moves written to `call`. */
  private written = new Set<string>();
  /** The timer of the next stream after a break (its backoff). */
  private retry: NodeJS.Timeout | undefined;
  /** Streams in a row that broke without answering anything. */
  private failures = 0;
  private closing = false;
  private failed: Error | undefined;
  /** Resolved once the stream is over for good: closed with every move answered, or failed. */
  private readonly over: Promise<void>;
  private markOver!: () => void;

  constructor(transport: StreamTransport, settings: MoveStreamSettings) {
    if (!(settings.attempts >= 1)) throw new RangeError("attempts must be at least 1");
    this.transport = transport;
    this.updateView = checkUpdateView(settings.updateView);
    this.attempts = settings.attempts;
    this.deadlineMs = settings.deadlineMs;
    this.dealKey = settings.dealKey ?? "";
    this.over = new Promise((resolve) => (this.markOver = resolve));
  }

  // --- moves ----------------------------------------------------------------------------------

  /** `seat` plays `cards` (card text) in `game`: the game after the move, as the client's `play`
   * returns it; rejects with the TienLenError ApplyMove would throw (e.g. NOT_YOUR_TURN). */
  play(game: GameUpdate, seat: number, seatToken: string, cards: CardsLike, options: StreamMoveOptions = {}): Promise<GameUpdate> {
    return this.send(game, seat, seatToken, move(cards), options);
  }

  /** `seat` passes in `game`: the game after the move (as `play`). */
  pass(game: GameUpdate, seat: number, seatToken: string, options: StreamMoveOptions = {}): Promise<GameUpdate> {
    return this.send(game, seat, seatToken, move(null), options);
  }

  /** The host's time-out of `seat`, the seat to act (RULES §9.3): the game after the move it
   * makes. */
  timeout(game: GameUpdate, seat: number, seatToken: string, options: StreamMoveOptions = {}): Promise<GameUpdate> {
    return this.send(game, seat, seatToken, TIMEOUT_MOVE, options);
  }

  /** `seat`'s player left during the game (RULES §9.4): the game after the leave. */
  leave(game: GameUpdate, seat: number, seatToken: string, options: StreamMoveOptions = {}): Promise<GameUpdate> {
    return this.send(game, seat, seatToken, LEAVE_MOVE, options);
  }

  private async send(
    game: GameUpdate,
    seat: number,
    seatToken: string,
    wireMove: MessageInitShape<typeof MoveSchema>,
    options: StreamMoveOptions,
  ): Promise<GameUpdate> {
    if (this.failed !== undefined) throw this.failed;
    if (this.closing) throw new Error("the move stream is closed");
    const wanted = options.updateView === undefined ? this.updateView : checkUpdateView(options.updateView);
    const tag = String(++this.tags);
    const request = create(PlayStreamRequestSchema, { tag, move: applyRequest(game, seat, seatToken, wireMove, wanted, this.dealKey) });
    // A move that can't be encoded (a seat of 1.5) is refused here, before it is pending: written,
    // grpc-js would fail the whole call with INTERNAL, and every table's move with it.
    checkEncodable(PlayStreamRequestSchema, request);
    return new Promise<GameUpdate>((resolve, reject) => {
      // The move stays pending after its deadline (it may still be answered, and is sent again
      // on a new stream): only its caller stops waiting.
      const timer = setTimeout(() => {
        reject(errorFor({
          code: grpc.status.DEADLINE_EXCEEDED,
          details: `no answer to the move within ${this.deadlineMs} ms (it may still be answered)`,
        }));
      }, this.deadlineMs);
      const settle = <T>(done: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        done(value);
      };
      this.pending.set(tag, { request, game, resolve: settle(resolve), reject: settle(reject) });
      if (this.call === undefined && this.retry === undefined) this.open(); // at the first move, and after an idle break
      else if (this.writing) this.write(request);
      // else: the next stream sends every waiting move.
    });
  }

  // --- lifetime -------------------------------------------------------------------------------

  /** End the stream once every move sent is answered (waits up to `timeoutMs`; then the moves
   * still unanswered reject with CANCELLED and the call is cancelled). Later moves reject. */
  async close(timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      if (this.writing) this.call!.end(); // the service ends the stream after the last answer
      else if (this.retry === undefined && this.pending.size === 0) this.markOver(); // never opened, or idle
      // else: the next stream sends the waiting moves and ends.
    }
    if (!(await settledWithin(this.over, timeoutMs))) {
      this.failAll(errorFor({
        code: grpc.status.CANCELLED,
        details: `the move stream was closed before the move was answered (waited ${timeoutMs} ms)`,
      }));
      clearTimeout(this.retry);
      this.retry = undefined;
      this.call?.cancel();
      this.markOver();
    }
    await Promise.allSettled(this.completing); // answers still waiting for their view
  }

  /** `await using stream = client.playStream()`: closes the stream (as `close()`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // --- one stream after the other -------------------------------------------------------------

  /** Start a stream and send it every waiting move (all of them after a break). */
  private open(): void {
    this.retry = undefined;
    let call: PlayStreamCall;
    try {
      call = this.transport.open();
    } catch (error) { // a call that can't even start (the client was closed): nothing to retry
      this.failAll(error instanceof Error ? error : new Error(String(error)));
      this.markOver();
      return;
    }
    this.call = call;
    this.writing = true;
    const written = new Set<string>();
    this.written = written;
    let status: grpc.StatusObject | undefined;
    let ended = false;
    // A stream is over once its status is in and every answer before it was read.
    const finish = () => {
      if (status === undefined || !ended) return;
      this.call = undefined;
      this.broke(status, written);
    };
    call.on("data", (response: PlayStreamResponse) => this.answer(response));
    call.on("error", () => {}); // the status that follows says it all
    call.on("end", () => {
      ended = true;
      finish();
    });
    call.on("status", (received: grpc.StatusObject) => {
      status = received;
      this.writing = false;
      finish();
    });
    for (const waiting of this.pending.values()) this.write(waiting.request);
    if (this.closing) call.end();
  }

  private write(request: PlayStreamRequest): void {
    this.call!.write(request);
    this.written.add(request.tag);
  }

  /** Route one answer to its move. */
  private answer(response: PlayStreamResponse): void {
    this.failures = 0;
    const waiting = this.pending.get(response.tag);
    if (waiting === undefined) return; // answered already (before a break), or abandoned by close
    this.pending.delete(response.tag);
    const result = response.result;
    if (result.case === "error") {
      waiting.reject(TienLenError.fromStreamError(result.value));
    } else if (result.case === "applied" && result.value.game !== undefined) {
      const completing = this.transport.withView(waiting.game, result.value.game).then(waiting.resolve, waiting.reject);
      this.completing.add(completing);
      void completing.finally(() => this.completing.delete(completing));
    } else {
      waiting.reject(errorFor({ code: grpc.status.INTERNAL, details: "the stream answered a move with neither a game nor an error" }));
    }
  }

  /** A stream ended (`status` OK or not): done, idle, sent again after a backoff, or failed.
   * `written`: the tags of the moves written to it. */
  private broke(status: grpc.StatusObject, written: ReadonlySet<string>): void {
    if (this.closing && this.pending.size === 0) {
      this.markOver();
      return;
    }
    const retryable = broken(status);
    // Idle: no move waits, or the replica ended the stream cleanly (a drain) without losing a
    // move written to it; the moves that came after its status, never sent on it, go to the
    // next stream at once. A stream that broke still counts as an attempt.
    const lost = [...this.pending.keys()].some((tag) => written.has(tag));
    const idle = !this.closing && retryable && (this.pending.size === 0 || (status.code === grpc.status.OK && !lost));
    this.failures = idle ? 0 : this.failures + 1;
    if (idle) {
      if (this.pending.size > 0) this.open(); // else: the next move opens a new stream
      return;
    }
    if (!retryable || this.failures >= this.attempts) {
      this.failAll(status.code === grpc.status.OK
        ? errorFor({ code: grpc.status.UNAVAILABLE, details: "the stream ended before answering" })
        : errorFor(status));
      this.markOver();
      return;
    }
    const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** (this.failures - 1));
    this.retry = setTimeout(() => this.open(), backoff);
  }

  /** Reject every waiting move and every later one with `error`. */
  private failAll(error: Error): void {
    this.failed ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

/** Whether `promise` settles within `ms` milliseconds. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
