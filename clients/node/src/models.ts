// Plain records of what the service returns: the contract's messages made plain, so that a
// frontend can log them, keep them, send them to a browser (JSON.stringify gives them back as
// they are) and read them without protobuf. The Node twin of the Python client's
// tienlen_client/models.py. One rule makes every record from its wire message (`plain`):
//
// - field names are the messages' own, in camelCase (toAct, cardsLeft, seatTokens);
// - cards are text: "3S", "10D" (cards.ts);
// - enums are their value names without the enum's prefix: "PAIR", "PLACE", "BOOL";
// - 64-bit integers (chips) are numbers (every amount of a game is far inside 2^53);
// - bytes are base64 text (the state token: `Game.state`);
// - a field that is not set (toAct once the game is over, the table when it is empty) is null;
// - an event is its kind ("played", "passed", ...) and that kind's fields.
//
// A Game also holds, out of sight of JSON.stringify (a non-enumerable `raw`), the GameUpdate it
// was made from: the client follows the view of the next basic answer from it. A Game that
// went through JSON and back has no `raw`; it is as good for every call (the client then asks
// for the full answer to the next move).

import { create, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { CardSchema, type Card } from "../gen/tienlen/v1/cards_pb.js";
import { EventSchema, type Event } from "../gen/tienlen/v1/events_pb.js";
import { GameUpdateSchema, TableViewSchema, type GameUpdate, type TableView } from "../gen/tienlen/v1/game_pb.js";
import { CombinationSchema, type Combination as WireCombination } from "../gen/tienlen/v1/moves_pb.js";
import { SettlementSchema } from "../gen/tienlen/v1/settlement_pb.js";
import { cardText } from "./cards.js";

/** A classified play: its `type` ("SINGLE", "PAIR", "TRIPLE", "STRAIGHT", "CONSECUTIVE_PAIRS",
 * "FOUR_OF_A_KIND", "CONSECUTIVE_TRIPLES"), its `length`, its `top` card and its `cards`
 * weakest first. */
export interface Combination {
  type: string;
  length: number;
  top: string | null;
  cards: string[];
}

/** `payer` (-1: nobody) pays `payee` `amount` chips for `reason` ("PLACE", "CHOP", "ROTTEN",
 * "FROZEN", "INSTANT_WIN", ...) and `cards`, if any. `owed`: what was owed when the loss cap cut
 * the payment (RULES §9.2: nobody loses more than its bankroll; `amount` is what is paid), else
 * 0. */
export interface Transfer {
  payer: number;
  payee: number;
  amount: number;
  reason: string;
  cards: string[];
  owed: number;
}

/** One 2 or bomb left in a hand at the end (thối): `label`, `cards`, `amount` chips. */
export interface RottenPart {
  seat: number;
  label: string;
  cards: string[];
  amount: number;
}

/** A finished game's money: the `transfers`, each seat's `net`, the `places` (1 = first out),
 * the `rotten` parts, and whether it is `zeroSum`. */
export interface Settlement {
  transfers: Transfer[];
  net: number[];
  places: number[];
  rotten: RottenPart[];
  zeroSum: boolean;
  /** The game belongs to a match replayed from a record (ReplayGame), not dealt by the service. */
  replayed: boolean;
}

/** What everyone may know about a seat. At a table of people (RULES §9): `empty` (nobody sits
 * there this game), `auto` (on auto: the host plays its time-outs at once), `left` (its player
 * left during this game), `forfeited`, the host's `playerId`, its `timeouts` in a row and its
 * `bankroll` at this game's deal (null: the table plays without bankrolls). */
export interface SeatInfo {
  seat: number;
  cardsLeft: number;
  place: number;
  passed: boolean;
  frozen: boolean;
  hasPlayed: boolean;
  matchTotal: number;
  empty: boolean;
  auto: boolean;
  left: boolean;
  forfeited: boolean;
  playerId: string;
  timeouts: number;
  bankroll: number | null;
}

/** The table as a seat (with its own `hand`) or a spectator (`seat` null, no hand) sees it. */
export interface View {
  seat: number | null;
  hand: string[];
  players: number;
  rules: { variant: string; options: Record<string, string> } | null;
  seats: SeatInfo[];
  /** The combination to beat (null: the table is empty). */
  table: Combination | null;
  tableSeat: number | null;
  toAct: number | null;
  /** The card the first play must include (the 3 of spades of a first game), if any. */
  mustInclude: string | null;
  finished: boolean;
  firstGame: boolean;
  gameNumber: number;
  dealer: number;
  /** Every card played so far in this game. */
  played: string[];
  stealOpen: boolean;
  moveCount: number;
  followRules: { passLockout: boolean; leadStealing: boolean; stealWinnerPairsLead: boolean } | null;
  /** The match was replayed from a record (ReplayGame), not dealt by the service. */
  replayed: boolean;
  /** The seats that could chop the table out of turn now, in claim order (the host's spectator
   * view only, RULES §9.5). */
  chopSeats: number[];
  /** Whether some bomb could chop the table's play out of turn (public). */
  chopOpen: boolean;
}

/** One step of the game, as the events of an answer tell it (docs/FRONTEND.md lists them). */
export type GameEvent =
  | { kind: "gameStarted"; gameNumber: number; leader: number; mustInclude: string | null; firstGame: boolean; dealer: number; handSizes: number[] }
  | { kind: "played"; seat: number; combination: Combination | null; chop: boolean; outOfTurn: boolean; steal: boolean; cardsLeft: number }
  | { kind: "passed"; seat: number }
  | { kind: "chopSettled"; payer: number; payee: number; amount: number; cards: string[]; links: number }
  | { kind: "roundWon"; seat: number; leader: number }
  | { kind: "playerFinished"; seat: number; place: number; rankedLast: boolean }
  | { kind: "playersFrozen"; seats: number[]; places: number[] }
  | { kind: "instantWin"; seat: number; pattern: string }
  | { kind: "turnPassed"; seat: number }
  | { kind: "gameOver"; places: number[] }
  // a table of people (RULES §9): the host's reports, and the seat changes between games
  | { kind: "timedOut"; seat: number; timeouts: number }
  | { kind: "autoPlay"; seat: number; on: boolean }
  | { kind: "playerLeft"; seat: number; forfeit: boolean; place: number }
  | { kind: "seatVacated"; seat: number; playerId: string; total: number }
  | { kind: "seatTaken"; seat: number; playerId: string };

/** A game as the client holds it. Pass it to the client's calls; every call made for a seat
 * sends that seat's token from `seatTokens`. */
export interface Game {
  /** The opaque state token, base64: sent back as it is with every call. */
  state: string;
  /** One token per seat, from NewGame (a newcomer's from NextGame; "" for an empty seat): give
   * each player theirs. */
  seatTokens: string[];
  /** The match's id, base64 (the same across NextGame): with `gameNumber` and `moveNumber`, the
   * key a host compare-and-sets its stored state on (docs/SECURITY.md). */
  gameId: string;
  /** The game's number in its match (1, 2, ...). */
  gameNumber: number;
  /** 0 after the deal, one more per accepted move. */
  moveNumber: number;
  /** The seats that could chop the play on the table out of turn now, in claim order (RULES
   * §9.5): when several claim, the first listed takes it. For the host only (with seat tokens
   * required, the client's deal key must be the service's). */
  chopSeats: number[];
  /** Whether the table holds a play some bomb could chop out of turn (a host that pauses for
   * claims pauses exactly then). */
  chopOpen: boolean;
  /** The seat to act; null once the game is over. */
  toAct: number | null;
  finished: boolean;
  /** The money, once the game is over. */
  settlement: Settlement | null;
  /** What the last step did. */
  events: GameEvent[];
  /** The spectator view of the table (no hands). */
  view: View;
  /** The GameUpdate this game was made from (not enumerable: JSON.stringify leaves it out);
   * undefined for a game that went through JSON. */
  readonly raw?: GameUpdate;
}

/** ValidateMove's answer: `legal`; for a legal play its `combination` and whether it `chop`s;
 * for an illegal move the `reason` code and `message`. */
export interface Validation {
  legal: boolean;
  combination: Combination | null;
  reason: string;
  message: string;
  chop: boolean;
}

/** One legal move: a pass (`isPass`, no cards) or a play of `cards` forming `combination`. */
export interface LegalMove {
  isPass: boolean;
  cards: string[];
  combination: Combination | null;
  chop: boolean;
}

/** DescribeRules' answer: the `variants` (presets), every rule `option` and the `bots`. */
export interface Rules {
  variants: { name: string; description: string; optionValues: { name: string; value: string }[]; overrides: { name: string; value: string }[] }[];
  options: { name: string; type: string; defaultValue: string; choices: string[]; minimum: number; maximum: number; description: string }[];
  bots: string[];
}

// --- the one rule: a wire message made plain --------------------------------------------------

/** A 64-bit integer as a number (text when it would not be exact, which no game amount is). */
function int64(value: bigint): number | string {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value.toString();
}

/** One value of `field` made plain. */
function plainValue(field: DescField, value: unknown): unknown {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
  if (value === undefined) return null;
  if (kind === "message") {
    const desc = field.message!;
    return desc.typeName === CardSchema.typeName ? cardText(value as Card) : plain(desc, value);
  }
  if (kind === "enum") {
    const desc = field.enum!;
    const name = desc.value[value as number]?.name ?? String(value);
    return desc.sharedPrefix && name.startsWith(desc.sharedPrefix.toUpperCase()) ? name.slice(desc.sharedPrefix.length) : name;
  }
  if (typeof value === "bigint") return int64(value);
  if (value instanceof Uint8Array) return base64Encode(value);
  return value;
}

/** The message `value` of type `desc` made plain (the rule above). */
export function plain(desc: DescMessage, value: unknown): Record<string, unknown> {
  const message = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const member of desc.members) {
    if (member.kind === "oneof") {
      const chosen = message[member.localName] as { case: string | undefined; value?: unknown };
      const field = member.fields.find((f) => f.localName === chosen.case);
      out[member.localName] = field === undefined ? null : { case: field.localName, value: plainValue(field, chosen.value) };
      continue;
    }
    const field = member;
    const item = message[field.localName];
    if (field.fieldKind === "list") out[field.localName] = (item as unknown[]).map((v) => plainValue(field, v));
    else if (field.fieldKind === "map") {
      out[field.localName] = Object.fromEntries(Object.entries(item as object).map(([k, v]) => [k, plainValue(field, v)]));
    } else out[field.localName] = plainValue(field, item);
  }
  return out;
}

