// Card text to and from the wire's Card, and a move from card text: "3S", "10D" (also "TD"),
// "QH", "2H", "3♠". The notation of the rule book: a rank 3-10 T J Q K A 2 then a suit S C D H
// (or ♠ ♣ ♦ ♥), case-insensitive on input; the canonical output form is "3S", "10D". The same
// notation as the Python client's (tienlen_client/cards.py). Text that is not a card is a
// CardTextError (a TienLenError), thrown before any call is made.

import type { MessageInitShape } from "@bufbuild/protobuf";
import { Rank, Suit, type Card, type CardSchema } from "../gen/tienlen/v1/cards_pb.js";
import type { MoveSchema } from "../gen/tienlen/v1/moves_pb.js";
import { CardTextError } from "./errors.js";

/** The ranks, weakest first, in canonical text. */
export const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"] as const;
/** The suits, weakest first, in canonical text. */
export const SUITS = ["S", "C", "D", "H"] as const;

const RANK_OF: ReadonlyMap<string, Rank> = new Map([...RANKS.map((r, i): [string, Rank] => [r, (i + 1) as Rank]), ["T", Rank.TEN]]);
const SUIT_OF: ReadonlyMap<string, Suit> = new Map([
  ...SUITS.map((s, i): [string, Suit] => [s, (i + 1) as Suit]),
  ["♠", Suit.SPADES], ["♣", Suit.CLUBS], ["♦", Suit.DIAMONDS], ["♥", Suit.HEARTS],
]);

/** Cards as text: "3S 4S 5S" (spaces or commas between them) or a list ["3S", "4S", "5S"]. */
export type CardsLike = string | readonly string[];

/** The wire card of one card token ("3S", "10D", "th", "2♥"); throws CardTextError. */
export function card(text: string): MessageInitShape<typeof CardSchema> {
  if (typeof text !== "string") throw new CardTextError(String(text), "card text is a string such as \"3S\"");
  const token = text.trim().toUpperCase();
  if (token.length < 2) throw new CardTextError(text, "a card is a rank (3-10, T, J, Q, K, A, 2) then a suit (S, C, D, H)");
  const rank = RANK_OF.get(token.slice(0, -1));
  const suit = SUIT_OF.get(token.slice(-1));
  if (rank === undefined) throw new CardTextError(text, `unknown rank ${JSON.stringify(token.slice(0, -1))}`);
  if (suit === undefined) throw new CardTextError(text, `unknown suit ${JSON.stringify(token.slice(-1))}`);
  return { rank, suit };
}

/** The wire cards of card text, in order; throws CardTextError. */
export function cards(text: CardsLike): MessageInitShape<typeof CardSchema>[] {
  const tokens = typeof text === "string" ? text.replaceAll(",", " ").split(/\s+/).filter(Boolean) : [...text];
  return tokens.map(card);
}

/** Canonical text of a wire card ("3S", "10D"; "?" for an unspecified rank or suit). */
export function cardText(c: Pick<Card, "rank" | "suit">): string {
  return `${RANKS[c.rank - 1] ?? "?"}${SUITS[c.suit - 1] ?? "?"}`;
}

/** Canonical texts of wire cards, in order. */
export function cardTexts(values: readonly Pick<Card, "rank" | "suit">[]): string[] {
  return values.map(cardText);
}

/** The move of playing `played` (card text), or of passing when it is null. */
export function move(played: CardsLike | null): MessageInitShape<typeof MoveSchema> {
  return played === null ? { action: { case: "passTurn", value: {} } } : { action: { case: "play", value: { cards: cards(played) } } };
}
