// Game records (biên bản ván bài): the text form of docs/RECORDS.md <-> the contract's
// GameRecord / MatchRecord messages, and ReplayGame (the service plays a record again from its
// deal, every move checked as ApplyMove checks it).
//
//   const record = parseRecord(text);             // throws RecordParseError (line, column)
//   formatRecord(record) === text;                 // for text in the canonical form
//   const game = await replayRecord(client, text);  // the Game after the last move
//
// The text is the one the Python client writes and reads (tienlen_client.record): tags
// `[Name "value"]`, numbered moves `1. 0: 3S 4S 5S` / `2. 1: pass`, then the result. Records
// are the contract's GameRecord / MatchRecord messages (`v1`). A refused move throws
// RecordMoveRejected (a MoveRejected) with its 1-based `moveNumber`. A host keeps a game's
// record with a GameRecorder, from the Games the client returns.

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  GameRecordSchema,
  MatchRecordSchema,
  RecordedMoveSchema,
  type GameRecord,
  type MatchRecord,
  type RecordedMove,
} from "../gen/tienlen/v1/record_pb.js";
import { TransferReason, TransferSchema } from "../gen/tienlen/v1/settlement_pb.js";
import { TienLenEngine } from "../gen/tienlen/v1/service_pb.js";
import * as grpc from "@grpc/grpc-js";
import type { TienLenClient } from "./client.js";
import { card, type CardsLike } from "./cards.js";
import { DOMAIN, InvalidRequest, MoveRejected, TienLenError } from "./errors.js";
import { toGame, type Game } from "./models.js";
import {
  formatMatch as formatMatchText,
  formatRecord as formatText,
  parseRecords,
  readCards,
  RecordSyntaxError,
  strength,
} from "./record-text.js";

export { MAX_RECORD_MOVES, MAX_RECORD_TEXT_BYTES } from "./record-text.js";

type RecordInit = MessageInitShape<typeof GameRecordSchema>;

/** Text that is not a game record, refused by the client before any call (an InvalidRequest,
 * reason RECORD_PARSE_ERROR): `line` and `column` (1-based) say where, `detail` what. */
export class RecordParseError extends InvalidRequest {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super({ code: grpc.status.INVALID_ARGUMENT, details: `line ${line}, column ${column}: ${detail}` });
    this.reasons.push("RECORD_PARSE_ERROR");
    this.domains.push(DOMAIN);
  }
}

/** ReplayGame refused move `moveNumber` (1-based) of the record: `moveReason` is the rule's
 * code (DOES_NOT_BEAT, ...), `field` the record field at fault (e.g. "record.moves[4].cards").
 * Its `reason` stays the service's, RECORD_ILLEGAL_MOVE. */
export class RecordMoveRejected extends MoveRejected {
  readonly moveNumber: number;
  readonly moveReason: string;
  readonly field: string;

  constructor(error: TienLenError) {
    super({ code: error.code, details: error.message.replace(/^[A-Z_]+: /, "") });
    this.reasons.push(...error.reasons);
    this.domains.push(...error.domains);
    Object.assign(this.metadata, error.metadata);
    this.fieldViolations.push(...error.fieldViolations);
    this.moveNumber = Number(error.metadata.move_number);
    this.moveReason = error.metadata.move_reason ?? "";
    this.field = error.metadata.field ?? "";
  }
}

// --- the text (record-text.ts: the same code the web table bundles) --------------------------

/** The text form of one game (docs/RECORDS.md), exactly as the Python client writes it. */
export function formatRecord(record: GameRecord): string {
  return formatText(record);
}

/** The text of a match: its games' texts, a blank line between. */
export function formatMatch(match: MatchRecord): string {
  return formatMatchText(match);
}

/** One game's record from its text; RecordParseError (line, column) when it is not one. */
export function parseRecord(text: string): GameRecord {
  const games = parse(text);
  if (games.length !== 1) {
    throw new RecordParseError(games[1]?.line ?? 1, 1, `${games.length} games in the text: read a match with parseMatch`);
  }
  return games[0]!.record;
}

/** Every game of a match's text, in order; RecordParseError (line, column) if not records. */
export function parseMatch(text: string): MatchRecord {
  return create(MatchRecordSchema, { games: parse(text).map((g) => g.record) });
}

function parse(text: string): { record: GameRecord; line: number }[] {
  return located(() => parseRecords(text)).map(({ record, line }) => ({ record: create(GameRecordSchema, record as RecordInit), line }));
}

/** What `read` returns, its RecordSyntaxError as the client's RecordParseError. */
function located<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof RecordSyntaxError) throw new RecordParseError(error.line, error.column, error.detail);
    throw error;
  }
}

// --- the record of a followed game -------------------------------------------------------------

