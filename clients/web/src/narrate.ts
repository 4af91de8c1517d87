// What the table says about each event and each payment, in words. Events carry only public
// information, so every line here is something all the players at a real table would see.

import type { Event } from "../gen/tienlen/v1/events_pb.js";
import type { Settlement, Transfer, TransferReason } from "../gen/tienlen/v1/settlement_pb.js";
import { cardLabel, cardsLabel, combinationName } from "./cards.js";
import { reasonWords as labelReason, type Lang } from "./labels.js";

/** How a line is shown: `announce` lines (chops, instant wins, frozen and rotten hands) stand out. */
export type Tone = "info" | "announce";

/** One line of the table's log. */
export interface Line {
  readonly text: string;
  readonly tone: Tone;
  /** What the line announces, for styling and tests: "chop", "instant-win", "frozen", "rotten"... */
  readonly kind: string;
}

/** Names a seat ("You", "Bot 2"). */
export type SeatName = (seat: number) => string;

/** "Bot 2 plays" but "You play": the verb agrees with the seat's name. */
function does(name: SeatName, seat: number, verb: string, youVerb: string): string {
  const who = name(seat);
  return `${who} ${who === "You" ? youVerb : verb}`;
}

function chips(amount: bigint): string {
  return `${amount} chip${amount === 1n || amount === -1n ? "" : "s"}`;
}

/** The line for one event, or null for events a player needs no line for (whose turn it is). */
export function narrateEvent(event: Event, name: SeatName): Line | null {
  const kind = event.kind;
  switch (kind.case) {
    case "gameStarted": {
      const e = kind.value;
      const must = e.mustInclude ? ` (the lead must contain ${cardLabel(e.mustInclude)})` : "";
      return { kind: "deal", tone: "info", text: `Game ${e.gameNumber} dealt. ${does(name, e.leader, "leads", "lead")}${must}.` };
    }
    case "played": {
      const e = kind.value;
      const combination = e.combination;
      const what = combination ? `${combinationName(combination)} ${cardsLabel(combination.cards)}` : "cards";
      const how = [e.steal ? "stealing the lead (cướp cái)" : "", e.outOfTurn && !e.steal ? "out of turn" : ""].filter(Boolean);
      const suffix = how.length > 0 ? `, ${how.join(", ")}` : "";
      if (e.chop) {
        return { kind: "chop", tone: "announce", text: `Chop (chặt)! ${does(name, e.seat, "chops", "chop")} with ${what}${suffix}.` };
      }
      return { kind: "play", tone: "info", text: `${does(name, e.seat, "plays", "play")} ${what}${suffix}.` };
    }
    case "passed":
      return { kind: "pass", tone: "info", text: `${does(name, kind.value.seat, "passes", "pass")}.` };
    case "chopSettled": {
      const e = kind.value;
      const chopped = cardsLabel(e.cards);
      // victimOut: the last chopped play was its player's last cards, which is why nobody pays
      // (such a chain is void; under Huế's chopper_only the chopper is paid by nobody).
      const wentOut = "the chopped player went out with those cards";
      if (e.payer < 0 && e.amount > 0n) {
        return {
          kind: "chop",
          tone: "announce",
          text: `Chop chain of ${e.links} over ${chopped} settled: ${name(e.payee)} ${name(e.payee) === "You" ? "are" : "is"} paid ${chips(e.amount)} by nobody, as ${wentOut}.`,
        };
      }
      if (e.payer < 0 || e.amount === 0n) {
        const why = e.payer < 0
          ? `nobody pays, as ${e.victimOut ? wentOut : "the chain is void"}`
          : "it is worth nothing under these rules";
        return { kind: "chop", tone: "announce", text: `Chop chain of ${e.links} over ${chopped} ends: ${why}.` };
      }
      const paidAnyway = e.victimOut ? ` (paid though ${name(e.payer)} went out with those cards)` : "";
      return {
        kind: "chop",
        tone: "announce",
        text: `Chop chain of ${e.links} settled: ${does(name, e.payer, "pays", "pay")} ${name(e.payee)} ${chips(e.amount)} for ${chopped}${paidAnyway}.`,
      };
    }
    case "roundWon": {
      const e = kind.value;
      const next = e.leader === e.seat ? "" : `; ${does(name, e.leader, "leads", "lead")}`;
      return { kind: "round", tone: "info", text: `${does(name, e.seat, "wins", "win")} the round${next}.` };
    }
    case "playerFinished": {
      const e = kind.value;
      const last = e.rankedLast ? `, ranked last for going out on a 2 or a bomb` : "";
      return { kind: "finished", tone: "info", text: `${does(name, e.seat, "goes", "go")} out: place ${e.place}${last}.` };
    }
    case "playersFrozen": {
      const e = kind.value;
      const who = e.seats.map((seat, i) => `${name(seat)} (place ${e.places[i] ?? "?"})`).join(", ");
      return { kind: "frozen", tone: "announce", text: `Frozen (cóng): ${who} never played a card and take the last places.` };
    }
    case "instantWin": {
      const e = kind.value;
      return { kind: "instant-win", tone: "announce", text: `Instant win (tới trắng)! ${does(name, e.seat, "wins", "win")} on the deal with ${e.pattern.replaceAll("_", " ")}.` };
    }
    case "gameOver":
      return { kind: "game-over", tone: "info", text: "Game over." };
    // A table of people (RULES §9): the host's reports, and the seat changes between games.
    case "timedOut": {
      const e = kind.value;
      const inARow = e.timeouts > 1 ? ` (${e.timeouts} in a row)` : "";
      return { kind: "timeout", tone: "info", text: `${name(e.seat)}: time is up${inARow}.` };
    }
    case "autoPlay": {
      const e = kind.value;
      return e.on
        ? { kind: "auto", tone: "announce", text: `${does(name, e.seat, "is", "are")} on auto (tự động đánh): the table plays for ${name(e.seat) === "You" ? "you" : "them"}.` }
        : { kind: "auto", tone: "info", text: `${does(name, e.seat, "is", "are")} back: off auto.` };
    }
    case "playerLeft": {
      const e = kind.value;
      const how = e.forfeit ? `forfeits (place ${e.place})` : "is played out on auto";
      return { kind: "left", tone: "announce", text: `${name(e.seat)} left the table: the seat ${how}.` };
    }
    case "seatVacated": {
      const e = kind.value;
      const who = e.playerId ? ` (${e.playerId})` : "";
      return { kind: "seat-change", tone: "info", text: `Seat ${e.seat}${who} is left empty, with a final total of ${chips(e.total)}.` };
    }
    case "seatTaken": {
      const e = kind.value;
      const who = e.playerId ? `${e.playerId}` : "A newcomer";
      return { kind: "seat-change", tone: "info", text: `${who} sits down in seat ${e.seat}.` };
    }
    case "turnPassed":
    case undefined:
      return null;
  }
}