/** A combination made plain. */
export function toCombination(combination: WireCombination | undefined): Combination | null {
  return combination === undefined ? null : (plain(CombinationSchema, combination) as unknown as Combination);
}

/** An event made plain: its kind and that kind's fields. */
export function toEvent(event: Event): GameEvent {
  const { kind } = plain(EventSchema, event) as { kind: { case: string; value: object } | null };
  return kind === null ? ({ kind: "unknown" } as unknown as GameEvent) : ({ kind: kind.case, ...kind.value } as GameEvent);
}

/** A table view made plain. */
export function toView(view: TableView): View {
  return plain(TableViewSchema, view) as unknown as View;
}

/** The Game of a GameUpdate that carries its view, for the match's `seatTokens`. */
export function toGame(update: GameUpdate, seatTokens: readonly string[]): Game {
  if (update.view === undefined) throw new TypeError("the GameUpdate carries no view");
  const game: Game = {
    state: base64Encode(update.stateToken),
    seatTokens: [...seatTokens],
    gameId: base64Encode(update.gameId),
    gameNumber: update.gameNumber,
    moveNumber: update.moveNumber,
    chopSeats: [...update.chopSeats],
    chopOpen: update.chopOpen,
    toAct: update.toAct ?? null,
    finished: update.finished,
    settlement: update.settlement === undefined ? null : (plain(SettlementSchema, update.settlement) as unknown as Settlement),
    events: update.events.map(toEvent),
    view: toView(update.view),
  };
  Object.defineProperty(game, "raw", { value: update, enumerable: false });
  return game;
}

/** The state token of `game` as bytes. */
export function stateBytes(game: Pick<Game, "state">): Uint8Array {
  return base64Decode(game.state);
}

/** The GameUpdate a move on `game` is made from: its own `raw` when it has one (the follower
 * needs its view), else one with only the state token (the client then asks for the full
 * answer). */
export function wireGame(game: Game): GameUpdate {
  if (game.raw !== undefined && base64Encode(game.raw.stateToken) === game.state) return game.raw;
  return create(GameUpdateSchema, {
    stateToken: stateBytes(game),
    finished: game.finished,
    toAct: game.toAct ?? undefined,
    gameId: game.gameId === undefined ? undefined : base64Decode(game.gameId),
    gameNumber: game.gameNumber,
    moveNumber: game.moveNumber,
  });
}

/** The token of `seat` in `game` ("" when it has none). */
export function seatToken(game: Pick<Game, "seatTokens">, seat: number): string {
  return game.seatTokens[seat] ?? "";
}
