// The table's own logic without a browser: card faces, what the table says about events and
// payments, the settlement rows, and the host's turn loop against a fake service.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import { CardSchema, Rank, Suit, type Card } from "../gen/tienlen/v1/cards_pb.js";
import { DescribeRulesResponseSchema } from "../gen/tienlen/v1/service_pb.js";
import { EventSchema } from "../gen/tienlen/v1/events_pb.js";
import { GameUpdateSchema, type GameUpdate } from "../gen/tienlen/v1/game_pb.js";
import { CombinationType } from "../gen/tienlen/v1/moves_pb.js";
import { SettlementSchema, TransferReason, TransferSchema } from "../gen/tienlen/v1/settlement_pb.js";
import {
  ApplyMoveResponseSchema, GetViewResponseSchema, ListLegalMovesResponseSchema, NewGameResponseSchema, SuggestMoveResponseSchema,
} from "../gen/tienlen/v1/service_pb.js";
import { cardLabel, cardText, cardsKey, combinationName, isRed, sortCards } from "../src/cards.js";
import { aboutGame, Host, type Engine, type TableState } from "../src/host.js";
import { narrateEvent, settlementAnnouncements, settlementRows, transferText } from "../src/narrate.js";
import { botChoices } from "../src/choices.js";
import { combinationName as localName, label, reasonWords } from "../src/labels.js";
import { GameLog, gameRecordText } from "../src/record.js";
import { SESSION_KEY, type KeyValueStore } from "../src/session.js";
import { refusalOf } from "../src/refusal.js";

const RANKS: Record<string, Rank> = {
  "3": Rank.THREE, "4": Rank.FOUR, "5": Rank.FIVE, "6": Rank.SIX, "7": Rank.SEVEN, "8": Rank.EIGHT, "9": Rank.NINE,
  "10": Rank.TEN, J: Rank.JACK, Q: Rank.QUEEN, K: Rank.KING, A: Rank.ACE, "2": Rank.TWO,
};
const SUITS: Record<string, Suit> = { S: Suit.SPADES, C: Suit.CLUBS, D: Suit.DIAMONDS, H: Suit.HEARTS };

/** Cards from card notation: cards("3S 10D 2H"). */
function cards(text: string): Card[] {
  return text.split(" ").map((t) => create(CardSchema, { rank: RANKS[t.slice(0, -1)]!, suit: SUITS[t.slice(-1)]! }));
}

const name = (seat: number): string => (seat === 0 ? "You" : `Bot ${seat}`);

test("cards read as rank and suit symbol, hearts and diamonds red, spades and clubs black", () => {
  const [ten, spade, heart] = cards("10D 3S 2H");
  assert.equal(cardLabel(ten!), "10♦");
  assert.equal(cardText(ten!), "10D");
  assert.equal(isRed(ten!), true);
  assert.equal(isRed(heart!), true);
  assert.equal(isRed(spade!), false);
  assert.equal(isRed(cards("KC")[0]!), false);
});

test("cards sort by rank then suit, and a set's key ignores order", () => {
  assert.deepEqual(sortCards(cards("2H 3H 3S AC")).map(cardText), ["3S", "3H", "AC", "2H"]);
  assert.equal(cardsKey(cards("7H 7S")), cardsKey(cards("7S 7H")));
});

test("combinations are named with their length where it matters", () => {
  assert.equal(combinationName({ type: CombinationType.STRAIGHT, length: 5 } as never), "straight of 5");
  assert.equal(combinationName({ type: CombinationType.CONSECUTIVE_PAIRS, length: 3 } as never), "3 consecutive pairs");
  assert.equal(combinationName({ type: CombinationType.PAIR, length: 2 } as never), "pair");
});

