// The text form of game records (docs/RECORDS.md), and nothing else: parse and format, with no
// gRPC, no generated code and no protobuf runtime, so that the web table's browser bundle
// uses the same code as the Node client (clients/node/src/record.ts wraps it into the
// contract's GameRecord / MatchRecord messages and RecordParseError).
//
// Records here are plain data shaped as the contract's GameRecord message (a GameRecord is
// one): enums as their numbers (Rank, Suit, TransferReason of protos/tienlen/v1), int64s as
// bigint. The text is the one the Python client writes and reads (tienlen_client.record). The
// tags of the table's people (RULES §9) are record-people.ts's; the host's reports are moves
// (`7. 2: timeout`, `9. 3: leave`), and a payment the loss cap cut says what was owed
// (`[Transfer "3 0 150 PLACE owed=200"]`). The syntax shared by the parts is record-syntax.ts's.

import { isPeopleTag, peopleTags, readPeople } from "./record-people.js";
import {
  cardOf,
  INT64_MAX,
  integer,
  integers,
  readCards,
  RecordSyntaxError,
  recordCardText,
  strength,
  tag,
  tokens,
  type Located,
  type RecordCard,
} from "./record-syntax.js";

export { cardOf, RANKS, readCards, RecordSyntaxError, recordCardText, strength, SUITS, type RecordCard } from "./record-syntax.js";

/** The longest record text the parser reads. */
export const MAX_RECORD_TEXT_BYTES = 256 * 1024;
/** The most moves a record may hold (the service's bound too). */
export const MAX_RECORD_MOVES = 1000;
const MAX_PLAYERS = 4;
const HEADER_TAGS = ["Variant", "Option", "Players", "Dealer", "Leader", "FirstGame", "Game", "Replayed"];
const RESULT_TAGS = ["Result", "Places", "Transfer", "Net"];
/** A record's own tags (not the game's), written first and in this order when present: the
 * event, where and when (PGN's `YYYY.MM.DD`, `??` for an unknown part), its round, who wrote
 * the record down. Any other tag a program adds is kept too, after these. */
