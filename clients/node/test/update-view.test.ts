// `updateView: "basic"`: the client asks for answers without the spectator view and follows
// the view from the events, and the GameUpdates it returns are the ones the full answers give.
// The Node twin of tests/client/test_update_view.py.
//
// Every move is made three times on the same state, against the real server: unary asking for
// the full view (the reference), unary asking for UPDATE_VIEW_BASIC, and over a PlayStream
// (WireMoveStream) asking for UPDATE_VIEW_BASIC. After every move the three GameUpdates must be
// equal — events, toAct, finished, settlement and every TableView field — but for the state
// token (the contract server seals tokens, so two tokens of one state differ), while the basic
// answers carry no view on the wire (the client records each answer as it comes off the wire)
// and the server is never asked for one (its GetView counter does not move) nor for
// DescribeRules: the option values the fold needs come with the views (TableView.followRules).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { clone, create, equals, fromBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { EventSchema, GameStartedSchema, PlayedSchema, TurnPassedSchema, type Event } from "../gen/tienlen/v1/events_pb.js";
import {
  FollowRulesSchema,
  GameUpdateSchema,
  SeatStatusSchema,
  TableViewSchema,
  type GameUpdate,
  type TableView,
} from "../gen/tienlen/v1/game_pb.js";
import { CombinationType } from "../gen/tienlen/v1/moves_pb.js";
import { RuleSetSpecSchema } from "../gen/tienlen/v1/rules_pb.js";
import type { NewGameRequestSchema, NextGameRequestSchema } from "../gen/tienlen/v1/service_pb.js";
import { WireClient, type WireMoveStream } from "../src/wire.js";
import { advance, CannotFollow, FOLLOWED_FIELDS, FOLLOWED_SEAT_FIELDS } from "../src/follow.js";
import { startServer, type RunningServer } from "../src/server.js";
import { assertSameGame, choice, diff, handled as handledAt, hands, kinds, randomFrom, randomMove, Recording, type Cards } from "./support.js";

/** Random matches (two games each) per preset or option case: a count, not a time budget, so
 * every machine plays the same games (the seeds and the move choices are seeded). */
const MATCHES_PER_CASE = 2;
const CANNOT_FOLLOW_WARNING = "asking GetView: cannot follow the table from the events: an event of a kind this client does not know";

let server: RunningServer;
let full: Recording;
let basic: Recording;
/** One basic PlayStream for every table of the file (the server has one stream slot). */
let stream: WireMoveStream;

before(async () => {
  server = await startServer(undefined, 30_000, { metrics: true });
  full = new Recording(server.address);
  basic = new Recording(server.address, { updateView: "basic" });
  stream = basic.playStream();
});
after(async () => {
  await stream?.close();
  full?.close();
  basic?.close();
  await server?.stop();
});

/** How many calls of `method` the server has answered. */
function handled(method: string): Promise<number> {
  return handledAt(server.metricsUrl!, method);
}

interface Dealt {
  game: GameUpdate;
  tokens: string[];
}

async function newGame(request: MessageInitShape<typeof NewGameRequestSchema>): Promise<Dealt> {
  const answer = await full.newGame(request);
  return { game: answer.game!, tokens: answer.seatTokens };
}

/** One table played three ways at once: full unary answers (the reference), basic unary ones
 * and basic ones over the PlayStream. `seen` counts the event kinds (and chops, steals) the
 * basic answers were followed through. */
class Lockstep {
  ref: GameUpdate;
  unary: GameUpdate;
  streamed: GameUpdate;
  readonly seen = new Map<string, number>();
  readonly log: string[] = [];
  readonly tokens: string[];

  constructor(dealt: Dealt) {
    this.ref = this.unary = this.streamed = dealt.game;
    this.tokens = dealt.tokens;
  }

  /** `seat` plays `cards`, or passes when null; the three GameUpdates must agree after it. */
  async move(seat: number, cards: Cards): Promise<void> {
    this.log.push(`seat ${seat}: ${cards === null ? "pass" : cards.join(" ")}`);
    const token = this.tokens[seat]!;
    if (cards === null) {
      this.ref = await full.pass(this.ref, seat, token);
      this.unary = await basic.pass(this.unary, seat, token);
      this.streamed = await stream.pass(this.streamed, seat, token);
    } else {
      this.ref = await full.play(this.ref, seat, token, cards);
      this.unary = await basic.play(this.unary, seat, token, cards);
      this.streamed = await stream.play(this.streamed, seat, token, cards);
    }
    assert.equal(full.lastHadView, true);
    assert.deepEqual(basic.answeredWithView.slice(-2), [false, false], "the basic call or stream got the full view");
    for (const kind of kinds(this.unary.events)) this.seen.set(kind, (this.seen.get(kind) ?? 0) + 1);
    this.check();
  }

