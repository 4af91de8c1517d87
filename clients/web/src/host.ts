// The single-player host: one human seat against the service's bots.
//
// The service is stateless, so the page holds the whole game: the state token of the last
// answer and every seat's token from NewGame. Holding every seat's token is what a
// single-player host may do (the bots are its own seats); a multiplayer frontend gives each
// player only their own token. The host asks the service for everything a rule decides: the
// human's legal plays (ListLegalMoves), each bot's move (SuggestMove), whether a move stands
// (ApplyMove: a refusal comes back with its reason), and the settlement.
//
// Every answer to a move already carries what the table shows: the spectator view (no hands)
// and the events. The host asks each seat's hand once, at the deal (GetView with that seat's
// token: the record needs every dealt hand), and from then on takes the human's played cards
// out of the hand from the Played events: no GetView per move. The whole picture is kept in the
// tab's sessionStorage after every answer (session.ts), so a reload takes the match up again.

import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import type { Card } from "../gen/tienlen/v1/cards_pb.js";
import type { GameUpdate, TableView } from "../gen/tienlen/v1/game_pb.js";
import type { MoveSchema } from "../gen/tienlen/v1/moves_pb.js";
import type { LegalMove, TienLenEngine } from "../gen/tienlen/v1/service_pb.js";
import { narrateEvent, settlementAnnouncements, type Line } from "./narrate.js";
import { cardsKey } from "./cards.js";
import { GameLog, gameRecordText, matchRecordText } from "./record.js";
import { refusalOf, type Refusal } from "./refusal.js";
import { forgetMatch, loadMatch, saveMatch, type KeyValueStore } from "./session.js";

/** The calls the host makes (a Connect client of TienLenEngine, or a fake in tests). */
export type Engine = Pick<
  Client<typeof TienLenEngine>,
  "newGame" | "applyMove" | "listLegalMoves" | "getView" | "nextGame" | "suggestMove" | "describeRules"
>;

/** What a match is played with. */
export interface MatchOptions {
  readonly variant: string;
  readonly players: number;
  /** The bot that plays every other seat (a name from DescribeRules: "greedy"...). */
  readonly bot: string;
  /** The human's seat. */
  readonly humanSeat: number;
  /** A seed for a reproducible deal; undefined: a random deal. */
  readonly seed?: bigint | undefined;
}

/** Where the match stands, for the page to draw. */
export type Phase = "setup" | "busy" | "human" | "bots" | "over";

/** Everything the page draws. */
export interface TableState {
  readonly phase: Phase;
  readonly options: MatchOptions | null;
  /** The last answer's spectator view (no hands). */
  readonly view: TableView | null;
  /** The last GameUpdate (events, settlement when over). */
  readonly update: GameUpdate | null;
  /** The human's own cards, weakest first. */
  readonly hand: readonly Card[];
  /** The human's legal plays now (empty when it's not their turn). */
  readonly legal: readonly LegalMove[];
  /** Whether the human may pass now. */
  readonly canPass: boolean;
  /** Everything said so far this game. */
  readonly lines: readonly Line[];
  /** Why the last call was refused; cleared by the next accepted move. */
  readonly refusal: Refusal | null;
  /** Each seat's match total before this game. */
  readonly totalsBefore: readonly bigint[];
}

/** A cards-or-pass move as the host sends it. */
export type MoveInit = MessageInitShape<typeof MoveSchema>;

const LEGAL_PAGE_SIZE = 1000;
/** Bots that fail to move this many times in a row stop the loop (a bug, never a rule). */
const MAX_BOT_MOVES_PER_TURN = 200;

/** Waits `ms` milliseconds (the bots' pace, so a person can follow them; 0 in tests). */
export type Pause = (ms: number) => Promise<void>;

/** The hand without the cards `seat` played in this answer's events (the Played events are
 * public: they name the cards). */
export function withoutPlayed(hand: readonly Card[], update: GameUpdate, seat: number): Card[] {
  const played = new Set<string>();
  for (const event of update.events) {
    if (event.kind.case === "played" && event.kind.value.seat === seat) {
      for (const card of event.kind.value.combination?.cards ?? []) played.add(cardsKey([card]));
    }
  }
  return hand.filter((card) => !played.has(cardsKey([card])));
}

/** The call metadata naming the game a call is about (hexadecimal), as the Python and Node
 * clients send it: a balancer that hashes it sends every call of a game to one replica, whose
 * state cache answers without decoding the token again, while any replica still answers any
 * call (deploy/README.md, "Affinity"). */
export const GAME_ID_HEADER = "tienlen-game-id";

/** The options of a call about a game: its id in `tienlen-game-id`; none without an id. */
export function aboutGame(gameId: Uint8Array | undefined): { headers?: Record<string, string> } {
  if (gameId === undefined || gameId.length === 0) return {};
  return { headers: { [GAME_ID_HEADER]: Array.from(gameId, (byte) => byte.toString(16).padStart(2, "0")).join("") } };
}

