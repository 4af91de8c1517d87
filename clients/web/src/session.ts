// The match kept across a reload: the page's whole picture of it, in the tab's sessionStorage.
//
// The service keeps nothing between calls, so a reload would lose the match with the page's
// memory: the state token, every seat's token, the hand and the table talk. The host writes
// them here after every answer it takes and reads them back when the page loads; "New match"
// forgets them. sessionStorage is the tab's own (another tab, or the same page tomorrow,
// starts afresh) and is never sent anywhere, but it is readable by any script of the page's
// origin: a page that holds other players' seat tokens must not keep them there (a single-player
// host holds only its own table's).
//
// Messages are kept as their protobuf bytes (base64), the very bytes the service sent: no JSON
// mapping to agree on, and a newer page reads an older snapshot field for field.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { CardSchema, type Card } from "../gen/tienlen/v1/cards_pb.js";
import { GameUpdateSchema, type GameUpdate } from "../gen/tienlen/v1/game_pb.js";
import type { Line } from "./narrate.js";
import type { RecordMove } from "../../node/src/record-text.js";

/** What a snapshot is kept in: the browser's sessionStorage, or a Map in the tests. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The key of the snapshot; its `v` is the format's version (another version is not read). */
export const SESSION_KEY = "tienlen.web-table.match";
const VERSION = 1;

/** One game's record as followed (record.ts GameLog), as kept. */
export interface KeptGame {
  readonly dealt: GameUpdate;
  readonly hands: readonly (readonly Card[])[];
  readonly moves: readonly RecordMove[];
  readonly last: GameUpdate;
}

/** Everything the host needs to take the match up again. */
export interface MatchSnapshot {
  readonly options: {
    readonly variant: string;
    readonly players: number;
    readonly bot: string;
    readonly humanSeat: number;
    readonly seed?: bigint | undefined;
  };
  readonly seatTokens: readonly string[];
  /** The last answer taken: its state token, events, view and settlement. */
  readonly update: GameUpdate;
  readonly hand: readonly Card[];
  readonly lines: readonly Line[];
  readonly totalsBefore: readonly bigint[];
  readonly games: readonly KeptGame[];
}

const message = (update: GameUpdate): string => base64Encode(toBinary(GameUpdateSchema, update));
const unmessage = (text: string): GameUpdate => fromBinary(GameUpdateSchema, base64Decode(text));
const cardPair = (card: Card): [number, number] => [card.rank, card.suit];
const unpair = ([rank, suit]: [number, number]): Card => create(CardSchema, { rank, suit });

/** Keep the snapshot (a full store is not an error: the match goes on, unkept). */
export function saveMatch(store: KeyValueStore | undefined, snapshot: MatchSnapshot): void {
  if (!store) return;
  const kept = {
    v: VERSION,
    options: { ...snapshot.options, seed: snapshot.options.seed?.toString() },
    seatTokens: snapshot.seatTokens,
    update: message(snapshot.update),
    hand: snapshot.hand.map(cardPair),
    lines: snapshot.lines,
    totalsBefore: snapshot.totalsBefore.map(String),
    games: snapshot.games.map((game) => ({
      dealt: message(game.dealt),
      hands: game.hands.map((hand) => hand.map(cardPair)),
      moves: game.moves,
      last: message(game.last),
    })),
  };
  try {
    store.setItem(SESSION_KEY, JSON.stringify(kept));
  } catch {
    // Quota exceeded or storage disabled: a reload will start afresh, nothing else changes.
  }
}

/** The kept snapshot, or null when there is none (or it can't be read: it is then forgotten). */
export function loadMatch(store: KeyValueStore | undefined): MatchSnapshot | null {
  const text = store?.getItem(SESSION_KEY);
  if (!store || !text) return null;
  try {
    const kept = JSON.parse(text) as {
      v: number;
      options: MatchSnapshot["options"] & { seed?: string };
      seatTokens: string[];
      update: string;
      hand: [number, number][];
      lines: Line[];
      totalsBefore: string[];
      games: { dealt: string; hands: [number, number][][]; moves: RecordMove[]; last: string }[];
    };
    if (kept.v !== VERSION) throw new Error(`snapshot version ${kept.v}`);
    return {
      options: {
        variant: kept.options.variant, players: kept.options.players, bot: kept.options.bot, humanSeat: kept.options.humanSeat,
        ...(kept.options.seed === undefined ? {} : { seed: BigInt(kept.options.seed) }),
      },
      seatTokens: kept.seatTokens,
      update: unmessage(kept.update),
      hand: kept.hand.map(unpair),
      lines: kept.lines,
      totalsBefore: kept.totalsBefore.map((total) => BigInt(total)),
      games: kept.games.map((game) => ({
        dealt: unmessage(game.dealt),
        hands: game.hands.map((hand) => hand.map(unpair)),
        moves: game.moves,
        last: unmessage(game.last),
      })),
    };
  } catch {
    forgetMatch(store);
    return null;
  }
}

/** Forget the kept match ("New match", or a snapshot the service no longer accepts). */
export function forgetMatch(store: KeyValueStore | undefined): void {
  try {
    store?.removeItem(SESSION_KEY);
  } catch {
    // storage disabled: nothing was kept
  }
}