  /** The next game of the match. NextGame always answers with the full view, and that view
   * must also be what the deal's events (GameStarted) give from the last one. */
  async nextGame(deal: MessageInitShape<typeof NextGameRequestSchema>["deal"] = { case: undefined }): Promise<void> {
    const before = this.ref;
    this.ref = (await full.nextGame({ stateToken: this.ref.stateToken, deal })).game!;
    const dealt = advance(before.view!, this.ref, before.settlement?.net ?? []);
    assert.ok(equals(TableViewSchema, dealt, this.ref.view!), diff(dealt, this.ref.view));
    this.unary = (await basic.nextGame({ stateToken: this.unary.stateToken, deal })).game!;
    this.streamed = (await basic.nextGame({ stateToken: this.streamed.stateToken, deal })).game!;
    this.log.push("next game");
    this.check();
  }

  check(): void {
    const where = this.log.slice(-8).join(" | ");
    assertSameGame(this.unary, this.ref, `basic unary after: ${where}`);
    assertSameGame(this.streamed, this.ref, `basic stream after: ${where}`);
  }

  /** Random legal moves until the game ends. */
  async playOut(rng: () => number): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      if (this.ref.finished) return;
      const [seat, cards] = await randomMove(full, this.ref, this.tokens, rng);
      await this.move(seat, cards);
    }
    assert.fail("the game did not end");
  }
}

// --- random matches of every preset --------------------------------------------------------

test("basic answers give the same games as full ones in random matches of every preset", { timeout: 180_000 }, async () => {
  const getViews = await handled("GetView");
  const describes = await handled("DescribeRules");
  const presets = (await full.describeRules()).variants.map((v) => v.name);
  assert.ok(presets.length >= 6);
  const cases: [string, Record<string, string>][] = [...presets.map((name): [string, Record<string, string>] => [name, {}]), ["southern", { pass_lockout: "false" }], ["da_nang", { steal_winner_pairs_lead: "false" }]];
  const seen = new Map<string, number>();
  for (const [variant, options] of cases) {
    for (let seed = 0; seed < MATCHES_PER_CASE; seed++) {
      const rng = randomFrom(`${variant}-${JSON.stringify(options)}-${seed}`);
      const players = variant === "dau" ? 3 : choice(rng, [2, 3, 4, 4]);
      const table = new Lockstep(await newGame({ rules: { variant, options }, players, deal: { case: "seed", value: BigInt(seed) } }));
      await table.playOut(rng);
      await table.nextGame(); // the match's next seeded deal: not a first game
      await table.playOut(rng);
      for (const [kind, n] of table.seen) seen.set(kind, (seen.get(kind) ?? 0) + n);
    }
  }
  // What random play must have reached for the comparison to mean something.
  for (const kind of ["played", "passed", "roundWon", "playerFinished", "gameOver", "chop"]) {
    assert.ok(seen.has(kind), `random play never reached ${kind}: ${JSON.stringify([...seen])}`);
  }
  assert.equal((await handled("GetView")) - getViews, 0, "every view was followed from the events");
  assert.equal((await handled("DescribeRules")) - describes, 1, "DescribeRules: only this test's own call");
});

// --- the cases random play rarely reaches, played out move by move ---------------------------

