// Following a table from the events: the spectator view after an UPDATE_VIEW_BASIC answer.
// A port of the Python client's tienlen_client/follow.py (the same rules, one function per
// event type); docs/FRONTEND.md, "Following a table from the events", states them.
//
// An ApplyMove answer asked with `view: UPDATE_VIEW_BASIC` carries the new state token, the
// step's events, `toAct`, `finished` and the settlement, but no spectator TableView. The events
// say everything that changed, so the view after the step is the view before it advanced by its
// events: `advance`.
//
// Three rule options change what an event means: pass_lockout (does a play clear every pass?),
// lead_stealing (is `stealOpen` set at a deal?) and steal_winner_pairs_lead (does the previous
// winner's own lead of 3 consecutive pairs keep it open?). Every view carries the values the service
// resolved for its game (`TableView.followRules`), and the fold carries them forward like the
// other fields set at the deal: nothing else is needed (no DescribeRules).
//
// Nothing here guesses: when an answer can't be followed — an event kind this client doesn't
// know (a newer service), a previous view that isn't a spectator's or has no `followRules` (a
// service older than that field), or events that disagree with the answer's own `toAct` /
// `finished` — `advance` throws `CannotFollow` and the caller asks for the view instead (the
// client does, with GetView).
//
// Pure: messages in, a new message out; the inputs are never changed.

import { clone, create, type MessageInitShape } from "@bufbuild/protobuf";
import { CardSchema, type Card } from "../gen/tienlen/v1/cards_pb.js";
import type {
  AutoPlay,
  ChopSettled,
  GameOver,
  GameStarted,
  InstantWin,
  Passed,
  Played,
  PlayerFinished,
  PlayerLeft,
  PlayersFrozen,
  RoundWon,
  SeatTaken,
  SeatVacated,
  TimedOut,
  TurnPassed,
} from "../gen/tienlen/v1/events_pb.js";
import { SeatStatusSchema, TableViewSchema, UpdateView as WireUpdateView, type GameUpdate, type SeatStatus, type TableView } from "../gen/tienlen/v1/game_pb.js";
import { CombinationSchema, CombinationType, type MoveSchema } from "../gen/tienlen/v1/moves_pb.js";
import { ApplyMoveRequestSchema, type ApplyMoveRequest } from "../gen/tienlen/v1/service_pb.js";

/** How much of a move's answer to ask for: "full" (the spectator view too; the default) or
 * "basic" (UPDATE_VIEW_BASIC: no view on the wire, the client follows it from the events). */
export type UpdateView = "full" | "basic";

/** The accepted UpdateView values. */
export const UPDATE_VIEWS: readonly UpdateView[] = ["full", "basic"];

/** The most seats a table has (RULES §9.1): a newcomer may sit in a seat beyond a smaller
 * table's, which grows it. */
export const MAX_SEATS = 4;

/** `value` checked to be an UpdateView; throws a TypeError otherwise (for callers without types). */
export function checkUpdateView(value: string): UpdateView {
  const known = UPDATE_VIEWS.find((v) => v === value);
  if (known === undefined) throw new TypeError(`updateView must be one of ${UPDATE_VIEWS.join(", ")}, not ${JSON.stringify(value)}`);
  return known;
}

/** Every TableView field `advance` keeps right (protobuf-es names). A field added to TableView
 * and not here would be copied from the previous view unchanged, perhaps stale: the tests
 * compare this set with the generated message, so such a field fails them until it is
 * followed here. */
export const FOLLOWED_FIELDS: ReadonlySet<string> = new Set([
  // set at the deal and never changed by a move: copied from the previous view
  "seat", "hand", "players", "rules", "firstGame", "gameNumber", "dealer", "followRules",
  // the match's, never changed (a replayed match's next games are replayed too)
  "replayed",
  // changed by the events
  "seats", "table", "tableSeat", "toAct", "mustInclude", "finished", "played", "stealOpen", "moveCount",
  // the host's out-of-turn chops (RULES §9.5): every answer carries them
  "chopSeats", "chopOpen",
]);

