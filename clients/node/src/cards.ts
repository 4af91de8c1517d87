// Card text ("3S", "10D", "QH", "2H") to and from the wire's Card, and a move from card text.

import type { MessageInitShape } from "@bufbuild/protobuf";
import { Rank, Suit, type Card, type CardSchema } from "../gen/tienlen/v1/cards_pb.js";
import type { MoveSchema } from "../gen/tienlen/v1/moves_pb.js";

const CARD_RANKS: Record<string, Rank> = {
  "3": Rank.THREE, "4": Rank.FOUR, "5": Rank.FIVE, "6": Rank.SIX, "7": Rank.SEVEN, "8": Rank.EIGHT,
  "9": Rank.NINE, "10": Rank.TEN, T: Rank.TEN, J: Rank.JACK, Q: Rank.QUEEN, K: Rank.KING, A: Rank.ACE, "2": Rank.TWO,
};
const CARD_SUITS: Record<string, Suit> = { S: Suit.SPADES, C: Suit.CLUBS, D: Suit.DIAMONDS, H: Suit.HEARTS };

/** A card from card text ("3S", "10D", "QH", "2H"). */
export function card(text: string): MessageInitShape<typeof CardSchema> {
  const m = /^(10|[2-9TJQKA])([SCDH])$/i.exec(text.trim());
  const rank = m ? CARD_RANKS[m[1]!.toUpperCase()] : undefined;
  const suit = m ? CARD_SUITS[m[2]!.toUpperCase()] : undefined;
  if (rank === undefined || suit === undefined) throw new Error(`${JSON.stringify(text)} is not card text (3S, 10D, QH, 2H ...)`);
  return { rank, suit };
}

/** Card text of a card ("3S"). */
export function cardText(c: Card): string {
  const rank = Object.entries(CARD_RANKS).find(([k, v]) => v === c.rank && k !== "T")?.[0];
  const suit = Object.entries(CARD_SUITS).find(([, v]) => v === c.suit)?.[0];
  return `${rank ?? "?"}${suit ?? "?"}`;
}

/** The move of playing `cards` (card text), or of passing when `cards` is null. */
export function move(cards: readonly string[] | null): MessageInitShape<typeof MoveSchema> {
  return cards === null ? { action: { case: "passTurn", value: {} } } : { action: { case: "play", value: { cards: cards.map(card) } } };
}
