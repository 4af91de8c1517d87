// A table of people (RULES §9, docs/HOSTS.md): who sits where between games, and the host's
// reports during one. The Node twin of the Python client's tienlen_client/table.py.
//
// Players change only between games. `client.nextGame(game, { leaving: [...], joining: [...] })`
// sends NextGame the table's people (TableSeating): the seats whose players stay — every occupied
// seat but those leaving (and those whose player left during the game, which the next game drops
// by itself) — and the newcomers, each in a seat that is empty for the next game. The newcomers'
// seat tokens come back in NextGame's answer (index = seat) and take their place in
// `game.seatTokens`; a leaver's token is dropped (the service refuses it from then on).
//
// During a game the host reports what the engine can't see: a seat whose time ran out (a time-out
// move) and a player who left (a leave move).

import * as grpc from "@grpc/grpc-js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { MoveSchema } from "../gen/tienlen/v1/moves_pb.js";
import type { TableSeatingSchema } from "../gen/tienlen/v1/service_pb.js";
import { DOMAIN, InvalidRequest } from "./errors.js";
import type { Game } from "./models.js";

/** The host's report that the seat to act ran out of time (RULES §9.3). */
export const TIMEOUT_MOVE: MessageInitShape<typeof MoveSchema> = { action: { case: "timeout", value: {} } };

/** The host's report that the seat's player left during the game (RULES §9.4). */
export const LEAVE_MOVE: MessageInitShape<typeof MoveSchema> = { action: { case: "leave", value: {} } };

/** A player who sits down between games: in `seat` (empty in the next game, a leaver's
 * included), with the host's own opaque `playerId` (default none) and, where the table plays with
 * bankrolls and `nextGame` is given none, the chips it brings (`bankroll`). */
export interface Newcomer {
  seat: number;
  playerId?: string;
  bankroll?: number | bigint;
}

/** The seats whose players stay for the next game: every occupied seat of `game` but those
 * `leaving` and those whose player left during it. Throws InvalidRequest (INVALID_SEAT, no call
 * made) for a leaving seat nobody sits in. */
export function stayingSeats(game: Pick<Game, "view">, leaving: readonly number[]): number[] {
  const seats = game.view.seats;
  for (const seat of leaving) {
    if (seats[seat] === undefined || seats[seat].empty) {
      const error = new InvalidRequest({ code: grpc.status.INVALID_ARGUMENT, details: `nobody sits in seat ${seat}: only a seated player can leave` });
      error.reasons.push("INVALID_SEAT");
      error.domains.push(DOMAIN);
      error.metadata.seat = String(seat);
      throw error;
    }
  }
  return seats.filter((s) => !(s.empty || s.left || leaving.includes(s.seat))).map((s) => s.seat);
}

/** NextGame's `seating` for these changes (see `stayingSeats`). */
export function seating(
  game: Pick<Game, "view">,
  leaving: readonly number[],
  joining: readonly Newcomer[],
): MessageInitShape<typeof TableSeatingSchema> {
  return {
    staying: stayingSeats(game, leaving),
    newcomers: joining.map((n) => ({
      seat: n.seat,
      playerId: n.playerId ?? "",
      bankroll: n.bankroll === undefined ? undefined : BigInt(n.bankroll),
    })),
  };
}

/** The match's seat tokens for the next game: a newcomer's from NextGame's answer (`newcomers`,
 * index = seat, "" for the others), a staying player's unchanged, "" for an empty seat (a
 * leaver's token opens nothing any more). `staying`: the seats listed as staying, or undefined
 * when every player stayed but those who left during the game. */
export function seatTokensAfter(
  game: Pick<Game, "view" | "seatTokens">,
  nextPlayers: number,
  newcomers: readonly string[],
  staying: readonly number[] | undefined,
): string[] {
  const kept = new Set(staying ?? game.view.seats.filter((s) => !(s.empty || s.left)).map((s) => s.seat));
  return [...Array(nextPlayers).keys()].map((seat) => newcomers[seat] || (kept.has(seat) ? (game.seatTokens[seat] ?? "") : ""));
}