describe("cases random play rarely reaches", () => {
  test("an out-of-turn chop by a seat that had passed", async () => {
    const table = new Lockstep(await newGame({ deal: hands("3S 2S KH", "4C 5S 5C 6S 6C 7S 7C 8S 8C", "4D 4H KS", "9S 9C 10S 10C JS JC QS QC AS") }));
    await table.move(0, ["3S"]);
    for (const seat of [1, 2, 3]) await table.move(seat, null);
    await table.move(0, ["2S"]);
    await table.move(1, null); // seat 1 passes ...
    await table.move(1, "5S 5C 6S 6C 7S 7C 8S 8C".split(" ")); // ... and chops out of turn
    await table.move(3, "9S 9C 10S 10C JS JC QS QC".split(" ")); // and is chopped out of turn
    for (const seat of [0, 1, 2]) await table.move(seat, null);
    assert.equal(table.seen.get("chopSettled"), 1);
    await table.playOut(randomFrom("1"));
  });

  test("frozen seats, then the next game", async () => {
    const table = new Lockstep(await newGame({
      deal: hands(
        "3S 4S 5S KH",
        "6S 7S 8S 9D 10D 10H QD QH JD JH AD AH 2D",
        "4C 4D 4H 6C 6D 6H 8C 8D 8H 10C 10S QC QS",
        "3C 3D 3H 5C 5D 5H 7C 7D 7H 9C 9S 9H JS",
      ),
    }));
    await table.move(0, ["3S", "4S", "5S"]);
    for (const seat of [1, 2, 3]) await table.move(seat, null);
    await table.move(0, ["KH"]); // out before anyone else played: cóng
    assert.equal(table.seen.get("playersFrozen"), 1);
    assert.deepEqual(table.unary.view!.seats.map((s) => s.frozen), [false, true, true, true]);
    await table.nextGame({ case: "seed", value: 7n });
    await table.playOut(randomFrom("2"));
  });

  test("the lead stolen and stolen back", async () => {
    const table = new Lockstep(await newGame({
      rules: { variant: "hue" },
      deal: hands("3S 3C KH", "AS AC 10S", "4S 4C 5S 5C 6S 6C 10C", "7S 7C 8S 8C 9S 9C 10D"),
      firstGame: false,
      leader: 0,
    }));
    assert.ok(table.unary.view!.stealOpen);
    await table.move(2, "4S 4C 5S 5C 6S 6C".split(" "));
    await table.move(3, "7S 7C 8S 8C 9S 9C".split(" "));
    assert.equal(table.seen.get("steal"), 2);
    assert.ok(table.unary.view!.stealOpen);
    for (const seat of [0, 1, 2]) await table.move(seat, null);
    assert.ok(!table.unary.view!.stealOpen);
    await table.playOut(randomFrom("4"));
  });

  for (const open of ["true", "false"]) {
    test(`the winner's own lead of three consecutive pairs, steal_winner_pairs_lead ${open}`, async () => {
      const table = new Lockstep(await newGame({
        rules: { variant: "hue", options: { steal_winner_pairs_lead: open } },
        deal: hands("3S 3C 4S 4C 5S 5C KH", "AS AC 10S", "7S 7C 8S 8C 9S 9C 10C", "JD QD 10D"),
        firstGame: false,
        leader: 0,
      }));
      await table.move(0, "3S 3C 4S 4C 5S 5C".split(" "));
      assert.equal(table.unary.view!.stealOpen, open === "true");
      if (open === "true") {
        await table.move(2, "7S 7C 8S 8C 9S 9C".split(" ")); // out of turn: a steal
        assert.equal(table.seen.get("steal"), 1);
      } else {
        await table.move(1, null);
        await table.move(2, "7S 7C 8S 8C 9S 9C".split(" ")); // in turn: an ordinary beat
        assert.equal(table.seen.get("steal") ?? 0, 0);
      }
      await table.playOut(randomFrom("9"));
    });
  }

  test("a play reopens every seat without pass lockout", async () => {
    const table = new Lockstep(await newGame({ rules: { options: { pass_lockout: "false" } }, deal: hands("3S 5S 9S KS", "4S 6S 10S AS", "4C 7S JS 2S", "4D 8S QS 2C") }));
    await table.move(0, ["3S"]);
    await table.move(1, null);
    assert.ok(table.unary.view!.seats[1]!.passed);
    await table.move(2, ["4C"]);
    assert.ok(!table.unary.view!.seats[1]!.passed);
    await table.move(3, ["4D"]);
    await table.move(0, ["5S"]);
    await table.move(1, ["6S"]); // seat 1 passed earlier in this round and plays again
    await table.playOut(randomFrom("5"));
  });

  test("other dealers and starting cards", async () => {
    const table = new Lockstep(await newGame({ rules: { variant: "dau" }, deal: hands("4S 9C", "5D 2H", "6H KD"), dealer: 2 }));
    await table.playOut(randomFrom("6"));
    await table.nextGame({ case: "seed", value: 11n });
    await table.playOut(randomFrom("7"));
  });

  test("the twos laid down at a deal are followed", async () => {
    const table = new Lockstep(await newGame({ rules: { variant: "northern", options: { four_threes_lay_down_twos: "true" } }, deal: hands("3S", "4S") }));
    await table.move(0, ["3S"]);
    await table.nextGame(hands("3S 3C 3D 3H 5S", "2S 6S 7S"));
    await table.playOut(randomFrom("8"));
  });
});

