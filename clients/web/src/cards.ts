// Cards as the table draws them: rank label, suit symbol, colour, and the card text ("3S",
// "10D") the tests and the data attributes use. Order is the game's: rank first, then suit.

import { Rank, Suit, type Card } from "../gen/tienlen/v1/cards_pb.js";
import type { Combination } from "../gen/tienlen/v1/moves_pb.js";
import { combinationName as labelCombination } from "./labels.js";

const RANK_LABELS: Readonly<Record<number, string>> = {
  [Rank.THREE]: "3", [Rank.FOUR]: "4", [Rank.FIVE]: "5", [Rank.SIX]: "6", [Rank.SEVEN]: "7",
  [Rank.EIGHT]: "8", [Rank.NINE]: "9", [Rank.TEN]: "10", [Rank.JACK]: "J", [Rank.QUEEN]: "Q",
  [Rank.KING]: "K", [Rank.ACE]: "A", [Rank.TWO]: "2",
};

const SUIT_LETTERS: Readonly<Record<number, string>> = {
  [Suit.SPADES]: "S", [Suit.CLUBS]: "C", [Suit.DIAMONDS]: "D", [Suit.HEARTS]: "H",
};

const SUIT_SYMBOLS: Readonly<Record<number, string>> = {
  [Suit.SPADES]: "♠", [Suit.CLUBS]: "♣", [Suit.DIAMONDS]: "♦", [Suit.HEARTS]: "♥",
};

/** The rank as printed on the card ("10", "J", "2"). */
export function rankLabel(card: Card): string {
  return RANK_LABELS[card.rank] ?? "?";
}

/** The suit's symbol (♠ ♣ ♦ ♥). */
export function suitSymbol(card: Card): string {
  return SUIT_SYMBOLS[card.suit] ?? "?";
}

/** Diamonds and hearts are red; spades and clubs black. */
export function isRed(card: Card): boolean {
  return card.suit === Suit.DIAMONDS || card.suit === Suit.HEARTS;
}

/** Card text: rank then suit letter ("3S", "10D", "QH"), the repository's card notation. */
export function cardText(card: Card): string {
  return `${rankLabel(card)}${SUIT_LETTERS[card.suit] ?? "?"}`;
}

/** The card as a person reads it: "10♦". */
export function cardLabel(card: Card): string {
  return `${rankLabel(card)}${suitSymbol(card)}`;
}

/** A set of cards as a person reads it: "7♠ 7♥". */
export function cardsLabel(cards: readonly Card[]): string {
  return cards.map(cardLabel).join(" ");
}

/** A number that orders cards by strength, 0 = 3♠ .. 51 = 2♥ (rank first, then suit). */
export function strength(card: Card): number {
  return (card.rank - 1) * 4 + (card.suit - 1);
}

/** The cards weakest first (a copy). */
export function sortCards<T extends Card>(cards: readonly T[]): T[] {
  return [...cards].sort((a, b) => strength(a) - strength(b));
}

/** A key that names a set of cards whatever their order ("3S 3C" and "3C 3S" are one key). */
export function cardsKey(cards: readonly Card[]): string {
  return sortCards(cards).map(cardText).join(" ");
}

/** A combination's name in English: "pair", "straight of 5", "3 consecutive pairs" (labels.ts
 * has it in Vietnamese too). */
export function combinationName(combination: Pick<Combination, "type" | "length">): string {
  return labelCombination(combination, "en");
}