/** Keeps what a record needs while a host follows a game: the dealt Game (NewGame's or
 * NextGame's), the dealt hands (card text per seat: the explicit deal, or each seat's own view
 * at the deal; "" for an empty seat), then every Game a move returns (`follow`), whose played or
 * passed event is the move (after a timedOut event, the host's time-out: the record keeps the
 * report, not what it played), and a playerLeft event a leave. Nothing is added to the state
 * token. */
export class GameRecorder {
  private readonly moves: RecordedMove[] = [];
  private last: Game;
  private readonly hands: string[][];

  constructor(
    private readonly dealt: Game,
    hands: readonly CardsLike[],
  ) {
    this.last = dealt;
    this.hands = hands.map((hand) => {
      const text = typeof hand === "string" ? hand : hand.join(" ");
      return located(() => readCards(text.replaceAll(",", " "), 1, 1)).sort((a, b) => strength(a) - strength(b));
    });
  }

  /** Take the Game a move returned (a play or a pass, unary or streamed). */
  follow(game: Game): void {
    let timedOut = -1;
    for (const event of game.events) {
      if (event.kind === "timedOut") {
        timedOut = event.seat;
        this.moves.push(create(RecordedMoveSchema, { seat: event.seat, timeout: true }));
      } else if (event.kind === "playerLeft") {
        this.moves.push(create(RecordedMoveSchema, { seat: event.seat, leave: true }));
      } else if (event.kind === "played" && event.seat !== timedOut) {
        this.moves.push(create(RecordedMoveSchema, { seat: event.seat, cards: (event.combination?.cards ?? []).map((c) => card(c)) }));
      } else if (event.kind === "passed" && event.seat !== timedOut) {
        this.moves.push(create(RecordedMoveSchema, { seat: event.seat, passTurn: true }));
      }
    }
    this.last = game;
  }

  /** The record so far; with the result once the last Game followed is over. */
  record(names: readonly string[] = []): GameRecord {
    const view = this.dealt.view;
    const started = this.dealt.events.find((e) => e.kind === "gameStarted");
    const leader = started?.kind === "gameStarted" ? started.leader : (view.toAct ?? 0);
    const settlement = this.last.finished ? this.last.settlement : null;
    const seats = view.seats;
    return create(GameRecordSchema, {
      rules: { variant: view.rules?.variant || "southern", options: { ...(view.rules?.options ?? {}) } },
      players: view.players,
      playerNames: [...names],
      dealer: view.dealer,
      leader,
      firstGame: view.firstGame,
      gameNumber: view.gameNumber,
      matchTotals: view.seats.map((s) => BigInt(s.matchTotal)),
      replayed: view.replayed,
      hands: this.hands.map((hand) => ({ cards: hand.map((c) => card(c)) })),
      moves: [...this.moves],
      // the table's people at the deal (RULES §9), each only when it says something
      emptySeats: seats.filter((s) => s.empty).map((s) => s.seat),
      playerIds: seats.some((s) => s.playerId) ? seats.map((s) => s.playerId) : [],
      bankrolls: seats.some((s) => s.bankroll !== null) ? seats.map((s) => BigInt(s.bankroll ?? 0)) : [],
      timeouts: seats.some((s) => s.timeouts) ? seats.map((s) => s.timeouts) : [],
      autoSeats: seats.filter((s) => s.auto).map((s) => s.seat),
      result:
        settlement === null
          ? undefined
          : {
              places: settlement.places,
              transfers: settlement.transfers.map((t) =>
                create(TransferSchema, {
                  payer: t.payer,
                  payee: t.payee,
                  amount: BigInt(t.amount),
                  reason: TransferReason[t.reason as keyof typeof TransferReason],
                  cards: t.cards.map((c) => card(c)),
                  owed: BigInt(t.owed ?? 0),
                }),
              ),
              net: settlement.net.map((n) => BigInt(n)),
            },
    });
  }
}

// --- replaying -------------------------------------------------------------------------------

/** Have the service replay a record (the message or its text) from its deal, every move
 * checked as ApplyMove checks it: the Game after the last move (a new match, with its own seat
 * tokens), whose settlement is the record's. A refused move throws RecordMoveRejected (its
 * 1-based `moveNumber`); other refusals the client's typed errors (InvalidRequest naming the
 * field, ...); text that is not a record RecordParseError, before any call. */
export async function replayRecord(client: TienLenClient, record: GameRecord | string): Promise<Game> {
  const message = typeof record === "string" ? parseRecord(record) : record;
  try {
    const answer = await client.wire.call(TienLenEngine.method.replayGame, { record: message });
    return toGame(answer.game!, answer.seatTokens);
  } catch (error) {
    if (error instanceof TienLenError && error.reason === "RECORD_ILLEGAL_MOVE") throw new RecordMoveRejected(error);
    throw error;
  }
}
