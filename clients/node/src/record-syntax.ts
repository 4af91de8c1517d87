// The syntax of record text (docs/RECORDS.md) shared by its parts: a tag line, whole numbers and
// cards, each read with the line and column of what is wrong (RecordSyntaxError). No gRPC, no
// generated code: the web table's browser bundle takes it as it is. record-text.ts reads and
// writes whole games with these; record-people.ts the tags of the table's people (RULES §9).

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const SUIT_LETTERS: Record<string, string> = { "♠": "S", "♣": "C", "♦": "D", "♥": "H" };
/** Rank texts, weakest first: `RANKS[i]` is the contract's Rank i + 1 (RANK_THREE = 1). */
export const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"];
/** Suit letters, weakest first: `SUITS[i]` is the contract's Suit i + 1 (SUIT_SPADES = 1). */
export const SUITS = ["S", "C", "D", "H"];

/** A card: the contract's Rank and Suit numbers. */
export interface RecordCard {
  readonly rank: number;
  readonly suit: number;
}

/** Text that is not a game record: `line` and `column` (1-based) say where, `detail` what. */
export class RecordSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super(`line ${line}, column ${column}: ${detail}`);
    this.name = "RecordSyntaxError";
  }
}

/** `10D` for the 10 of diamonds. */
export function recordCardText(card: RecordCard): string {
  return `${RANKS[card.rank - 1] ?? "?"}${SUITS[card.suit - 1] ?? "?"}`;
}

/** The card of a canonical card text (`10D`, as readCards gives). */
export function cardOf(text: string): RecordCard {
  return { rank: RANKS.indexOf(text.slice(0, -1)) + 1, suit: SUITS.indexOf(text.slice(-1)) + 1 };
}

/** A tag line; a backslash or a double quote in the value is escaped with a backslash. */
export function tag(name: string, value: string): string {
  return `[${name} "${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"]`;
}

/** A tag's value with the line and column it was read at. */
export interface Located {
  value: string;
  line: number;
  column: number;
}

/** The whitespace-separated tokens of `text`, each with its offset. */
export function tokens(text: string): { token: string; at: number }[] {
  return [...text.matchAll(/\S+/g)].map((m) => ({ token: m[0], at: m.index }));
}

/** Canonical card texts of `text`, each checked; RecordSyntaxError at the bad card. */
export function readCards(text: string, line: number, column: number): string[] {
  return tokens(text).map(({ token, at }) => {
    const upper = token.toUpperCase();
    const suit = SUIT_LETTERS[upper.slice(-1)] ?? upper.slice(-1);
    const rank = upper.slice(0, -1) === "T" ? "10" : upper.slice(0, -1);
    if (upper.length < 2) throw new RecordSyntaxError(line, column + at, `bad card '${token}': a card is a rank (3-10, T, J, Q, K, A, 2) then a suit (S, C, D, H)`);
    if (!RANKS.includes(rank)) throw new RecordSyntaxError(line, column + at, `bad card '${token}': unknown rank '${upper.slice(0, -1)}'`);
    if (!SUITS.includes(suit)) throw new RecordSyntaxError(line, column + at, `bad card '${token}': unknown suit '${upper.slice(-1)}'`);
    return rank + suit;
  });
}

/** A card text's place in the deck, weakest first (3S = 0 ... 2H = 51). */
export function strength(text: string): number {
  return RANKS.indexOf(text.slice(0, -1)) * 4 + SUITS.indexOf(text.slice(-1));
}

/** `value` as a whole number from `low` to `high`. */
export function integer(value: string, line: number, column: number, what: string, low: bigint, high: bigint): bigint {
  const text = value.trim();
  if (!/^[+-]?\d+$/.test(text)) throw new RecordSyntaxError(line, column, `${what} must be a whole number`);
  const n = BigInt(text);
  if (n < low || n > high) throw new RecordSyntaxError(line, column, `${what} must be ${low} to ${high}, not ${n}`);
  return n;
}

/** `count` whole numbers (64-bit), one per seat. */
export function integers(located: Located, what: string, count: number): bigint[] {
  const numbers = tokens(located.value).map(({ token, at }) => integer(token, located.line, located.column + at, what, INT64_MIN, INT64_MAX));
  if (numbers.length !== count) throw new RecordSyntaxError(located.line, located.column, `${what}: ${count} numbers, one per seat`);
  return numbers;
}