test("a chop, an instant win and frozen seats are announced; a turn change is not a line", () => {
  const chop = narrateEvent(create(EventSchema, {
    kind: { case: "played", value: { seat: 2, chop: true, combination: { type: CombinationType.CONSECUTIVE_PAIRS, length: 3, cards: cards("3S 3C 4S 4C 5D 5H") } } },
  }), name);
  assert.equal(chop?.tone, "announce");
  assert.match(chop?.text ?? "", /Chop.*Bot 2.*3 consecutive pairs 3♠ 3♣ 4♠ 4♣ 5♦ 5♥/);
  const instant = narrateEvent(create(EventSchema, { kind: { case: "instantWin", value: { seat: 0, pattern: "four_twos" } } }), name);
  assert.match(instant?.text ?? "", /Instant win.*You.*four twos/);
  const frozen = narrateEvent(create(EventSchema, { kind: { case: "playersFrozen", value: { seats: [1, 3], places: [3, 4] } } }), name);
  assert.equal(frozen?.kind, "frozen");
  assert.match(frozen?.text ?? "", /Bot 1 \(place 3\), Bot 3 \(place 4\)/);
  assert.equal(narrateEvent(create(EventSchema, { kind: { case: "turnPassed", value: { seat: 1 } } }), name), null);
  const settled = narrateEvent(create(EventSchema, {
    kind: { case: "chopSettled", value: { payer: 1, payee: 2, amount: 200n, cards: cards("2H"), links: 1 } },
  }), name);
  assert.match(settled?.text ?? "", /Bot 1 pays Bot 2 200 chips for 2♥/);
});

test("rotten hands are announced from the settlement, and payments are said in words", () => {
  const settlement = create(SettlementSchema, {
    rotten: [{ seat: 3, label: "2", cards: cards("2S 2H"), amount: 300n }],
    transfers: [{ payer: 3, payee: 0, amount: 300n, reason: TransferReason.ROTTEN, cards: cards("2S 2H") }],
  });
  const [line] = settlementAnnouncements(settlement, name);
  assert.equal(line?.kind, "rotten");
  assert.match(line?.text ?? "", /Rotten.*Bot 3.*2♠ 2♥.*300 chips/);
  assert.equal(transferText(settlement.transfers[0]!, name), "Bot 3 pays You 300 chips: rotten cards (thối) (2♠ 2♥)");
  assert.match(transferText(create(TransferSchema, { payer: -1, payee: 1, amount: 100n, reason: TransferReason.CHOP }), name), /^Nobody pays Bot 1/);
});

test("settlement rows run best place first, and the match total adds this game's net", () => {
  const settlement = create(SettlementSchema, { net: [-100n, 300n, 0n, -200n], places: [3, 1, 2, 4] });
  const rows = settlementRows(settlement, [50n, 0n, -10n, 0n]);
  assert.deepEqual(rows.map((row) => [row.seat, row.place, row.net, row.total]), [
    [1, 1, 300n, 300n], [2, 2, 0n, -10n], [0, 3, -100n, -50n], [3, 4, -200n, -200n],
  ]);
});

test("a refusal reads as the service's sentence and its ErrorInfo reason", () => {
  const error = new ConnectError("7♠ does not beat 9♥", Code.FailedPrecondition, undefined, [
    { desc: ErrorInfoSchema, value: { reason: "DOES_NOT_BEAT", domain: "tienlen.v1" } },
  ]);
  assert.deepEqual(refusalOf(error), { message: "7♠ does not beat 9♥", reason: "DOES_NOT_BEAT", code: "failed_precondition" });
  assert.equal(refusalOf(new Error("offline")).reason, "");
});

/** A two-seat fake service: seat 1 (a bot) leads, then it is the human's turn for good. */
function fakeEngine(calls: string[], headers: (Record<string, string> | undefined)[] = []): Engine {
  const update = (toAct: number, token: string): GameUpdate =>
    create(GameUpdateSchema, {
      gameId: new Uint8Array([0x0a, 0xbc]),
      stateToken: new TextEncoder().encode(token),
      toAct,
      view: { players: 2, seats: [{ seat: 0, matchTotal: 70n }, { seat: 1, matchTotal: -70n }] },
      events: [{ kind: { case: "turnPassed", value: { seat: toAct } } }],
    });
  const refuse = (): never => {
    throw new ConnectError("3♠ 9♥ is not a combination", Code.FailedPrecondition, undefined, [
      { desc: ErrorInfoSchema, value: { reason: "NOT_A_COMBINATION", domain: "tienlen.v1" } },
    ]);
  };
  const engine = {
    newGame: async () => {
      calls.push("NewGame");
      return create(NewGameResponseSchema, { game: update(1, "s0"), seatTokens: ["t0", "t1"] });
    },
    suggestMove: async (request: { seat: number; seatToken: string }, options?: { headers?: Record<string, string> }) => {
      calls.push(`SuggestMove ${request.seat} ${request.seatToken}`);
      headers.push(options?.headers);
      return create(SuggestMoveResponseSchema, { move: { action: { case: "play", value: { cards: cards("4S") } } } });
    },
    applyMove: async (
      request: { seat: number; seatToken: string; move?: { action: { case?: string; value?: { cards?: Card[] } } } },
      options?: { headers?: Record<string, string> },
    ) => {
      calls.push(`ApplyMove ${request.seat} ${request.seatToken}`);
      headers.push(options?.headers);
      const played = request.move?.action.value?.cards ?? [];
      if (request.seat === 0 && played.length === 2) refuse();
      const game = update(0, `s${calls.length}`);
      game.events.unshift(create(EventSchema, { kind: { case: "played", value: { seat: request.seat, combination: { cards: played } } } }));
      return create(ApplyMoveResponseSchema, { game });
    },
    getView: async (request: { seat?: number; seatToken: string }, options?: { headers?: Record<string, string> }) => {
      calls.push(`GetView ${request.seat} ${request.seatToken}`);
      headers.push(options?.headers);
      return create(GetViewResponseSchema, { view: { hand: request.seat === 0 ? cards("3S 9H") : cards("4S 10S") } });
    },
    listLegalMoves: async () =>
      create(ListLegalMovesResponseSchema, { canPass: true, moves: [{ move: { action: { case: "play", value: { cards: cards("9H") } } } }] }),
    nextGame: async () => { throw new Error("not in this test"); },
    describeRules: async () => { throw new Error("not in this test"); },
  };
  return engine as unknown as Engine;
}