export const STANDARD_TAGS = ["Event", "Site", "Date", "Round", "Annotator"];
const DATE = /^(\d{4}|\?{4})\.(\d{2}|\?{2})\.(\d{2}|\?{2})$/;
const TAG_LINE = /^\[\s*([A-Za-z][A-Za-z0-9]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$/;
const MOVE_LINE = /^(\d+)\.\s+(-?\d+)\s*:\s*(.*?)\s*$/;
const OWED = "owed=";
/** TransferReason names without their prefix: `TRANSFER_REASONS[i]` is the contract's
 * TransferReason i + 1 (TRANSFER_REASON_PLACE = 1). The Node client's tests check these three
 * tables against the generated enums. */
export const TRANSFER_REASONS = [
  "PLACE", "CHOP", "ROTTEN", "FROZEN", "INSTANT_WIN", "BLIND_THREE", "ROTTEN_THREE", "COMPENSATION", "CARD_COUNT",
];

/** A move: a seat's cards, or a pass; or the host's report that the seat's time ran out
 * (`timeout`: the replay plays what the rules give) or that its player left (`leave`). */
export interface RecordMove {
  readonly seat: number;
  readonly cards: readonly RecordCard[];
  readonly passTurn: boolean;
  readonly timeout?: boolean;
  readonly leave?: boolean;
}

/** A payment of the result (`reason`: the contract's TransferReason number; `owed`: what was
 * owed when the loss cap cut it, else 0). */
export interface RecordTransfer {
  readonly payer: number;
  readonly payee: number;
  readonly amount: bigint;
  readonly reason: number;
  readonly cards: readonly RecordCard[];
  readonly owed?: bigint;
}

/** The result a record states. */
export interface RecordResultData {
  readonly places: readonly number[];
  readonly transfers: readonly RecordTransfer[];
  readonly net: readonly bigint[];
}

/** One game's record, shaped as the contract's GameRecord (which is one). */
export interface RecordData {
  readonly rules?: { readonly variant: string; readonly options: { readonly [name: string]: string } } | undefined;
  readonly players: number;
  readonly playerNames: readonly string[];
  readonly dealer: number;
  readonly leader: number;
  readonly firstGame: boolean;
  readonly gameNumber: number;
  readonly matchTotals: readonly bigint[];
  readonly hands: readonly { readonly cards: readonly RecordCard[] }[];
  readonly moves: readonly RecordMove[];
  readonly result?: RecordResultData | undefined;
  /** The record's own tags (Event, Site, Date, ...), in their written order (`orderedTags`). */
  readonly tags?: readonly RecordTagData[] | undefined;
  /** The game belonged to a match replayed from a record (ReplayGame), not dealt by the service. */
  readonly replayed?: boolean | undefined;
  /** The table's people (RULES §9): the seats nobody sat in (their hands are empty), the host's
   * player ids (none, or one per seat), each seat's bankroll and time-outs in a row at the deal
   * (none, or one per seat), and the seats on auto. */
  readonly emptySeats?: readonly number[];
  readonly playerIds?: readonly string[];
  readonly bankrolls?: readonly bigint[];
  readonly timeouts?: readonly number[];
  readonly autoSeats?: readonly number[];
}

/** A tag of a record's own, as `[Event "Tết at home"]` writes it. */
export interface RecordTagData {
  readonly name: string;
  readonly value: string;
}

/** A record's own tags in their written order: the standard ones first (`STANDARD_TAGS`
 * order), then the others as given. */
export function orderedTags(tags: readonly RecordTagData[]): RecordTagData[] {
  const standard = STANDARD_TAGS.flatMap((name) => tags.filter((t) => t.name === name));
  return [...standard, ...tags.filter((t) => !STANDARD_TAGS.includes(t.name))];
}

// --- writing ---------------------------------------------------------------------------------

function cardsText(cards: readonly RecordCard[]): string {
  return cards.map(recordCardText).join(" ");
}

function reasonText(reason: number): string {
  return TRANSFER_REASONS[reason - 1] ?? "UNSPECIFIED";
}

/** The text form of one game (docs/RECORDS.md), exactly as the Python client writes it. */
export function formatRecord(record: RecordData): string {
  const lines = orderedTags(record.tags ?? []).map((t) => tag(t.name, t.value));
  lines.push(tag("Variant", record.rules?.variant || "southern"));
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
  if (record.replayed) lines.push(tag("Replayed", "true"));
  record.playerNames.forEach((name, seat) => lines.push(tag(`Name${seat}`, name)));
  lines.push(...peopleTags(record));
  const empty = record.emptySeats ?? [];
  record.hands.forEach((hand, seat) => {
    if (!empty.includes(seat)) lines.push(tag(`Hand${seat}`, cardsText(hand.cards)));
  });
  lines.push("");
  record.moves.forEach((m, i) => lines.push(`${i + 1}. ${m.seat}: ${moveText(m)}`));
  if (record.moves.length) lines.push("");
  const result = record.result;
  if (result === undefined) {
    lines.push(tag("Result", "unfinished"));
  } else {
    lines.push(tag("Result", "over"), tag("Places", result.places.join(" ")));
    for (const t of result.transfers) {
      const owed = t.owed ? [`${OWED}${t.owed}`] : [];
      lines.push(tag("Transfer", [t.payer, t.payee, t.amount, reasonText(t.reason), ...owed, ...t.cards.map(recordCardText)].join(" ")));
    }
    lines.push(tag("Net", result.net.join(" ")));
  }
  return lines.join("\n") + "\n";
}

function moveText(move: RecordMove): string {
  if (move.timeout) return "timeout";
  if (move.leave) return "leave";
  return move.passTurn ? "pass" : cardsText(move.cards);
}

/** The text of a match: its games' texts, a blank line between. */
export function formatMatch(match: { readonly games: readonly RecordData[] }): string {
  return match.games.map(formatRecord).join("\n");
}

// --- reading ---------------------------------------------------------------------------------

interface Draft {
  line: number;
  tags: Map<string, Located>;
  options: [string, string][];
  moves: { move: RecordMove; line: number; column: number }[];
  result: Map<string, Located>;
  transfers: Located[];
  own: RecordTagData[]; // the record's own tags (Event, Site, ...)
  phase: "tags" | "moves" | "result";
}

/** Every game of a record text, with the line each starts on; RecordSyntaxError (line,
 * column) at the first problem. The rules are not judged here: that is ReplayGame's work. */
export function parseRecords(text: string): { record: RecordData; line: number }[] {
  if (new TextEncoder().encode(text).length > MAX_RECORD_TEXT_BYTES) {
    throw new RecordSyntaxError(1, 1, `the text is longer than ${MAX_RECORD_TEXT_BYTES} bytes`);
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
      if (draft === undefined || draft.phase === "result") throw new RecordSyntaxError(number, column, "a move before the game's tags");
      readMove(draft, line, number, column);
    } else {
      throw new RecordSyntaxError(number, column, 'expected a tag [Name "value"] or a move "1. 0: 3S"');
    }
  });
  if (!drafts.length) throw new RecordSyntaxError(last, 1, "no game in the text");
  return drafts.map((draft) => ({ record: finish(draft, last), line: draft.line }));
}

