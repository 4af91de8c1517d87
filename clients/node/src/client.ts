// TienLenClient: the Node.js client of the Tiến Lên engine service, at parity with the Python
// client (tienlen_client). It speaks plain records (models.ts): a Game carries the state token
// and the seat tokens, so a move is `client.play(game, seat, ["3S"])`; cards are text in and out;
// seeds are numbers; every value survives JSON.stringify.
//
//   const client = new TienLenClient("127.0.0.1:50051");
//   let game = await client.newGame({ players: 4, seed: 7 });
//   game = await client.play(game, game.toAct!, ["3S"]);      // throws MoveRejected, ...
//   client.close();
//
// It is built on WireClient (wire.ts: the RPCs on the contract's protobuf messages), which
// `client.wire` gives for anything these calls don't cover. Deadlines, request ids, retries of
// the transient codes, several addresses balanced round robin with their health watched, and
// answers without the view (`updateView: "basic"`) are the wire client's, so the same here.
// Every refusal is a TienLenError subclass (errors.ts), and so is card text that is not a card.

import * as grpc from "@grpc/grpc-js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { RuleSetSpecSchema } from "../gen/tienlen/v1/rules_pb.js";
import { DescribeRulesResponseSchema, type LegalMove as WireLegalMove, type NewGameRequestSchema } from "../gen/tienlen/v1/service_pb.js";
import { CombinationType } from "../gen/tienlen/v1/moves_pb.js";
import { cards, cardTexts, move, type CardsLike } from "./cards.js";
import { InvalidRequest } from "./errors.js";
import type { UpdateView } from "./follow.js";
import { plain, seatToken, stateBytes, toCombination, toGame, toView, wireGame, type Game, type LegalMove, type Rules, type Validation, type View } from "./models.js";
import type { StreamMoveOptions, WireMoveStream } from "./stream.js";
import { seating, seatTokensAfter, type Newcomer } from "./table.js";
import { WireClient, type ClientOptions, type MoveOptions, type PlayStreamOptions } from "./wire.js";

export { card, cards, cardText, cardTexts, type CardsLike } from "./cards.js";
export { CardTextError, InvalidRequest, InvalidToken, MoveRejected, PermissionDenied, TienLenError, Unavailable } from "./errors.js";
export type { Game, GameEvent, LegalMove, Rules, Validation, View } from "./models.js";

/** How a game is dealt: at random (neither), from a `seed`, or the explicit `hands`. */
export interface DealOptions {
  /** A seed (a whole number, 0 to 2^53 - 1): the same seed deals the same cards. */
  seed?: number | bigint;
  /** One hand of card text per seat: "3S 4S 5D" or ["3S", "4S", "5D"]. */
  hands?: readonly CardsLike[];
}

/** Options of a new game; every one has a default. */
export interface NewGameOptions extends DealOptions {
  /** The rule preset (DescribeRules lists them; default "southern"). */
  variant?: string;
  /** Seats, 2 to 4 (default: the variant's). */
  players?: number;
  /** Rule options by name, overriding the preset's (values as text, numbers or booleans). */
  options?: Readonly<Record<string, string | number | boolean>>;
  /** Whether this is the first game of a match (the 3 of spades leads; default true). */
  firstGame?: boolean;
  /** The seat that leads a later game (default: the service's choice). */
  leader?: number;
  /** The dealer's seat (default 0). */
  dealer?: number;
  /** The host's own opaque id of each seat's player (RULES §9.1): none, or one per seat. */
  playerIds?: readonly string[];
  /** Each seat's chips (RULES §9.2): none, or one per seat. A seat below the table's minimum is
   * refused (MoveRejected BANKROLL_TOO_LOW, metadata `seat` and `shortfall`). */
  bankrolls?: readonly (number | bigint)[];
}

/** Options of the next game: its deal, and the table's people (RULES §9.1, docs/HOSTS.md). */
export interface NextGameOptions extends DealOptions {
  /** The seats whose players leave the table (a seat whose player left during the game leaves
   * by itself). */
  leaving?: readonly number[];
  /** The newcomers, each in a seat that is empty for the next game. */
  joining?: readonly Newcomer[];
  /** Each seat's chips for the next game, index = seat of its table (default: carried, each
   * newcomer bringing its own). */
  bankrolls?: readonly (number | bigint)[];
}