test("the host lets the bots move with their own seat tokens until it is the human's turn", async () => {
  const calls: string[] = [];
  const phases: string[] = [];
  const host = new Host(fakeEngine(calls), (state: TableState) => phases.push(state.phase));
  await host.newMatch({ variant: "southern", players: 2, bot: "greedy", humanSeat: 0 });
  assert.deepEqual(calls, ["NewGame", "GetView 0 t0", "GetView 1 t1", "SuggestMove 1 t1", "ApplyMove 1 t1"]);
  assert.equal(host.state.phase, "human");
  assert.deepEqual(host.state.hand.map(cardText), ["3S", "9H"]);
  assert.deepEqual(host.state.legal.map((move) => (move.move?.action.case === "play" ? cardsKey(move.move.action.value.cards) : "")), ["9H"]);
  assert.deepEqual(host.state.totalsBefore, [70n, -70n]);
  assert.ok(phases.includes("bots"));
});

test("every call about the game names it (tienlen-game-id, for a balancer's affinity); NewGame names none", async () => {
  const calls: string[] = [];
  const headers: (Record<string, string> | undefined)[] = [];
  const host = new Host(fakeEngine(calls, headers), () => undefined);
  await host.newMatch({ variant: "southern", players: 2, bot: "greedy", humanSeat: 0 });
  await host.play(cards("9H"));
  assert.deepEqual(calls, ["NewGame", "GetView 0 t0", "GetView 1 t1", "SuggestMove 1 t1", "ApplyMove 1 t1", "ApplyMove 0 t0"]);
  assert.deepEqual(headers, Array(5).fill({ "tienlen-game-id": "0abc" })); // every call after NewGame
  assert.deepEqual(aboutGame(new Uint8Array()), {});
});

test("a refused move keeps the human's turn and shows the reason; the next move clears it", async () => {
  const calls: string[] = [];
  const host = new Host(fakeEngine(calls), () => undefined);
  await host.newMatch({ variant: "southern", players: 2, bot: "greedy", humanSeat: 0 });
  await host.play(cards("3S 9H"));
  assert.equal(host.state.phase, "human");
  assert.deepEqual(host.state.refusal, { message: "3♠ 9♥ is not a combination", reason: "NOT_A_COMBINATION", code: "failed_precondition" });
  await host.play(cards("9H"));
  assert.equal(host.state.refusal, null);
  assert.equal(calls.at(-1), "ApplyMove 0 t0");
});

test("the verbs agree with You", () => {
  const mine = narrateEvent(create(EventSchema, { kind: { case: "passed", value: { seat: 0 } } }), name);
  const theirs = narrateEvent(create(EventSchema, { kind: { case: "passed", value: { seat: 2 } } }), name);
  assert.equal(mine?.text, "You pass.");
  assert.equal(theirs?.text, "Bot 2 passes.");
});