function readTag(drafts: Draft[], line: string, number: number, column: number): void {
  const match = TAG_LINE.exec(line.trim());
  if (match === null) throw new RecordSyntaxError(number, column, 'a tag is [Name "value"] on one line (a closing quote or ] missing?)');
  const name = match[1]!;
  const value = match[2]!.replace(/\\(.)/g, "$1");
  const nameColumn = line.indexOf(name) + 1;
  const valueColumn = line.indexOf('"') + 2;
  const located = { value, line: number, column: valueColumn };
  if (RESULT_TAGS.includes(name)) {
    const draft = drafts.at(-1);
    if (draft === undefined) throw new RecordSyntaxError(number, nameColumn, `[${name}] before the game's tags`);
    if (name !== "Result" && draft.phase !== "result") throw new RecordSyntaxError(number, nameColumn, `[${name}] must follow [Result]`);
    draft.phase = "result";
    if (name === "Transfer") draft.transfers.push(located);
    else if (draft.result.has(name)) throw new RecordSyntaxError(number, nameColumn, `[${name}] given twice`);
    else draft.result.set(name, located);
    return;
  }
  if (!knownHeader(name) && /^(Name|Hand|PlayerId)\d+$/.test(name)) {
    const last = MAX_PLAYERS - 1;
    throw new RecordSyntaxError(number, nameColumn, `[${name}]: the seat tags are Name0..Name${last}, PlayerId0..PlayerId${last} and Hand0..Hand${last}`);
  }
  let draft = drafts.at(-1);
  if (draft === undefined || draft.phase !== "tags") {
    if (draft?.phase === "moves") throw new RecordSyntaxError(number, nameColumn, `[${name}] after the moves: the [Result] tag is missing`);
    draft = { line: number, tags: new Map(), options: [], moves: [], result: new Map(), transfers: [], own: [], phase: "tags" };
    drafts.push(draft);
  }
  if (name === "Option") {
    const at = value.indexOf("=");
    const option = at < 0 ? "" : value.slice(0, at).trim();
    if (!option) throw new RecordSyntaxError(number, valueColumn, 'an option is "name=value"');
    if (draft.options.some(([o]) => o === option)) throw new RecordSyntaxError(number, valueColumn, `option '${option}' given twice`);
    draft.options.push([option, value.slice(at + 1).trim()]);
    return;
  }
  if (draft.tags.has(name) || draft.own.some((t) => t.name === name)) throw new RecordSyntaxError(number, nameColumn, `[${name}] given twice`);
  if (knownHeader(name)) {
    draft.tags.set(name, located);
    return;
  }
  if (name === "Date" && !DATE.test(value.trim())) throw new RecordSyntaxError(number, valueColumn, 'a Date is "YYYY.MM.DD" ("??" for unknown)');
  draft.own.push({ name, value }); // a record's own tag (Event, Site, ...): kept as it is
}

function knownHeader(name: string): boolean {
  if (HEADER_TAGS.includes(name) || name === "Totals" || isPeopleTag(name)) return true;
  const m = /^(Name|Hand)(\d)$/.exec(name);
  return m !== null && Number(m[2]) < MAX_PLAYERS;
}