/** Options of `legalMoves`: one group of moves only, and the page size of the calls. */
export interface LegalMovesOptions {
  /** "SINGLE", "PAIR", "TRIPLE", "STRAIGHT", "CONSECUTIVE_PAIRS", "FOUR_OF_A_KIND",
   * "CONSECUTIVE_TRIPLES". */
  combinationType?: string;
  /** The length of the group's combinations (e.g. 5 for five-card straights). */
  length?: number;
  /** Moves per call (default: the service's); every page is fetched. */
  pageSize?: number;
}

/** A client-side refusal of a request that would not make sense to send. */
/** The id of the match `game` belongs to, when the client has it (a game that went through JSON
 * has no `raw`): sent with the calls about it, for a balancer's affinity. */
function gameIdOf(game: Game): Uint8Array | undefined {
  return game.raw?.gameId;
}

function invalid(details: string): InvalidRequest {
  return new InvalidRequest({ code: grpc.status.INVALID_ARGUMENT, details });
}

/** The wire deal of `deal`: a seed, explicit hands, or none (random). */
function wireDeal(deal: DealOptions): MessageInitShape<typeof NewGameRequestSchema>["deal"] {
  if (deal.seed !== undefined && deal.hands !== undefined) throw invalid("give a seed or explicit hands, not both");
  if (deal.seed !== undefined) {
    const seed = deal.seed;
    const whole = typeof seed === "bigint" ? seed >= 0n && seed < 2n ** 64n : Number.isSafeInteger(seed) && seed >= 0;
    if (!whole) throw invalid(`a seed is a whole number from 0 to 2^53 - 1, not ${String(seed)}`);
    return { case: "seed", value: BigInt(seed) };
  }
  if (deal.hands !== undefined) return { case: "explicit", value: { hands: deal.hands.map((hand) => ({ cards: cards(hand) })) } };
  return { case: undefined };
}

/** A legal move made plain. */
function toLegalMove(legal: Pick<WireLegalMove, "move" | "combination" | "chop">): LegalMove {
  const action = legal.move?.action;
  if (action?.case !== "play") return { isPass: true, cards: [], combination: null, chop: false };
  return { isPass: false, cards: cardTexts(action.value.cards), combination: toCombination(legal.combination), chop: legal.chop };
}

export class TienLenClient {
  /** The protobuf-level client under this one (wire.ts): the RPCs on the contract's messages. */
  readonly wire: WireClient;

  /** `address`: "host:port", a target URI ("dns:///tienlen:50051") or several "host:port"
   * addresses (each call goes to the next one round robin; one whose health says NOT_SERVING
   * gets none). `options`: deadline, attempts, health checking, credentials, updateView, ...
   * (ClientOptions). */
  constructor(address: string | readonly string[], options: ClientOptions = {}) {
    this.wire = new WireClient(address, options);
  }

  /** How moves are answered by default ("full" or "basic"). */
  get updateView(): UpdateView {
    return this.wire.updateView;
  }

  /** Close the channels. */
  close(): void {
    this.wire.close();
  }

  // --- games ------------------------------------------------------------------------------------

  /** Deal a new game: at random, from `seed`, or the explicit `hands` (card text per seat). */
  async newGame(options: NewGameOptions = {}): Promise<Game> {
    const rules: MessageInitShape<typeof RuleSetSpecSchema> = {
      variant: options.variant ?? "southern",
      options: Object.fromEntries(Object.entries(options.options ?? {}).map(([name, value]) => [name, String(value)])),
    };
    const answer = await this.wire.newGame({
      rules,
      players: options.players ?? 0,
      deal: wireDeal(options),
      firstGame: options.firstGame ?? true,
      leader: options.leader,
      dealer: options.dealer ?? 0,
      playerIds: [...(options.playerIds ?? [])],
      bankrolls: (options.bankrolls ?? []).map((chips) => BigInt(chips)),
    });
    return toGame(answer.game!, answer.seatTokens);
  }