test("the page's record of a followed game is the .tlr text the Python client writes", () => {
  const dealt = create(GameUpdateSchema, {
    toAct: 0,
    view: { players: 2, rules: { variant: "southern", options: { stake: "50" } }, firstGame: true, gameNumber: 1, seats: [{ seat: 0 }, { seat: 1 }] },
    events: [{ kind: { case: "gameStarted", value: { gameNumber: 1, leader: 0, firstGame: true } } }],
  });
  const log = new GameLog(dealt, [cards("9H 3S"), cards("4S 10S")]);
  const played = (seat: number, text: string) =>
    create(GameUpdateSchema, { events: [{ kind: { case: "played", value: { seat, combination: { cards: cards(text) } } } }] });
  log.follow(played(0, "3S"));
  log.follow(create(GameUpdateSchema, { events: [{ kind: { case: "passed", value: { seat: 1 } } }] }));
  log.follow(create(GameUpdateSchema, {
    finished: true,
    events: [{ kind: { case: "played", value: { seat: 0, combination: { cards: cards("9H") } } } }],
    settlement: { places: [1, 2], net: [50n, -50n], transfers: [{ payer: 1, payee: 0, amount: 50n, reason: TransferReason.PLACE }] },
  }));
  assert.equal(
    gameRecordText(log, ["You", "Bot 1"]),
    [
      '[Variant "southern"]', '[Option "stake=50"]', '[Players "2"]', '[Dealer "0"]', '[Leader "0"]', '[FirstGame "true"]',
      '[Game "1"]', '[Totals "0 0"]', '[Name0 "You"]', '[Name1 "Bot 1"]', '[Hand0 "3S 9H"]', '[Hand1 "4S 10S"]', "",
      "1. 0: 3S", "2. 1: pass", "3. 0: 9H", "",
      '[Result "over"]', '[Places "1 2"]', '[Transfer "1 0 50 PLACE"]', '[Net "50 -50"]', "",
    ].join("\n"),
  );
});

test("each seat's hand is asked once, at the deal; after a move the hand is the answer's events", async () => {
  const calls: string[] = [];
  const host = new Host(fakeEngine(calls), () => undefined);
  await host.newMatch({ variant: "southern", players: 2, bot: "greedy", humanSeat: 0 });
  await host.play(cards("9H"));
  assert.deepEqual(host.state.hand.map(cardText), ["3S"]);
  await host.play(cards("3S"));
  assert.deepEqual(host.state.hand, []);
  assert.deepEqual(calls.filter((call) => call.startsWith("GetView")), ["GetView 0 t0", "GetView 1 t1"]);
  assert.equal(calls.filter((call) => call.startsWith("ApplyMove 0")).length, 2);
});

/** A Map with the Storage methods the host uses. */
function memoryStore(): KeyValueStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
  };
}

test("a reload takes the kept match up again: tokens, hand, table talk and records", async () => {
  const store = memoryStore();
  const before = new Host(fakeEngine([]), () => undefined, 0, undefined, store);
  await before.newMatch({ variant: "southern", players: 2, bot: "greedy", humanSeat: 0 });
  await before.play(cards("9H"));
  assert.ok(store.map.has(SESSION_KEY));

  const calls: string[] = [];
  const after = new Host(fakeEngine(calls), () => undefined, 0, undefined, store); // the reloaded page
  assert.equal(await after.resume(), true);
  assert.equal(after.state.phase, "human");
  assert.deepEqual(after.state.options, before.state.options);
  assert.deepEqual(after.state.hand.map(cardText), ["3S"]);
  assert.deepEqual(after.state.lines, before.state.lines);
  assert.deepEqual(after.state.totalsBefore, [70n, -70n]);
  assert.deepEqual(after.state.update?.stateToken, before.state.update?.stateToken);
  assert.equal(after.gameRecord(), before.gameRecord());
  assert.equal(calls.length, 0); // ListLegalMoves only, which the fake does not count
  await after.play(cards("3S"));
  assert.equal(calls.at(-1), "ApplyMove 0 t0"); // the kept seat token
  assert.equal(calls.filter((call) => call.startsWith("GetView")).length, 0);
});

test("a new match forgets the kept one, and a page with nothing kept resumes nothing", async () => {
  const store = memoryStore();
  const host = new Host(fakeEngine([]), () => undefined, 0, undefined, store);
  assert.equal(await host.resume(), false);
  await host.newMatch({ variant: "southern", players: 2, bot: "greedy", humanSeat: 0 });
  const first = store.map.get(SESSION_KEY);
  await host.newMatch({ variant: "northern", players: 2, bot: "random", humanSeat: 0 });
  const second = store.map.get(SESSION_KEY);
  assert.notEqual(second, first);
  assert.match(second ?? "", /"variant":"northern"/);
  host.forget();
  assert.equal(store.map.has(SESSION_KEY), false);
  store.map.set(SESSION_KEY, "{not json");
  assert.equal(await host.resume(), false);
  assert.equal(store.map.has(SESSION_KEY), false); // an unreadable snapshot is dropped
});