/** Every SeatStatus field `advance` keeps right (see FOLLOWED_FIELDS). */
export const FOLLOWED_SEAT_FIELDS: ReadonlySet<string> = new Set([
  "seat", "cardsLeft", "place", "passed", "frozen", "hasPlayed", "matchTotal",
  // a table of people (RULES §9)
  "empty", "auto", "left", "forfeited", "playerId", "timeouts", "bankroll",
]);

/** An answer whose events can't be folded into the view (the message says why): ask for the
 * view instead. */
export class CannotFollow extends Error {
  override name = "CannotFollow";
}

/** Why the answers to moves made from `view` can't be followed, or null when they can. */
export function followable(view: TableView | undefined): string | null {
  if (view === undefined) return "there is no previous view";
  if (view.seat !== undefined) return `the previous view is seat ${view.seat}'s, not a spectator's`;
  if (view.followRules === undefined) return "the previous view has no followRules (a service older than that field)";
  return null;
}

/** The ApplyMoveRequest of a move on `game` (unary or streamed): UPDATE_VIEW_BASIC when a basic
 * answer is `wanted` and `game.view` can be followed, else the full view is asked for up front
 * (a view that can't be followed is never a reason for a GetView). `dealKey`: the host's, so
 * that a service checking seat tokens names the chop seats (RULES §9.5). */
export function applyRequest(
  game: GameUpdate,
  seat: number,
  seatToken: string,
  move: MessageInitShape<typeof MoveSchema>,
  wanted: UpdateView,
  dealKey = "",
): ApplyMoveRequest {
  const basic = wanted === "basic" && followable(game.view) === null;
  return create(ApplyMoveRequestSchema, {
    stateToken: game.stateToken,
    seat,
    seatToken,
    move,
    view: basic ? WireUpdateView.BASIC : WireUpdateView.UNSPECIFIED,
    dealKey,
  });
}

/** The spectator view after `update`, from the spectator `view` before it and the update's
 * events, with the option values of `view.followRules`. `previousNet`: the settlement nets of
 * the game `view` shows, when it is over (a deal adds them to the match totals; ApplyMove never
 * deals, so it is a safeguard). Throws CannotFollow when the answer can't be followed. */
export function advance(view: TableView, update: GameUpdate, previousNet: readonly bigint[] = []): TableView {
  const why = followable(view);
  if (why !== null) throw new CannotFollow(why);
  const after = clone(TableViewSchema, view);
  const nets = previousNet.length > 0 ? [...previousNet] : new Array<bigint>(view.players).fill(0n);
  let timedOut = -1; // the seat whose time-out this answer plays: its moves are not its own
  for (const event of update.events) {
    const kind = event.kind;
    switch (kind.case) {
      case "gameStarted": onGameStarted(after, kind.value, nets); break;
      case "played": onPlayed(after, kind.value, kind.value.seat !== timedOut); break;
      case "passed": onPassed(after, kind.value, kind.value.seat !== timedOut); break;
      case "chopSettled": onChopSettled(after, kind.value); break;
      case "roundWon": onRoundWon(after, kind.value); break;
      case "playerFinished": onPlayerFinished(after, kind.value); break;
      case "playersFrozen": onPlayersFrozen(after, kind.value); break;
      case "instantWin": onInstantWin(after, kind.value); break;
      case "turnPassed": onTurnPassed(after, kind.value); break;
      case "gameOver": onGameOver(after, kind.value); break;
      case "timedOut": timedOut = onTimedOut(after, kind.value); break;
      case "autoPlay": onAutoPlay(after, kind.value); break;
      case "playerLeft": onPlayerLeft(after, kind.value); break;
      case "seatVacated": onSeatVacated(after, kind.value, nets); break;
      case "seatTaken": onSeatTaken(after, kind.value, nets); break;
      default: // undefined: a kind added to events.proto after this client was generated
        throw new CannotFollow("an event of a kind this client does not know");
    }
  }
  // The host's out-of-turn chops come with every answer, not from the events.
  after.chopOpen = update.chopOpen;
  after.chopSeats = [...update.chopSeats];
  // The answer says who acts and whether it is over independently of the events: a
  // disagreement means the fold went wrong somewhere, so nothing of it is trusted.
  if (after.toAct !== update.toAct || after.finished !== update.finished) {
    throw new CannotFollow(
      `the events give (toAct, finished) = (${after.toAct}, ${after.finished}), the answer says (${update.toAct}, ${update.finished})`,
    );
  }
  return after;
}