/** The game of an answer that must carry one. */
function gameOf(game: GameUpdate | undefined): GameUpdate {
  if (!game) throw new Error("the service answered without a game");
  return game;
}

const defaultPause: Pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Host {
  private stateToken: Uint8Array = new Uint8Array();
  private seatTokens: readonly string[] = [];
  /** The match's games as followed, for their records (kept here, never in the token). */
  private logs: GameLog[] = [];
  private current: TableState = {
    phase: "setup", options: null, view: null, update: null, hand: [], legal: [], canPass: false,
    lines: [], refusal: null, totalsBefore: [],
  };

  constructor(
    private readonly engine: Engine,
    private readonly onChange: (state: TableState) => void,
    private readonly pace = 0,
    private readonly pause: Pause = defaultPause,
    /** Where the match is kept across a reload (the tab's sessionStorage); none: not kept. */
    private readonly store?: KeyValueStore,
  ) {}

  get state(): TableState {
    return this.current;
  }

  /** The seat's display name. */
  readonly seatName = (seat: number): string =>
    seat === this.current.options?.humanSeat ? "You" : `Bot ${seat}`;

  /** Deal the first game of a new match (the kept one, if any, is forgotten). */
  async newMatch(options: MatchOptions): Promise<void> {
    forgetMatch(this.store);
    this.set({ phase: "busy", options, refusal: null });
    try {
      const response = await this.engine.newGame({
        rules: { variant: options.variant },
        players: options.players,
        deal: options.seed === undefined ? { case: "random", value: {} } : { case: "seed", value: options.seed },
      });
      this.seatTokens = response.seatTokens;
      this.logs = [];
      await this.accept(gameOf(response.game), true);
    } catch (error) {
      this.set({ phase: "setup", refusal: refusalOf(error) });
      return;
    }
    await this.runBots();
  }

  /** Take up the match kept before a reload, if there is one: true when there was. A snapshot
   * the service no longer takes (its keys changed, say) is forgotten, with the refusal shown. */
  async resume(): Promise<boolean> {
    const kept = loadMatch(this.store);
    if (!kept) return false;
    this.seatTokens = kept.seatTokens;
    this.stateToken = kept.update.stateToken;
    this.logs = kept.games.map((game) => GameLog.fromKept(game));
    const update = kept.update;
    this.set({
      phase: "busy", options: kept.options, view: update.view ?? null, update, hand: kept.hand, legal: [], canPass: false,
      lines: kept.lines, refusal: null, totalsBefore: kept.totalsBefore,
    });
    const humanTurn = !update.finished && update.toAct === kept.options.humanSeat;
    try {
      const { legal, canPass } = humanTurn ? await this.legalMoves(update) : { legal: [], canPass: false };
      this.set({ phase: update.finished ? "over" : humanTurn ? "human" : "bots", legal, canPass });
    } catch (error) {
      forgetMatch(this.store);
      this.set({ phase: "setup", options: null, view: null, update: null, hand: [], lines: [], refusal: refusalOf(error) });
      return true;
    }
    await this.runBots();
    return true;
  }

  /** Forget the match kept for a reload (the page's "New match" does, by dealing another). */
  forget(): void {
    forgetMatch(this.store);
  }

  /** Deal the next game of the match (the totals carry over). */
  async nextGame(): Promise<void> {
    this.set({ phase: "busy", refusal: null });
    try {
      const response = await this.engine.nextGame({ stateToken: this.stateToken }, this.aboutThisGame());
      await this.accept(gameOf(response.game), true);
    } catch (error) {
      this.set({ phase: "over", refusal: refusalOf(error) });
      return;
    }
    await this.runBots();
  }

  /** The text record (docs/RECORDS.md) of the game being played or just over; "" before any. */
  gameRecord(): string {
    const log = this.logs.at(-1);
    return log === undefined ? "" : gameRecordText(log, this.names());
  }

  /** The text record of every game of the match so far, in order. */
  matchRecord(): string {
    return this.logs.length === 0 ? "" : matchRecordText(this.logs, this.names());
  }

  /** How many games of the match the page has followed. */
  get games(): number {
    return this.logs.length;
  }

  private names(): string[] {
    const players = this.current.view?.players ?? 0;
    return Array.from({ length: players }, (_, seat) => this.seatName(seat));
  }

  /** The human plays these cards (any cards: the service says whether they may). */
  async play(cards: readonly Card[]): Promise<void> {
    await this.humanMove({ action: { case: "play", value: { cards: [...cards] } } });
  }

  /** The human passes. */
  async pass(): Promise<void> {
    await this.humanMove({ action: { case: "passTurn", value: {} } });
  }

  /** What the bot would play for the human: its cards (empty for a pass). */
  async hint(): Promise<readonly Card[]> {
    const options = this.requireOptions();
    const answer = await this.engine.suggestMove({
      stateToken: this.stateToken, seat: options.humanSeat, seatToken: this.token(options.humanSeat), bot: options.bot,
    }, this.aboutThisGame());
    return answer.move?.action.case === "play" ? answer.move.action.value.cards : [];
  }

  private async humanMove(move: MoveInit): Promise<void> {
    const options = this.requireOptions();
    if (this.current.phase !== "human") return;
    this.set({ phase: "busy" });
    try {
      const response = await this.engine.applyMove({
        stateToken: this.stateToken, seat: options.humanSeat, seatToken: this.token(options.humanSeat), move,
      }, this.aboutThisGame());
      this.set({ refusal: null });
      await this.accept(gameOf(response.game), false);
    } catch (error) {
      // Refused: the game is unchanged and it is still the human's turn.
      this.set({ phase: "human", refusal: refusalOf(error) });
      return;
    }
    await this.runBots();
  }

  /** Bots move until it is the human's turn or the game is over. */
  private async runBots(): Promise<void> {
    const options = this.requireOptions();
    for (let moves = 0; moves < MAX_BOT_MOVES_PER_TURN; moves++) {
      const update = this.current.update;
      if (!update || update.finished || update.toAct === undefined || update.toAct === options.humanSeat) return;
      const seat = update.toAct;
      this.set({ phase: "bots" });
      await this.pause(this.pace);
      try {
        const suggestion = await this.engine.suggestMove({
          stateToken: this.stateToken, seat, seatToken: this.token(seat), bot: options.bot,
        }, aboutGame(update.gameId));
        if (!suggestion.move) throw new Error(`the bot had no move for ${this.seatName(seat)} on its turn`);
        const response = await this.engine.applyMove({
          stateToken: this.stateToken, seat, seatToken: this.token(seat), move: suggestion.move,
        }, aboutGame(update.gameId));
        await this.accept(gameOf(response.game), false);
      } catch (error) {
        this.set({ phase: "human", refusal: refusalOf(error) });
        return;
      }
    }
  }

  /** Take an answer: keep its token, say its events, refresh the human's hand and plays. */
  private async accept(update: GameUpdate, newGame: boolean): Promise<void> {
    const options = this.requireOptions();
    this.stateToken = update.stateToken;
    const lines = [
      ...(newGame ? [] : this.current.lines),
      ...update.events.map((event) => narrateEvent(event, this.seatName)).filter((line): line is Line => line !== null),
      ...(update.settlement ? settlementAnnouncements(update.settlement, this.seatName) : []),
    ];
    const view = update.view ?? null;
    const totalsBefore = newGame ? (view?.seats.map((seat) => seat.matchTotal) ?? []) : this.current.totalsBefore;
    let hand: readonly Card[];
    if (newGame) {
      // The record needs every dealt hand: this host holds every seat's token, so it asks,
      // once per seat at the deal. The human's is the hand the table draws.
      const players = update.view?.players ?? 0;
      const hands: (readonly Card[])[] = [];
      for (let seat = 0; seat < players; seat++) {
        const seatView = await this.engine.getView(
          { stateToken: update.stateToken, seat, seatToken: this.token(seat) }, aboutGame(update.gameId),
        );
        hands.push(seatView.view?.hand ?? []);
      }
      this.logs.push(new GameLog(update, hands));
      hand = hands[options.humanSeat] ?? [];
    } else {
      this.logs.at(-1)?.follow(update);
      hand = withoutPlayed(this.current.hand, update, options.humanSeat);
    }
    const humanTurn = !update.finished && update.toAct === options.humanSeat;
    const { legal, canPass } = humanTurn ? await this.legalMoves(update) : { legal: [], canPass: false };
    this.set({
      phase: update.finished ? "over" : humanTurn ? "human" : "bots",
      view, update, lines, totalsBefore, legal, canPass, hand,
    });
    saveMatch(this.store, {
      options, seatTokens: this.seatTokens, update, hand, lines, totalsBefore, games: this.logs.map((log) => log.kept()),
    });
  }

  /** The human's legal plays (ListLegalMoves: every rule is the service's) and whether they
   * may pass. */
  private async legalMoves(update: GameUpdate): Promise<{ legal: readonly LegalMove[]; canPass: boolean }> {
    const seat = this.requireOptions().humanSeat;
    const answer = await this.engine.listLegalMoves({
      stateToken: update.stateToken, seat, seatToken: this.token(seat), pageSize: LEGAL_PAGE_SIZE,
    }, aboutGame(update.gameId));
    return { legal: answer.moves.filter((move) => move.move?.action.case === "play"), canPass: answer.canPass };
  }

  /** The options of a call about the game of the last answer (its id, for affinity). */
  private aboutThisGame(): { headers?: Record<string, string> } {
    return aboutGame(this.current.update?.gameId);
  }

  private token(seat: number): string {
    return this.seatTokens[seat] ?? "";
  }

  private requireOptions(): MatchOptions {
    const options = this.current.options;
    if (!options) throw new Error("no match yet: start one first");
    return options;
  }

  private set(change: Partial<TableState>): void {
    this.current = { ...this.current, ...change };
    this.onChange(this.current);
  }
}