function readMove(draft: Draft, line: string, number: number, column: number): void {
  const trimmed = line.trim();
  const match = MOVE_LINE.exec(trimmed);
  if (match === null) throw new RecordSyntaxError(number, column, 'a move is "<number>. <seat>: <cards>" or "<number>. <seat>: pass"');
  draft.phase = "moves";
  const expected = draft.moves.length + 1;
  if (Number(match[1]) !== expected) throw new RecordSyntaxError(number, column, `move number ${expected} expected here`);
  if (expected > MAX_RECORD_MOVES) throw new RecordSyntaxError(number, column, `more than ${MAX_RECORD_MOVES} moves`);
  // Columns of the seat and the cards: where their groups start in the trimmed line.
  const seatColumn = column + match[0].indexOf(match[2]!, match[1]!.length + 1);
  const body = match[3]!;
  const cardsColumn = column + trimmed.length - body.length;
  const seat = Number(match[2]);
  const word = body.toLowerCase();
  if (word === "pass") {
    draft.moves.push({ move: { seat, cards: [], passTurn: true }, line: number, column: seatColumn });
    return;
  }
  if (word === "timeout" || word === "leave") {
    draft.moves.push({ move: { seat, cards: [], passTurn: false, [word]: true }, line: number, column: seatColumn });
    return;
  }
  if (!body) throw new RecordSyntaxError(number, cardsColumn, "a move plays cards or is 'pass', 'timeout' or 'leave'");
  const cards = readCards(body, number, cardsColumn).map(cardOf);
  draft.moves.push({ move: { seat, cards, passTurn: false }, line: number, column: seatColumn });
}

function finish(draft: Draft, lastLine: number): RecordData {
  const need = (name: string): Located => {
    const found = draft.tags.get(name);
    if (found === undefined) throw new RecordSyntaxError(draft.line, 1, `the game has no [${name}] tag`);
    return found;
  };
  const small = (l: Located, what: string, low: number, high: number) => Number(integer(l.value, l.line, l.column, what, BigInt(low), BigInt(high)));
  const players = small(need("Players"), "Players", 2, MAX_PLAYERS);
  const variantTag = need("Variant");
  const variant = variantTag.value.trim();
  if (!variant) throw new RecordSyntaxError(variantTag.line, variantTag.column, "the variant is empty");
  const leader = small(need("Leader"), "Leader", 0, players - 1);
  const dealerTag = draft.tags.get("Dealer");
  const dealer = dealerTag ? small(dealerTag, "Dealer", 0, players - 1) : 0;
  const firstGame = flag(draft, "FirstGame", true);
  const replayed = flag(draft, "Replayed", false);
  const gameTag = draft.tags.get("Game");
  const gameNumber = gameTag ? small(gameTag, "Game", 1, 2 ** 31 - 1) : 1;
  const totalsTag = draft.tags.get("Totals");
  const matchTotals = totalsTag ? integers(totalsTag, "Totals", players) : Array<bigint>(players).fill(0n);
  for (const [name, located] of draft.tags) {
    const m = /^(Name|Hand|PlayerId)(\d)$/.exec(name);
    if (m && Number(m[2]) >= players) throw new RecordSyntaxError(located.line, 2, `[${name}]: seat ${m[2]} is not at this table`);
  }
  const people = readPeople(draft.tags, players);
  const hands = readHands(draft, players, people.emptySeats);
  let playerNames: string[] = [];
  if ([...Array(players).keys()].some((seat) => draft.tags.has(`Name${seat}`))) {
    playerNames = [...Array(players).keys()].map((seat) => need(`Name${seat}`).value);
  }
  for (const { move, line, column } of draft.moves) {
    if (move.seat < 0 || move.seat >= players) throw new RecordSyntaxError(line, column, `seat ${move.seat} is not at this table of ${players}`);
  }
  if (!draft.result.has("Result")) {
    throw new RecordSyntaxError(lastLine, 1, 'the game ends without its [Result "over"] or [Result "unfinished"] tag: the record is cut short');
  }
  const options: Record<string, string> = {};
  for (const [name, value] of draft.options) options[name] = value;
  return {
    rules: { variant, options },
    players,
    playerNames,
    dealer,
    leader,
    firstGame,
    gameNumber,
    matchTotals,
    hands: hands.map((h) => ({ cards: h.map(cardOf) })),
    moves: draft.moves.map((m) => m.move),
    result: readResult(draft, players),
    tags: orderedTags(draft.own),
    replayed,
    ...people,
  };
}