// --- one function per event type (each changes `view` in place) --------------------------------

/** A deal (chia bài): every seat starts again with its dealt cards (an empty seat is dealt
 * none), match totals and bankrolls take the previous game's nets, nothing is on the table; the
 * leader acts. Time-outs in a row and auto carry over (RULES §9.3). */
export function onGameStarted(view: TableView, event: GameStarted, nets: readonly bigint[]): void {
  const sizes = event.handSizes;
  if (sizes.length !== view.players) {
    throw new CannotFollow(`GameStarted gives ${sizes.length} hand sizes for ${view.players} seats`);
  }
  if (nets.length !== view.players) throw new CannotFollow(`${nets.length} settlement nets for ${view.players} seats`);
  view.seats.forEach((status, seat) => {
    status.cardsLeft = sizes[seat]!;
    status.place = 0;
    status.passed = false;
    status.frozen = false;
    status.hasPlayed = false;
    status.matchTotal += nets[seat]!;
    status.empty = sizes[seat] === 0;
    status.left = false;
    status.forfeited = false;
    if (status.bankroll !== undefined) status.bankroll += nets[seat]!;
  });
  view.table = undefined;
  view.tableSeat = undefined;
  view.toAct = event.leader;
  view.mustInclude = event.mustInclude === undefined ? undefined : copyCard(event.mustInclude);
  view.finished = false;
  view.firstGame = event.firstGame;
  view.gameNumber = event.gameNumber;
  view.dealer = event.dealer;
  view.played = [];
  // Cướp cái is open at the deal of every game that is not a first game (game.proto).
  view.stealOpen = view.followRules!.leadStealing && !event.firstGame;
  view.moveCount = 0;
}

/** A play: it is the play to beat; the seat holds `cardsLeft` and is back in the round (an
 * out-of-turn chop brings back a seat that had passed); the cards are public. `own`: the seat
 * played it itself (not its time-out), so its time-outs in a row start again. */
export function onPlayed(view: TableView, event: Played, own = true): void {
  if (own) seatOf(view, event.seat).timeouts = 0;
  if (!view.followRules!.passLockout) {
    // a pass does not lock a seat out: any play reopens every seat
    for (const status of view.seats) status.passed = false;
  }
  const status = seatOf(view, event.seat);
  status.cardsLeft = event.cardsLeft;
  status.hasPlayed = true;
  status.passed = false;
  const combination = event.combination;
  view.table = combination === undefined ? undefined : clone(CombinationSchema, combination);
  view.tableSeat = event.seat;
  view.mustInclude = undefined;
  const played = [...view.played, ...(combination?.cards ?? [])].map(copyCard);
  played.sort((a, b) => a.rank - b.rank || a.suit - b.suit); // both enums go weakest first
  view.played = played;
  // Only three consecutive pairs keep the lead open to stealing (a higher one steals back);
  // with steal_winner_pairs_lead off, only a steal (not the winner's own lead) does.
  const threePairs = combination?.type === CombinationType.CONSECUTIVE_PAIRS && combination.length === 3;
  view.stealOpen = view.stealOpen && (view.followRules!.stealWinnerPairsLead ? threePairs : event.steal);
  view.moveCount += 1;
}

/** A pass (bỏ lượt); `own` as for `onPlayed`. */
export function onPassed(view: TableView, event: Passed, own = true): void {
  const status = seatOf(view, event.seat);
  status.passed = true;
  if (own) status.timeouts = 0;
  view.moveCount += 1;
}

/** A chop chain paid (chặt chồng): money only, which the settlement carries at the end. */
export function onChopSettled(_view: TableView, _event: ChopSettled): void {}

/** A round (vòng) won: the table is cleared, every pass forgotten, the leader acts; the start
 * of the game is over, so the lead can no longer be stolen. */
export function onRoundWon(view: TableView, event: RoundWon): void {
  for (const status of view.seats) status.passed = false;
  view.table = undefined;
  view.tableSeat = undefined;
  view.toAct = event.leader;
  view.stealOpen = false;
}