/** Why chips moved, in words: "chop (chặt)" (labels.ts, English with the Vietnamese term). */
export function reasonWords(reason: TransferReason, lang: Lang = "en"): string {
  return labelReason(reason, lang);
}

/** One payment in words: "Bot 3 pays You 200 chips: place". */
export function transferText(transfer: Transfer, name: SeatName, lang: Lang = "en"): string {
  const payer = transfer.payer < 0 ? "Nobody" : name(transfer.payer);
  const cards = transfer.cards.length > 0 ? ` (${cardsLabel(transfer.cards)})` : "";
  const pays = payer === "You" ? "pay" : "pays";
  return `${payer} ${pays} ${name(transfer.payee)} ${chips(transfer.amount)}: ${reasonWords(transfer.reason, lang)}${cards}`;
}

/** The settlement's announcements: rotten hands (thối), which no event carries. */
export function settlementAnnouncements(settlement: Settlement, name: SeatName): Line[] {
  return settlement.rotten.map((part) => ({
    kind: "rotten",
    tone: "announce" as const,
    text: `Rotten (thối): ${does(name, part.seat, "is", "are")} left holding ${part.label === "2" ? "a 2" : part.label} ${cardsLabel(part.cards)}, worth ${chips(part.amount)}.`,
  }));
}

/** One row of the settlement table. */
export interface SettlementRow {
  readonly seat: number;
  readonly place: number;
  readonly net: bigint;
  /** The match total after this game: the total before it plus the net. */
  readonly total: bigint;
}

/** The settlement table's rows, best place first (seat order between equal places). */
export function settlementRows(settlement: Settlement, totalsBefore: readonly bigint[]): SettlementRow[] {
  const rows = settlement.net.map((net, seat) => ({
    seat,
    place: settlement.places[seat] ?? 0,
    net,
    total: (totalsBefore[seat] ?? 0n) + net,
  }));
  return rows.sort((a, b) => a.place - b.place || a.seat - b.seat);
}