  /** `seat` plays `played` (card text) in `game`: the game after the move. Throws MoveRejected
   * (with the rules' reason) when the move is illegal, CardTextError for text that is not a
   * card. */
  async play(game: Game, seat: number, played: CardsLike, options: MoveOptions = {}): Promise<Game> {
    const update = await this.wire.play(wireGame(game), seat, seatToken(game, seat), played, options);
    return toGame(update, game.seatTokens);
  }

  /** `seat` passes in `game`: the game after the move (MoveRejected when it may not pass). */
  async pass(game: Game, seat: number, options: MoveOptions = {}): Promise<Game> {
    const update = await this.wire.pass(wireGame(game), seat, seatToken(game, seat), options);
    return toGame(update, game.seatTokens);
  }

  /** The host's report that `seat`, the seat to act, ran out of time (RULES §9.3): the service
   * plays the table's time-out move for it (by default a pass, or its lowest single that may
   * lead); after `auto_after_timeouts` in a row the seat is on auto. Another seat: MoveRejected
   * NOT_YOUR_TURN. */
  async timeout(game: Game, seat: number, options: MoveOptions = {}): Promise<Game> {
    return toGame(await this.wire.timeout(wireGame(game), seat, seatToken(game, seat), options), game.seatTokens);
  }

  /** The host's report that `seat`'s player left during the game (RULES §9.4): the table's
   * `leave_mid_game` decides (played out on auto, or a forfeit; `refuse`: MoveRejected
   * LEAVE_REFUSED). The game goes on for the others. */
  async leave(game: Game, seat: number, options: MoveOptions = {}): Promise<Game> {
    return toGame(await this.wire.leave(wireGame(game), seat, seatToken(game, seat), options), game.seatTokens);
  }

  /** Deal the next game of the match (the seat tokens of the players who stay stay valid).
   * Between games players may leave (`leaving`) and newcomers sit down (`joining`); their seat
   * tokens take their seats in `seatTokens` (a leaver's becomes ""). */
  async nextGame(game: Game, options: NextGameOptions = {}): Promise<Game> {
    const leaving = options.leaving ?? [];
    const joining = options.joining ?? [];
    const changes = leaving.length || joining.length ? seating(game, leaving, joining) : undefined;
    const answer = await this.wire.nextGame({
      stateToken: stateBytes(game),
      deal: wireDeal(options),
      seating: changes,
      bankrolls: (options.bankrolls ?? []).map((chips) => BigInt(chips)),
    }, gameIdOf(game));
    const next = answer.game!;
    const tokens = seatTokensAfter(game, next.view?.players ?? game.seatTokens.length, answer.seatTokens, changes?.staying as number[] | undefined);
    return toGame(next, tokens);
  }

  /** A MoveStream: the moves of many tables over one PlayStream call, about half the server CPU
   * per move of `play` / `pass` (for game hosts). Close it (`await stream.close()`, or
   * `await using`) when done: it answers every move sent before. */
  playStream(options: PlayStreamOptions = {}): MoveStream {
    return new MoveStream(this.wire.playStream(options));
  }

  // --- questions --------------------------------------------------------------------------------

  /** Dry run: would `seat` playing `played` (or passing, when null) be legal now? */
  async validate(game: Game, seat: number, played: CardsLike | null): Promise<Validation> {
    const answer = await this.wire.validateMove({ stateToken: stateBytes(game), seat, seatToken: seatToken(game, seat), move: move(played) }, gameIdOf(game));
    return { legal: answer.legal, combination: toCombination(answer.combination), reason: answer.reason, message: answer.message, chop: answer.chop };
  }