// --- when the events can't be followed ------------------------------------------------------

describe("when the table can't be followed", () => {
  test("an answer that cannot be followed gets its view from GetView, with a warning", async () => {
    const { game, tokens } = await newGame({ deal: hands("3S 9S", "4S 10S", "5S JS", "6S QS") });
    const wanted = await full.play(game, 0, tokens[0]!, ["3S"]);
    const getViews = await handled("GetView");
    basic.warnings.length = 0;
    // As a newer service would answer: an event of a kind this client's generated code lacks.
    basic.alter = (update) => update.events.push(create(EventSchema));
    let answers: GameUpdate[];
    try {
      answers = [await basic.play(game, 0, tokens[0]!, ["3S"]), await stream.play(game, 0, tokens[0]!, ["3S"])];
    } finally {
      basic.alter = undefined;
    }
    assert.deepEqual(basic.answeredWithView.slice(-2), [false, false]);
    assert.deepEqual(basic.warnings, [CANNOT_FOLLOW_WARNING, CANNOT_FOLLOW_WARNING]);
    assert.equal((await handled("GetView")) - getViews, 2, "the unary call's and the stream's");
    for (const answer of answers) assert.ok(equals(TableViewSchema, answer.view!, wanted.view!), diff(answer.view, wanted.view));
  });

  test("a game holding a seat's view is answered with the full view", async () => {
    const { game, tokens } = await newGame({ deal: hands("3S 9S", "4S 10S", "5S JS", "6S QS") });
    const seated = clone(GameUpdateSchema, game);
    seated.view = (await full.getView({ stateToken: game.stateToken, seat: 0, seatToken: tokens[0]! })).view;
    const wanted = await full.play(game, 0, tokens[0]!, ["3S"]);
    assertSameGame(await basic.play(seated, 0, tokens[0]!, ["3S"]), wanted, "after the unary move");
    assertSameGame(await stream.play(seated, 0, tokens[0]!, ["3S"]), wanted, "after the streamed move");
    assert.deepEqual(basic.answeredWithView.slice(-2), [true, true]);
  });

  test("a game from a service older than followRules is answered with the full view", async () => {
    const { game, tokens } = await newGame({ deal: hands("3S 9S", "4S 10S", "5S JS", "6S QS") });
    const old = clone(GameUpdateSchema, game);
    old.view!.followRules = undefined;
    const wanted = await full.play(game, 0, tokens[0]!, ["3S"]);
    const [getViews, describes] = [await handled("GetView"), await handled("DescribeRules")];
    assertSameGame(await basic.play(old, 0, tokens[0]!, ["3S"]), wanted, "after the unary move");
    assertSameGame(await stream.play(old, 0, tokens[0]!, ["3S"]), wanted, "after the streamed move");
    assert.deepEqual(basic.answeredWithView.slice(-2), [true, true]);
    assert.deepEqual([(await handled("GetView")) - getViews, (await handled("DescribeRules")) - describes], [0, 0]);
  });

  test("updateView is chosen per client, per stream or per move", async () => {
    const { game, tokens } = await newGame({ deal: hands("3S 9S", "4S 10S", "5S JS", "6S QS") });
    await full.play(game, 0, tokens[0]!, ["3S"]);
    assert.equal(full.lastHadView, true); // the default: today's answers
    await full.play(game, 0, tokens[0]!, ["3S"], { updateView: "basic" });
    assert.equal(full.lastHadView, false);
    await basic.pass(await basic.play(game, 0, tokens[0]!, ["3S"]), 1, tokens[1]!, { updateView: "full" });
    assert.deepEqual(basic.answeredWithView.slice(-2), [false, true]);
    await stream.pass(await stream.play(game, 0, tokens[0]!, ["3S"]), 1, tokens[1]!, { updateView: "full" });
    assert.deepEqual(basic.answeredWithView.slice(-2), [false, true]);
    // A stream's default is its client's, or its own (a stream opens at its first move: these
    // two, never used, hold no stream slot).
    assert.deepEqual([full.playStream().updateView, full.playStream({ updateView: "basic" }).updateView], ["full", "basic"]);
    await assert.rejects(full.play(game, 0, tokens[0]!, ["3S"], { updateView: "none" as never }), TypeError);
    await assert.rejects(stream.play(game, 0, tokens[0]!, ["3S"], { updateView: "none" as never }), TypeError);
    assert.throws(() => full.playStream({ updateView: "partial" as never }), TypeError);
    assert.throws(() => new WireClient("127.0.0.1:1", { updateView: "partial" as never }), TypeError);
  });
});