test("a kept match the service refuses is forgotten, with its reason shown", async () => {
  const store = memoryStore();
  const host = new Host(fakeEngine([]), () => undefined, 0, undefined, store);
  await host.newMatch({ variant: "southern", players: 2, bot: "greedy", humanSeat: 0 });
  const refusing = {
    ...fakeEngine([]),
    listLegalMoves: async () => {
      throw new ConnectError("the state token is not valid", Code.InvalidArgument, undefined, [
        { desc: ErrorInfoSchema, value: { reason: "TOKEN_INVALID", domain: "tienlen.v1" } },
      ]);
    },
  } as Engine;
  const reloaded = new Host(refusing, () => undefined, 0, undefined, store);
  assert.equal(await reloaded.resume(), true);
  assert.equal(reloaded.state.phase, "setup");
  assert.equal(reloaded.state.refusal?.reason, "TOKEN_INVALID");
  assert.equal(store.map.has(SESSION_KEY), false);
});

test("the opponent picker offers DescribeRules' levels first, then its bots; bots alone without levels", () => {
  const today = create(DescribeRulesResponseSchema, { bots: ["greedy", "montecarlo", "random"] });
  assert.deepEqual(botChoices(today).map((c) => [c.value, c.group, c.preferred]), [
    ["greedy", "Bots by name", true], ["montecarlo", "Bots by name", false], ["random", "Bots by name", false],
  ]);
  const withLevels = Object.assign(create(DescribeRulesResponseSchema, { bots: ["greedy", "expert"] }), {
    levels: [{ name: "easy", description: "plays at random" }, { name: "medium", description: "greedy" }, { name: "expert", description: "searches" }],
  });
  assert.deepEqual(botChoices(withLevels).map((c) => [c.value, c.group, c.preferred, c.description]), [
    ["easy", "Difficulty", false, "plays at random"],
    ["medium", "Difficulty", true, "greedy"],
    ["expert", "Difficulty", false, "searches"],
    ["greedy", "Bots by name", false, ""],
  ]);
});

test("a chop chain nobody pays says why: the chopped player went out with those cards", () => {
  const event = (value: { payer: number; payee: number; amount: bigint; victimOut: boolean }) =>
    narrateEvent(create(EventSchema, { kind: { case: "chopSettled", value: { ...value, cards: cards("2H"), links: 1 } } }), name)?.text ?? "";
  assert.match(event({ payer: -1, payee: 2, amount: 0n, victimOut: true }), /ends: nobody pays, as the chopped player went out with those cards/);
  assert.match(event({ payer: -1, payee: 2, amount: 100n, victimOut: true }), /Bot 2 is paid 100 chips by nobody, as the chopped player went out/);
  assert.match(event({ payer: 1, payee: 2, amount: 100n, victimOut: true }), /Bot 1 pays Bot 2 100 chips for 2♥ \(paid though Bot 1 went out with those cards\)/);
  assert.match(event({ payer: 1, payee: 2, amount: 0n, victimOut: false }), /ends: it is worth nothing/);
});

test("Vietnamese labels carry the English beside them; every transfer reason has words", () => {
  assert.equal(label("pass", "vi"), "Bỏ lượt (Pass)");
  assert.equal(label("pass", "en"), "Pass");
  assert.equal(localName({ type: CombinationType.CONSECUTIVE_PAIRS, length: 3 }, "vi"), "3 đôi thông (3 consecutive pairs)");
  assert.equal(localName({ type: CombinationType.FOUR_OF_A_KIND, length: 4 }, "vi"), "tứ quý (four of a kind)");
  assert.equal(reasonWords(TransferReason.CHOP, "vi"), "chặt (chop)");
  assert.equal(reasonWords(TransferReason.CHOP, "en"), "chop (chặt)");
  assert.equal(reasonWords(TransferReason.INSTANT_WIN, "vi"), "tới trắng (instant win)");
  for (const value of Object.values(TransferReason)) {
    if (typeof value !== "number" || value === TransferReason.UNSPECIFIED) continue;
    assert.doesNotMatch(reasonWords(value), /^reason /, `TransferReason ${value} has no words`);
  }
});
