// The game record (docs/RECORDS.md) of what the page followed, in its text form (`.tlr`): the
// same text the Python and Node clients write, by the same code — the Node client's
// record-text.ts, which holds no gRPC and no generated code, so the browser bundle takes it as
// it is. Nothing is added to the state token: the record is built from the answers the page
// already has (the deal's view, every seat's hand asked at the deal, the events of every move,
// the settlement).

import type { Card } from "../gen/tienlen/v1/cards_pb.js";
import type { GameUpdate } from "../gen/tienlen/v1/game_pb.js";
import type { KeptGame } from "./session.js";
import {
  formatMatch,
  formatRecord,
  type RecordCard,
  type RecordData,
  type RecordMove,
} from "../../node/src/record-text.js";

/** A card as the record holds it (the contract's Rank and Suit numbers). */
function recordCard(card: Card): RecordCard {
  return { rank: card.rank, suit: card.suit };
}

/** Weakest first, as the record writers put a hand (the rank, then the suit). */
function strength(card: RecordCard): number {
  return card.rank * 4 + card.suit;
}

/** One game as the page followed it: the deal's answer, each seat's dealt hand, then every
 * answer to a move (its Played or Passed event is the move). */
export class GameLog {
  private readonly moves: RecordMove[] = [];
  private last: GameUpdate;

  constructor(
    private readonly dealt: GameUpdate,
    private readonly hands: readonly (readonly Card[])[],
  ) {
    this.last = dealt;
  }

  /** The log as kept across a reload (session.ts). */
  kept(): KeptGame {
    return { dealt: this.dealt, hands: this.hands, moves: [...this.moves], last: this.last };
  }

  /** The log a kept one was. */
  static fromKept(kept: KeptGame): GameLog {
    const log = new GameLog(kept.dealt, kept.hands);
    log.moves.push(...kept.moves);
    log.last = kept.last;
    return log;
  }

  /** Take the answer to a move. */
  follow(update: GameUpdate): void {
    for (const event of update.events) {
      const kind = event.kind;
      if (kind.case === "played") {
        const cards = (kind.value.combination?.cards ?? []).map(recordCard);
        this.moves.push({ seat: kind.value.seat, cards, passTurn: false });
      } else if (kind.case === "passed") {
        this.moves.push({ seat: kind.value.seat, cards: [], passTurn: true });
      }
    }
    this.last = update;
  }

  /** The game's record so far: with its result once over. */
  record(names: readonly string[]): RecordData {
    const view = this.dealt.view;
    let leader = view?.toAct ?? 0;
    for (const event of this.dealt.events) if (event.kind.case === "gameStarted") leader = event.kind.value.leader;
    const settlement = this.last.finished ? this.last.settlement : undefined;
    return {
      rules: { variant: view?.rules?.variant || "southern", options: { ...(view?.rules?.options ?? {}) } },
      players: view?.players ?? this.hands.length,
      playerNames: [...names],
      dealer: view?.dealer ?? 0,
      leader,
      firstGame: view?.firstGame ?? true,
      gameNumber: view?.gameNumber || 1,
      matchTotals: view?.seats.map((seat) => seat.matchTotal) ?? [],
      hands: this.hands.map((hand) => ({ cards: hand.map(recordCard).sort((a, b) => strength(a) - strength(b)) })),
      moves: [...this.moves],
      result:
        settlement === undefined
          ? undefined
          : {
              places: settlement.places,
              transfers: settlement.transfers.map((t) => ({ ...t, cards: t.cards.map(recordCard) })),
              net: settlement.net,
            },
    };
  }
}

/** The text of one game's record. */
export function gameRecordText(log: GameLog, names: readonly string[]): string {
  return formatRecord(log.record(names));
}

/** The text of a match's records: its games in order. */
export function matchRecordText(logs: readonly GameLog[], names: readonly string[]): string {
  return formatMatch({ games: logs.map((log) => log.record(names)) });
}