  /** Every legal move of `seat` now (all pages), or those of one group (`combinationType`,
   * `length`). */
  async legalMoves(game: Game, seat: number, options: LegalMovesOptions = {}): Promise<LegalMove[]> {
    let type = CombinationType.UNSPECIFIED;
    if (options.combinationType !== undefined) {
      const named = (CombinationType as unknown as Record<string, CombinationType | undefined>)[options.combinationType.toUpperCase()];
      if (named === undefined || typeof named !== "number") throw invalid(`unknown combination type ${JSON.stringify(options.combinationType)}`);
      type = named;
    }
    const length = options.length ?? 0;
    const moves: LegalMove[] = [];
    let pageToken = "";
    do {
      const page = await this.wire.listLegalMoves({
        stateToken: stateBytes(game),
        seat,
        seatToken: seatToken(game, seat),
        pageSize: options.pageSize ?? 0,
        pageToken,
        filter: type !== CombinationType.UNSPECIFIED || length ? { type, length } : undefined,
      }, gameIdOf(game));
      moves.push(...page.moves.map(toLegalMove));
      pageToken = page.nextPageToken;
    } while (pageToken);
    return moves;
  }

  /** What `seat` sees (its own hand too), or a spectator when `seat` is left out (no hands). */
  async view(game: Game, seat?: number): Promise<View> {
    const answer = await this.wire.getView({
      stateToken: stateBytes(game),
      seat,
      seatToken: seat === undefined ? "" : seatToken(game, seat),
    }, gameIdOf(game)); // a spectator's view carries the deal key (the chop seats)
    return toView(answer.view!);
  }

  /** A bot's suggested move for `seat` (not applied); null when the seat has nothing to do now
   * (not its turn and no out-of-turn play, or the game is over). `bot`: one of
   * `describeRules().bots` (default: the service's). */
  async suggest(game: Game, seat: number, bot = ""): Promise<LegalMove | null> {
    const answer = await this.wire.suggestMove({ stateToken: stateBytes(game), seat, seatToken: seatToken(game, seat), bot }, gameIdOf(game));
    return answer.move === undefined ? null : toLegalMove({ move: answer.move, combination: answer.combination, chop: false });
  }

  /** Every rule preset (variant), rule option and bot, for a settings screen. */
  async describeRules(): Promise<Rules> {
    return plain(DescribeRulesResponseSchema, await this.wire.describeRules()) as unknown as Rules;
  }

  /** The standard health check: true when the service (one of the addresses) is SERVING. */
  serving(deadlineMs?: number): Promise<boolean> {
    return this.wire.serving(deadlineMs);
  }
}

/** The moves of many tables over one PlayStream call (`TienLenClient.playStream()`); its `play`
 * and `pass` answer as the client's, and refusals are the errors the client's would throw.
 * Moves waiting when a replica drains are sent again on a new stream (stream.ts). */
export class MoveStream implements AsyncDisposable {
  /** The protobuf-level stream under this one. */
  readonly wire: WireMoveStream;

  constructor(wire: WireMoveStream) {
    this.wire = wire;
  }

  /** `seat` plays `played` in `game`: the game after the move. */
  async play(game: Game, seat: number, played: CardsLike, options: StreamMoveOptions = {}): Promise<Game> {
    return toGame(await this.wire.play(wireGame(game), seat, seatToken(game, seat), played, options), game.seatTokens);
  }

  /** `seat` passes in `game`: the game after the move. */
  async pass(game: Game, seat: number, options: StreamMoveOptions = {}): Promise<Game> {
    return toGame(await this.wire.pass(wireGame(game), seat, seatToken(game, seat), options), game.seatTokens);
  }

  /** The host's time-out of `seat` (the seat to act), as the client's `timeout`. */
  async timeout(game: Game, seat: number, options: StreamMoveOptions = {}): Promise<Game> {
    return toGame(await this.wire.timeout(wireGame(game), seat, seatToken(game, seat), options), game.seatTokens);
  }

  /** `seat`'s player left during the game, as the client's `leave`. */
  async leave(game: Game, seat: number, options: StreamMoveOptions = {}): Promise<Game> {
    return toGame(await this.wire.leave(wireGame(game), seat, seatToken(game, seat), options), game.seatTokens);
  }

  /** End the stream once every move sent is answered (waits up to `timeoutMs`). */
  close(timeoutMs?: number): Promise<void> {
    return this.wire.close(timeoutMs);
  }

  /** `await using stream = client.playStream()`: closes the stream. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