/** A `true` / `false` tag's value (`fallback` when the tag is absent). */
function flag(draft: Draft, name: string, fallback: boolean): boolean {
  const located = draft.tags.get(name);
  if (located === undefined) return fallback;
  const v = located.value.trim().toLowerCase();
  if (v !== "true" && v !== "false") throw new RecordSyntaxError(located.line, located.column, `${name} is "true" or "false"`);
  return v === "true";
}

/** The dealt hands, index = seat: one Hand tag per occupied seat, none for an empty one. */
function readHands(draft: Draft, players: number, empty: readonly number[]): string[][] {
  const seen = new Map<string, number>();
  const hands: string[][] = [];
  for (let seat = 0; seat < players; seat++) {
    const located = draft.tags.get(`Hand${seat}`);
    if (empty.includes(seat)) {
      if (located !== undefined) throw new RecordSyntaxError(located.line, 2, `[Hand${seat}]: seat ${seat} is empty (the Empty tag)`);
      hands.push([]);
      continue;
    }
    if (located === undefined) throw new RecordSyntaxError(draft.line, 1, `the game has no [Hand${seat}] tag`);
    const hand = readCards(located.value, located.line, located.column);
    if (!hand.length) throw new RecordSyntaxError(located.line, located.column, `hand ${seat} is empty`);
    tokens(located.value).forEach(({ at }, i) => {
      const text = hand[i]!;
      if (seen.has(text)) throw new RecordSyntaxError(located.line, located.column + at, `${text} is dealt twice (also to seat ${seen.get(text)})`);
      seen.set(text, seat);
    });
    hands.push(hand.sort((a, b) => strength(a) - strength(b)));
  }
  return hands;
}

function readResult(draft: Draft, players: number): RecordResultData | undefined {
  const result = draft.result.get("Result")!;
  const state = result.value.trim().toLowerCase();
  if (state === "unfinished") {
    const extra = [...draft.result.keys()].find((n) => n !== "Result") ?? (draft.transfers.length ? "Transfer" : undefined);
    if (extra !== undefined) throw new RecordSyntaxError(result.line, result.column, `an "unfinished" game has no [${extra}]`);
    return undefined;
  }
  if (state !== "over") throw new RecordSyntaxError(result.line, result.column, 'Result is "over" or "unfinished"');
  for (const name of ["Places", "Net"]) {
    if (!draft.result.has(name)) throw new RecordSyntaxError(result.line, result.column, `the result has no [${name}] tag: the record is cut short`);
  }
  const places = integers(draft.result.get("Places")!, "Places", players).map(Number);
  const net = integers(draft.result.get("Net")!, "Net", players);
  const transfers = draft.transfers.map((t) => readTransfer(t, players));
  return { places, transfers, net };
}

function readTransfer(located: Located, players: number): RecordTransfer {
  const { line, column } = located;
  const parts = tokens(located.value);
  if (parts.length < 4) throw new RecordSyntaxError(line, column, 'a transfer is "payer payee amount REASON [owed=N] [cards]"');
  const at = (i: number) => column + parts[i]!.at;
  const payer = Number(integer(parts[0]!.token, line, at(0), "payer", -1n, BigInt(players - 1)));
  const payee = Number(integer(parts[1]!.token, line, at(1), "payee", 0n, BigInt(players - 1)));
  const reason = TRANSFER_REASONS.indexOf(parts[3]!.token.toUpperCase()) + 1;
  if (reason === 0) throw new RecordSyntaxError(line, at(3), `unknown reason; one of ${TRANSFER_REASONS.join(", ")}`);
  let next = 4;
  let owed = 0n;
  if (parts[next]?.token.toLowerCase().startsWith(OWED)) {
    owed = integer(parts[next]!.token.slice(OWED.length), line, at(next), "owed", 1n, INT64_MAX);
    next += 1;
  }
  // A payment the loss cap cut (owed=) may be cut to nothing; any other is at least a chip.
  const amount = integer(parts[2]!.token, line, at(2), "amount", owed ? 0n : 1n, owed ? owed - 1n : INT64_MAX);
  const rest = parts.length > next ? located.value.slice(parts[next]!.at) : "";
  const cards = rest ? readCards(rest, line, at(next)).map(cardOf) : [];
  return { payer, payee, amount, reason, cards, owed };
}