/** A seat went out, with its place. */
export function onPlayerFinished(view: TableView, event: PlayerFinished): void {
  seatOf(view, event.seat).place = event.place;
}

/** Cóng: the frozen seats take the last places. */
export function onPlayersFrozen(view: TableView, event: PlayersFrozen): void {
  if (event.seats.length !== event.places.length) throw new CannotFollow("PlayersFrozen lists seats and places of different lengths");
  event.seats.forEach((seat, i) => {
    const status = seatOf(view, seat);
    status.frozen = true;
    status.place = event.places[i]!;
  });
}

/** Tới trắng: the GameOver that follows carries the places; money is in the settlement. */
export function onInstantWin(_view: TableView, _event: InstantWin): void {}

/** The seat to act. */
export function onTurnPassed(view: TableView, event: TurnPassed): void {
  view.toAct = event.seat;
}

/** The end: every seat's final place (the last seat gets its place only here); nobody acts. */
export function onGameOver(view: TableView, event: GameOver): void {
  if (event.places.length !== view.players) throw new CannotFollow(`GameOver gives ${event.places.length} places for ${view.players} seats`);
  view.seats.forEach((status, seat) => {
    status.place = event.places[seat]!;
  });
  view.finished = true;
  view.toAct = undefined;
}

/** The host's time-out of a seat (RULES §9.3): its count of time-outs in a row. The play or pass
 * that follows is the time-out's, not the seat's own: the seat is returned so that it does not
 * reset the count. */
export function onTimedOut(view: TableView, event: TimedOut): number {
  seatOf(view, event.seat).timeouts = event.timeouts;
  return event.seat;
}

/** A seat on auto (tự động đánh) or off it. */
export function onAutoPlay(view: TableView, event: AutoPlay): void {
  seatOf(view, event.seat).auto = event.on;
}

/** A seat's player left during the game (RULES §9.4): a move; a forfeit takes its place and is
 * out of the round (a pass it had made is forgotten). */
export function onPlayerLeft(view: TableView, event: PlayerLeft): void {
  const status = seatOf(view, event.seat);
  status.left = true;
  status.forfeited = event.forfeit;
  if (event.forfeit) {
    status.place = event.place;
    status.passed = false;
  }
  view.moveCount += 1;
}

/** Between games (RULES §9.1): the seat's player left the table, its total final; the seat is
 * empty (0 chips where the table plays with bankrolls). */
export function onSeatVacated(view: TableView, event: SeatVacated, nets: bigint[]): void {
  reseat(view, event.seat, "", nets);
  view.seats[event.seat]!.empty = true;
}

/** Between games: a newcomer sat down, with a total of 0 (its bankroll is the one the host gave,
 * which the events don't carry: 0 here, as an empty seat's). */
export function onSeatTaken(view: TableView, event: SeatTaken, nets: bigint[]): void {
  reseat(view, event.seat, event.playerId, nets);
}

/** `seat` with a new occupant (none: `playerId` ""), the table grown to hold it, its last net
 * dropped: a leaver's total is final, a newcomer's starts at 0. */
function reseat(view: TableView, seat: number, playerId: string, nets: bigint[]): void {
  if (!(Number.isInteger(seat) && seat >= 0 && seat < MAX_SEATS)) throw new CannotFollow(`a seat change names seat ${seat}`);
  const chips = view.seats.some((s) => s.bankroll !== undefined);
  while (view.seats.length <= seat) {
    view.seats.push(create(SeatStatusSchema, { seat: view.seats.length, empty: true }));
    nets.push(0n);
  }
  view.players = view.seats.length;
  view.seats[seat] = create(SeatStatusSchema, { seat, playerId, bankroll: chips ? 0n : undefined });
  if (chips) for (const other of view.seats) other.bankroll ??= 0n;
  nets[seat] = 0n;
}

function seatOf(view: TableView, seat: number): SeatStatus {
  const status = view.seats[seat];
  if (status === undefined || seat < 0) throw new CannotFollow(`an event names seat ${seat} at a table of ${view.seats.length}`);
  return status;
}

function copyCard(card: Card): Card {
  return create(CardSchema, { rank: card.rank, suit: card.suit });
}
