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

import { create } from "@bufbuild/protobuf";
import type { Card } from "../gen/tienlen/v1/cards_pb.js";
import {
  GameRecordSchema,
  MatchRecordSchema,
  RecordedMoveSchema,
  RecordResultSchema,
  type GameRecord,
  type MatchRecord,
  type RecordedMove,
} from "../gen/tienlen/v1/record_pb.js";
import { TransferReason, TransferSchema, type Transfer } from "../gen/tienlen/v1/settlement_pb.js";
import { TienLenEngine } from "../gen/tienlen/v1/service_pb.js";
import * as grpc from "@grpc/grpc-js";
import type { TienLenClient } from "./client.js";
import { card, cardText, type CardsLike } from "./cards.js";
import { DOMAIN, InvalidRequest, MoveRejected, TienLenError } from "./errors.js";
import { toGame, type Game } from "./models.js";

/** The longest record text the parser reads. */
export const MAX_RECORD_TEXT_BYTES = 256 * 1024;
/** The most moves a record may hold (the service's bound too). */
export const MAX_RECORD_MOVES = 1000;
const MAX_PLAYERS = 4;
const HEADER_TAGS = ["Variant", "Option", "Players", "Dealer", "Leader", "FirstGame", "Game"];
const RESULT_TAGS = ["Result", "Places", "Transfer", "Net"];
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TAG_LINE = /^\[\s*([A-Za-z][A-Za-z0-9]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$/;
const MOVE_LINE = /^(\d+)\.\s+(-?\d+)\s*:\s*(.*?)\s*$/;
const SUIT_LETTERS: Record<string, string> = { "♠": "S", "♣": "C", "♦": "D", "♥": "H" };
const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"];
const SUITS = ["S", "C", "D", "H"];

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

// --- writing ---------------------------------------------------------------------------------

function tag(name: string, value: string): string {
  return `[${name} "${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"]`;
}

function cardsText(cards: readonly Card[]): string {
  return cards.map(cardText).join(" ");
}

function reasonText(reason: TransferReason): string {
  return TransferReason[reason] ?? "UNSPECIFIED";
}

/** The text form of one game (docs/RECORDS.md), exactly as the Python client writes it. */
export function formatRecord(record: GameRecord): string {
  const lines = [tag("Variant", record.rules?.variant || "southern")];
  for (const name of Object.keys(record.rules?.options ?? {}).sort()) {
    lines.push(tag("Option", `${name}=${record.rules!.options[name]}`));
  }
  const totals = record.matchTotals.length ? record.matchTotals : Array<bigint>(record.players).fill(0n);
  lines.push(
    tag("Players", String(record.players)),
    tag("Dealer", String(record.dealer)),
    tag("Leader", String(record.leader)),
    tag("FirstGame", record.firstGame ? "true" : "false"),
    tag("Game", String(record.gameNumber || 1)),
    tag("Totals", totals.join(" ")),
  );
  record.playerNames.forEach((name, seat) => lines.push(tag(`Name${seat}`, name)));
  record.hands.forEach((hand, seat) => lines.push(tag(`Hand${seat}`, cardsText(hand.cards))));
  lines.push("");
  record.moves.forEach((m, i) => lines.push(`${i + 1}. ${m.seat}: ${m.passTurn ? "pass" : cardsText(m.cards)}`));
  if (record.moves.length) lines.push("");
  const result = record.result;
  if (result === undefined) {
    lines.push(tag("Result", "unfinished"));
  } else {
    lines.push(tag("Result", "over"), tag("Places", result.places.join(" ")));
    for (const t of result.transfers) {
      lines.push(tag("Transfer", [t.payer, t.payee, t.amount, reasonText(t.reason), ...t.cards.map(cardText)].join(" ")));
    }
    lines.push(tag("Net", result.net.join(" ")));
  }
  return lines.join("\n") + "\n";
}

/** The text of a match: its games' texts, a blank line between. */
export function formatMatch(match: MatchRecord): string {
  return match.games.map(formatRecord).join("\n");
}

// --- reading ---------------------------------------------------------------------------------

interface Located {
  value: string;
  line: number;
  column: number;
}

interface Draft {
  line: number;
  tags: Map<string, Located>;
  options: [string, string][];
  moves: { move: RecordedMove; line: number; column: number }[];
  result: Map<string, Located>;
  transfers: Located[];
  phase: "tags" | "moves" | "result";
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
  if (Buffer.byteLength(text, "utf8") > MAX_RECORD_TEXT_BYTES) {
    throw new RecordParseError(1, 1, `the text is longer than ${MAX_RECORD_TEXT_BYTES} bytes`);
  }
  const drafts: Draft[] = [];
  let last = 1;
  text.split("\n").forEach((raw, index) => {
    const number = index + 1;
    const line = raw.replace(/\r$/, "");
    const stripped = line.trim();
    if (!stripped || stripped.startsWith(";")) return; // blank lines and ; comments
    last = number;
    const column = line.length - line.trimStart().length + 1;
    if (stripped.startsWith("[")) {
      readTag(drafts, line, number, column);
    } else if (/^\d/.test(stripped)) {
      const draft = drafts.at(-1);
      if (draft === undefined || draft.phase === "result") throw new RecordParseError(number, column, "a move before the game's tags");
      readMove(draft, line, number, column);
    } else {
      throw new RecordParseError(number, column, 'expected a tag [Name "value"] or a move "1. 0: 3S"');
    }
  });
  if (!drafts.length) throw new RecordParseError(last, 1, "no game in the text");
  return drafts.map((draft) => ({ record: finish(draft, last), line: draft.line }));
}

function readTag(drafts: Draft[], line: string, number: number, column: number): void {
  const match = TAG_LINE.exec(line.trim());
  if (match === null) throw new RecordParseError(number, column, 'a tag is [Name "value"] on one line (a closing quote or ] missing?)');
  const name = match[1]!;
  const value = match[2]!.replace(/\\(.)/g, "$1");
  const nameColumn = line.indexOf(name) + 1;
  const valueColumn = line.indexOf('"') + 2;
  const located = { value, line: number, column: valueColumn };
  if (RESULT_TAGS.includes(name)) {
    const draft = drafts.at(-1);
    if (draft === undefined) throw new RecordParseError(number, nameColumn, `[${name}] before the game's tags`);
    if (name !== "Result" && draft.phase !== "result") throw new RecordParseError(number, nameColumn, `[${name}] must follow [Result]`);
    draft.phase = "result";
    if (name === "Transfer") draft.transfers.push(located);
    else if (draft.result.has(name)) throw new RecordParseError(number, nameColumn, `[${name}] given twice`);
    else draft.result.set(name, located);
    return;
  }
  if (!knownHeader(name)) {
    throw new RecordParseError(
      number,
      nameColumn,
      `unknown tag [${name}]; the tags are ${HEADER_TAGS.join(", ")}, Totals, Name<seat>, Hand<seat> and, after the moves, ${RESULT_TAGS.join(", ")}`,
    );
  }
  let draft = drafts.at(-1);
  if (draft === undefined || draft.phase !== "tags") {
    if (draft?.phase === "moves") throw new RecordParseError(number, nameColumn, `[${name}] after the moves: the [Result] tag is missing`);
    draft = { line: number, tags: new Map(), options: [], moves: [], result: new Map(), transfers: [], phase: "tags" };
    drafts.push(draft);
  }
  if (name === "Option") {
    const at = value.indexOf("=");
    const option = at < 0 ? "" : value.slice(0, at).trim();
    if (!option) throw new RecordParseError(number, valueColumn, 'an option is "name=value"');
    if (draft.options.some(([o]) => o === option)) throw new RecordParseError(number, valueColumn, `option '${option}' given twice`);
    draft.options.push([option, value.slice(at + 1).trim()]);
    return;
  }
  if (draft.tags.has(name)) throw new RecordParseError(number, nameColumn, `[${name}] given twice`);
  draft.tags.set(name, located);
}

function knownHeader(name: string): boolean {
  if (HEADER_TAGS.includes(name) || name === "Totals") return true;
  const m = /^(Name|Hand)(\d)$/.exec(name);
  return m !== null && Number(m[2]) < MAX_PLAYERS;
}

function readMove(draft: Draft, line: string, number: number, column: number): void {
  const trimmed = line.trim();
  const match = MOVE_LINE.exec(trimmed);
  if (match === null) throw new RecordParseError(number, column, 'a move is "<number>. <seat>: <cards>" or "<number>. <seat>: pass"');
  draft.phase = "moves";
  const expected = draft.moves.length + 1;
  if (Number(match[1]) !== expected) throw new RecordParseError(number, column, `move number ${expected} expected here`);
  if (expected > MAX_RECORD_MOVES) throw new RecordParseError(number, column, `more than ${MAX_RECORD_MOVES} moves`);
  // Columns of the seat and the cards: where their groups start in the trimmed line.
  const seatColumn = column + match[0].indexOf(match[2]!, match[1]!.length + 1);
  const body = match[3]!;
  const cardsColumn = column + trimmed.length - body.length;
  const seat = Number(match[2]);
  if (body.toLowerCase() === "pass") {
    draft.moves.push({ move: create(RecordedMoveSchema, { seat, passTurn: true }), line: number, column: seatColumn });
    return;
  }
  if (!body) throw new RecordParseError(number, cardsColumn, "a move plays cards or is 'pass'");
  const cards = readCards(body, number, cardsColumn).map((c) => card(c));
  draft.moves.push({ move: create(RecordedMoveSchema, { seat, cards }), line: number, column: seatColumn });
}

function tokens(text: string): { token: string; at: number }[] {
  return [...text.matchAll(/\S+/g)].map((m) => ({ token: m[0], at: m.index }));
}

/** Canonical card texts of `text`, each checked; RecordParseError at the bad card. */
function readCards(text: string, line: number, column: number): string[] {
  return tokens(text).map(({ token, at }) => {
    const upper = token.toUpperCase();
    const suit = SUIT_LETTERS[upper.slice(-1)] ?? upper.slice(-1);
    const rank = upper.slice(0, -1) === "T" ? "10" : upper.slice(0, -1);
    if (upper.length < 2) throw new RecordParseError(line, column + at, `bad card '${token}': a card is a rank (3-10, T, J, Q, K, A, 2) then a suit (S, C, D, H)`);
    if (!RANKS.includes(rank)) throw new RecordParseError(line, column + at, `bad card '${token}': unknown rank '${upper.slice(0, -1)}'`);
    if (!SUITS.includes(suit)) throw new RecordParseError(line, column + at, `bad card '${token}': unknown suit '${upper.slice(-1)}'`);
    return rank + suit;
  });
}

function strength(text: string): number {
  return RANKS.indexOf(text.slice(0, -1)) * 4 + SUITS.indexOf(text.slice(-1));
}

function integer(value: string, line: number, column: number, what: string, low: bigint, high: bigint): bigint {
  const text = value.trim();
  if (!/^[+-]?\d+$/.test(text)) throw new RecordParseError(line, column, `${what} must be a whole number`);
  const n = BigInt(text);
  if (n < low || n > high) throw new RecordParseError(line, column, `${what} must be ${low} to ${high}, not ${n}`);
  return n;
}

function integers(located: Located, what: string, count: number): bigint[] {
  const numbers = tokens(located.value).map(({ token, at }) => integer(token, located.line, located.column + at, what, INT64_MIN, INT64_MAX));
  if (numbers.length !== count) throw new RecordParseError(located.line, located.column, `${what}: ${count} numbers, one per seat`);
  return numbers;
}

function finish(draft: Draft, lastLine: number): GameRecord {
  const need = (name: string): Located => {
    const found = draft.tags.get(name);
    if (found === undefined) throw new RecordParseError(draft.line, 1, `the game has no [${name}] tag`);
    return found;
  };
  const small = (l: Located, what: string, low: number, high: number) => Number(integer(l.value, l.line, l.column, what, BigInt(low), BigInt(high)));
  const players = small(need("Players"), "Players", 2, MAX_PLAYERS);
  const variantTag = need("Variant");
  const variant = variantTag.value.trim();
  if (!variant) throw new RecordParseError(variantTag.line, variantTag.column, "the variant is empty");
  const leader = small(need("Leader"), "Leader", 0, players - 1);
  const dealerTag = draft.tags.get("Dealer");
  const dealer = dealerTag ? small(dealerTag, "Dealer", 0, players - 1) : 0;
  let firstGame = true;
  const first = draft.tags.get("FirstGame");
  if (first !== undefined) {
    const v = first.value.trim().toLowerCase();
    if (v !== "true" && v !== "false") throw new RecordParseError(first.line, first.column, 'FirstGame is "true" or "false"');
    firstGame = v === "true";
  }
  const gameTag = draft.tags.get("Game");
  const gameNumber = gameTag ? small(gameTag, "Game", 1, 2 ** 31 - 1) : 1;
  const totalsTag = draft.tags.get("Totals");
  const matchTotals = totalsTag ? integers(totalsTag, "Totals", players) : Array<bigint>(players).fill(0n);
  for (const [name, located] of draft.tags) {
    const m = /^(Name|Hand)(\d)$/.exec(name);
    if (m && Number(m[2]) >= players) throw new RecordParseError(located.line, 2, `[${name}]: seat ${m[2]} is not at this table`);
  }
  const hands = readHands(draft, players);
  let playerNames: string[] = [];
  if ([...Array(players).keys()].some((seat) => draft.tags.has(`Name${seat}`))) {
    playerNames = [...Array(players).keys()].map((seat) => need(`Name${seat}`).value);
  }
  for (const { move, line, column } of draft.moves) {
    if (move.seat < 0 || move.seat >= players) throw new RecordParseError(line, column, `seat ${move.seat} is not at this table of ${players}`);
  }
  if (!draft.result.has("Result")) {
    throw new RecordParseError(lastLine, 1, 'the game ends without its [Result "over"] or [Result "unfinished"] tag: the record is cut short');
  }
  const options: Record<string, string> = {};
  for (const [name, value] of draft.options) options[name] = value;
  return create(GameRecordSchema, {
    rules: { variant, options },
    players,
    playerNames,
    dealer,
    leader,
    firstGame,
    gameNumber,
    matchTotals,
    hands: hands.map((h) => ({ cards: h.map((c) => card(c)) })),
    moves: draft.moves.map((m) => m.move),
    result: readResult(draft, players),
  });
}

function readHands(draft: Draft, players: number): string[][] {
  const seen = new Map<string, number>();
  const hands: string[][] = [];
  for (let seat = 0; seat < players; seat++) {
    const located = draft.tags.get(`Hand${seat}`);
    if (located === undefined) throw new RecordParseError(draft.line, 1, `the game has no [Hand${seat}] tag`);
    const hand = readCards(located.value, located.line, located.column);
    if (!hand.length) throw new RecordParseError(located.line, located.column, `hand ${seat} is empty`);
    tokens(located.value).forEach(({ at }, i) => {
      const text = hand[i]!;
      if (seen.has(text)) throw new RecordParseError(located.line, located.column + at, `${text} is dealt twice (also to seat ${seen.get(text)})`);
      seen.set(text, seat);
    });
    hands.push(hand.sort((a, b) => strength(a) - strength(b)));
  }
  return hands;
}

function readResult(draft: Draft, players: number) {
  const result = draft.result.get("Result")!;
  const state = result.value.trim().toLowerCase();
  if (state === "unfinished") {
    const extra = [...draft.result.keys()].find((n) => n !== "Result") ?? (draft.transfers.length ? "Transfer" : undefined);
    if (extra !== undefined) throw new RecordParseError(result.line, result.column, `an "unfinished" game has no [${extra}]`);
    return undefined;
  }
  if (state !== "over") throw new RecordParseError(result.line, result.column, 'Result is "over" or "unfinished"');
  for (const name of ["Places", "Net"]) {
    if (!draft.result.has(name)) throw new RecordParseError(result.line, result.column, `the result has no [${name}] tag: the record is cut short`);
  }
  const places = integers(draft.result.get("Places")!, "Places", players).map(Number);
  const net = integers(draft.result.get("Net")!, "Net", players);
  const transfers = draft.transfers.map((t) => readTransfer(t, players));
  return create(RecordResultSchema, { places, transfers, net });
}

function readTransfer(located: Located, players: number): Transfer {
  const { line, column } = located;
  const parts = tokens(located.value);
  if (parts.length < 4) throw new RecordParseError(line, column, 'a transfer is "payer payee amount REASON [cards]"');
  const at = (i: number) => column + parts[i]!.at;
  const payer = Number(integer(parts[0]!.token, line, at(0), "payer", -1n, BigInt(players - 1)));
  const payee = Number(integer(parts[1]!.token, line, at(1), "payee", 0n, BigInt(players - 1)));
  const amount = integer(parts[2]!.token, line, at(2), "amount", 1n, INT64_MAX);
  const name = parts[3]!.token.toUpperCase();
  const reason = TransferReason[name as keyof typeof TransferReason];
  if (typeof reason !== "number" || reason === TransferReason.UNSPECIFIED) {
    const known = Object.keys(TransferReason).filter((k) => Number.isNaN(Number(k)) && k !== "UNSPECIFIED");
    throw new RecordParseError(line, at(3), `unknown reason; one of ${known.join(", ")}`);
  }
  const rest = parts.length > 4 ? located.value.slice(parts[4]!.at) : "";
  const cards = rest ? readCards(rest, line, at(4)).map((c) => card(c)) : [];
  return create(TransferSchema, { payer, payee, amount, reason, cards });
}

// --- the record of a followed game -------------------------------------------------------------

/** Keeps what a record needs while a host follows a game: the dealt Game (NewGame's or
 * NextGame's), the dealt hands (card text per seat: the explicit deal, or each seat's own view
 * at the deal), then every Game a move returns (`follow`), whose played or passed event is the
 * move. Nothing is added to the state token. */
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
      return readCards(text.replaceAll(",", " "), 1, 1).sort((a, b) => strength(a) - strength(b));
    });
  }

  /** Take the Game a move returned (a play or a pass, unary or streamed). */
  follow(game: Game): void {
    for (const event of game.events) {
      if (event.kind === "played") {
        this.moves.push(create(RecordedMoveSchema, { seat: event.seat, cards: (event.combination?.cards ?? []).map((c) => card(c)) }));
      } else if (event.kind === "passed") {
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
    return create(GameRecordSchema, {
      rules: { variant: view.rules?.variant || "southern", options: { ...(view.rules?.options ?? {}) } },
      players: view.players,
      playerNames: [...names],
      dealer: view.dealer,
      leader,
      firstGame: view.firstGame,
      gameNumber: view.gameNumber,
      matchTotals: view.seats.map((s) => BigInt(s.matchTotal)),
      hands: this.hands.map((hand) => ({ cards: hand.map((c) => card(c)) })),
      moves: [...this.moves],
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