// --- the fold itself ------------------------------------------------------------------------

describe("the fold", () => {
  function spectatorView(players = 2, followRules: { passLockout?: boolean; leadStealing?: boolean } = {}): TableView {
    return create(TableViewSchema, {
      players,
      seats: Array.from({ length: players }, (_, seat) => ({ seat, cardsLeft: 13 })),
      toAct: 0,
      followRules: create(FollowRulesSchema, { passLockout: true, ...followRules }),
    });
  }

  function single(seat: number, cardsLeft: number): Event {
    return create(EventSchema, {
      kind: { case: "played", value: create(PlayedSchema, { seat, cardsLeft, combination: { type: CombinationType.SINGLE, length: 1 } }) },
    });
  }

  function turn(seat: number): Event {
    return create(EventSchema, { kind: { case: "turnPassed", value: create(TurnPassedSchema, { seat }) } });
  }

  function update(events: Event[], toAct?: number): GameUpdate {
    return create(GameUpdateSchema, { events, toAct });
  }

  test("every field of the view is followed", () => {
    // A field added to TableView or SeatStatus must be followed (follow.ts) before basic
    // answers can be trusted to keep it right.
    assert.deepEqual(new Set(TableViewSchema.fields.map((f) => f.localName)), FOLLOWED_FIELDS);
    assert.deepEqual(new Set(SeatStatusSchema.fields.map((f) => f.localName)), FOLLOWED_SEAT_FIELDS);
  });

  test("an event of a kind this client does not know cannot be followed", () => {
    const unknown = fromBinary(EventSchema, new Uint8Array([0xca, 0x0c, 0x00])); // field 201, empty
    assert.equal(unknown.kind.case, undefined);
    assert.throws(() => advance(spectatorView(), update([unknown], 0)), (e: unknown) => e instanceof CannotFollow && /does not know/.test(e.message));
  });

  test("events that disagree with the answer cannot be followed", () => {
    assert.throws(() => advance(spectatorView(), update([turn(1)], 0)), (e: unknown) => e instanceof CannotFollow && /toAct/.test(e.message));
  });

  test("a seat's view cannot be followed", () => {
    const seated = spectatorView();
    seated.seat = 0;
    assert.throws(() => advance(seated, update([], 0)), (e: unknown) => e instanceof CannotFollow && /spectator/.test(e.message));
  });

  test("a view without followRules cannot be followed", () => {
    const old = spectatorView();
    old.followRules = undefined;
    assert.throws(() => advance(old, update([], 0)), (e: unknown) => e instanceof CannotFollow && /followRules/.test(e.message));
  });

  for (const passLockout of [true, false]) {
    test(`whether a play clears every pass is the view's passLockout (${passLockout})`, () => {
      // The value in the view decides, whatever the preset's name: a deployment that changed
      // the preset answers with the changed value.
      const before = spectatorView(3, { passLockout });
      before.rules = create(RuleSetSpecSchema, { variant: "southern" }); // pass lockout in the preset as this client knew it
      before.seats[1]!.passed = true;
      const after = advance(before, update([single(0, 12), turn(2)], 2));
      assert.equal(after.seats[1]!.passed, passLockout);
      assert.ok(equals(FollowRulesSchema, after.followRules!, before.followRules!)); // carried to the next answer
    });
  }

  for (const leadStealing of [true, false]) {
    test(`whether a deal opens the lead to stealing is the view's leadStealing (${leadStealing})`, () => {
      const before = spectatorView(2, { leadStealing });
      before.finished = true;
      before.toAct = undefined;
      const dealt = create(GameStartedSchema, { gameNumber: 2, leader: 1, handSizes: [13, 13] });
      const after = advance(before, update([create(EventSchema, { kind: { case: "gameStarted", value: dealt } })], 1), [100n, -100n]);
      assert.equal(after.stealOpen, leadStealing);
      assert.deepEqual(after.seats.map((s) => s.matchTotal), [100n, -100n]);
    });
  }

  test("advance leaves its inputs unchanged", () => {
    const before = spectatorView();
    const kept = clone(TableViewSchema, before);
    const after = advance(before, update([single(0, 12), turn(1)], 1));
    assert.ok(equals(TableViewSchema, before, kept));
    assert.deepEqual([after.toAct, after.seats[0]!.cardsLeft, after.moveCount], [1, 12, 1]);
  });
});
