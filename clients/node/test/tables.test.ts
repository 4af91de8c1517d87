// The Node client at a table of people (RULES §9, docs/HOSTS.md), against the contract server
// (which checks seat tokens and has the deal key this process's clients send): seat changes
// between games and the newcomers' seat tokens, time-outs, auto and leaves, the host's chop
// seats, bad input as the client's typed errors, the compare-and-set keys in a Game's JSON, basic
// answers followed at a live table, and records with the people's tags. The Node twin of
// tests/client/test_tables.py, test_table_records.py and test_update_view_tables.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { TienLenClient, type MoveStream } from "../src/client.js";
import { InvalidRequest, MoveRejected, PermissionDenied, TienLenError } from "../src/errors.js";
import type { Game } from "../src/models.js";
import { formatMatch, formatRecord, GameRecorder, parseMatch, parseRecord, replayRecord } from "../src/record.js";
import { REPO, startServer, type RunningServer } from "../src/server.js";
import { choice, randomFrom } from "./support.js";

let server: RunningServer;
let host: TienLenClient;

before(async () => {
  server = await startServer();
  host = new TienLenClient(server.address);
});
after(async () => {
  host?.close();
  await server?.stop();
});

const HANDS = ["3S 9S KD", "4S 10S KH", "5S JS AS", "6S QS AD"];
const IDS = ["an", "binh", "chi", "dung"];

/** The error `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<TienLenError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof TienLenError, `not a TienLenError: ${String(error)}`);
  return error;
}

/** The game played out by time-outs (each seat passes or leads its lowest single). */
async function finished(game: Game): Promise<Game> {
  for (let i = 0; i < 200 && !game.finished; i++) game = await host.timeout(game, game.toAct!);
  assert.ok(game.finished, "the game did not end");
  return game;
}

/** A first game of HANDS played through: seat 0 goes out first, on its king of diamonds. */
async function firstGameOver(bankrolls?: number[]): Promise<Game> {
  let game = await host.newGame({ hands: HANDS, playerIds: IDS, bankrolls });
  for (const [seat, cards] of [[0, "3S"], [1, "4S"], [2, "5S"], [3, "6S"], [0, "9S"], [1, "10S"], [2, "JS"], [3, "QS"], [0, "KD"]] as const) {
    game = await host.play(game, seat, cards);
  }
  return finished(game);
}

test("a leaver and a newcomer between games: em's token is em's own, binh's is refused", async () => {
  const before = await firstGameOver();
  const game = await host.nextGame(before, { seed: 7, leaving: [1], joining: [{ seat: 1, playerId: "em" }] });
  assert.deepEqual(game.events.slice(0, 2), [
    { kind: "seatVacated", seat: 1, playerId: "binh", total: before.settlement!.net[1] },
    { kind: "seatTaken", seat: 1, playerId: "em" },
  ]);
  assert.deepEqual(game.view.seats.map((s) => s.playerId), ["an", "em", "chi", "dung"]);
  assert.equal(game.view.seats[1]!.matchTotal, 0);
  assert.ok(![before.seatTokens[1], ""].includes(game.seatTokens[1]!));
  assert.deepEqual([0, 2, 3].map((s) => game.seatTokens[s]), [0, 2, 3].map((s) => before.seatTokens[s]));
  assert.deepEqual([game.toAct, game.view.firstGame], [0, false]); // seat 0 won: it leads
  assert.equal((await host.view(game, 1)).seat, 1);
  const withBinhs = { ...game, seatTokens: [game.seatTokens[0]!, before.seatTokens[1]!, ...game.seatTokens.slice(2)] };
  const refused = await refusal(host.view(withBinhs, 1));
  assert.ok(refused instanceof PermissionDenied);
  assert.equal(refused.reason, "SEAT_TOKEN_INVALID");
});

test("when the winner leaves, the next game is a first game", async () => {
  const game = await host.nextGame(await firstGameOver(), { seed: 7, leaving: [0] });
  assert.deepEqual([game.view.firstGame, game.view.mustInclude, game.view.seats[0]!.empty, game.seatTokens[0]], [true, "3S", true, ""]);
});

test("bad seat changes are the client's typed errors and change nothing", async () => {
  const game = await firstGameOver();
  const cases: [Parameters<TienLenClient["nextGame"]>[1], string][] = [
    [{ joining: [{ seat: 0, playerId: "em" }] }, "SEAT_TAKEN"],
    [{ leaving: [1], joining: [{ seat: 1, playerId: "an" }] }, "DUPLICATE_PLAYER_ID"],
    [{ leaving: [0, 1, 2, 3] }, "NOBODY_STAYS"],
    [{ leaving: [0, 1, 2] }, "INVALID_PLAYER_COUNT"],
  ];
  for (const [changes, reason] of cases) {
    const refused = await refusal(host.nextGame(game, { seed: 7, ...changes }));
    assert.ok(refused instanceof InvalidRequest, reason);
    assert.equal(refused.reason, reason);
  }
  assert.equal((await host.nextGame(game, { seed: 7 })).gameNumber, 2);
  const during = await refusal(host.nextGame(await host.newGame({ hands: HANDS }), { leaving: [1] }));
  assert.ok(during instanceof MoveRejected);
  assert.equal(during.reason, "GAME_NOT_OVER");
  const emptied = await finished(await host.nextGame(game, { seed: 7, leaving: [3] }));
  const nobody = await refusal(host.nextGame(emptied, { leaving: [3] })); // refused before any call
  assert.deepEqual([nobody instanceof InvalidRequest, nobody.reason, nobody.metadata.seat], [true, "INVALID_SEAT", "3"]);
});

test("bankrolls: below the minimum is refused naming the seat; a cut payment says what was owed", async () => {
  const low = await refusal(host.newGame({ variant: "dem_la", players: 4, seed: 1, bankrolls: [5000, 5000, 5000, 1500] }));
  assert.ok(low instanceof MoveRejected);
  assert.deepEqual([low.reason, low.metadata.seat, low.metadata.shortfall], ["BANKROLL_TOO_LOW", "3", "500"]);
  const negative = await refusal(host.newGame({ hands: HANDS, bankrolls: [100, 100, -1, 100] }));
  assert.deepEqual([negative instanceof InvalidRequest, negative.reason], [true, "INVALID_BANKROLL"]);
  const game = await firstGameOver([5000, 5000, 5000, 100]);
  const cut = game.settlement!.transfers.filter((t) => t.owed > 0);
  assert.ok(cut.length > 0 && cut.every((t) => t.payer === 3 && t.amount < t.owed));
  const next = await host.nextGame(game, { seed: 7, leaving: [1], joining: [{ seat: 1, playerId: "em", bankroll: 3000 }] });
  assert.equal(next.view.seats[1]!.bankroll, 3000);
  const bought = await host.nextGame(await finished(next), { seed: 8, bankrolls: [6000, 6000, 6000, 6000] });
  assert.deepEqual(bought.view.seats.map((s) => s.bankroll), [6000, 6000, 6000, 6000]);
});

test("time-outs put a seat on auto and its own move takes it off; leaves play out, or are refused", async () => {
  let game = await host.newGame({ hands: HANDS, playerIds: IDS });
  game = await host.timeout(game, 0);
  assert.deepEqual(game.events[0], { kind: "timedOut", seat: 0, timeouts: 1 });
  for (const [seat, cards] of [[1, "4S"], [2, "5S"], [3, "6S"]] as const) game = await host.play(game, seat, cards);
  game = await host.timeout(game, 0);
  assert.ok(game.events.some((e) => e.kind === "autoPlay" && e.seat === 0 && e.on));
  assert.ok(game.view.seats[0]!.auto);
  game = await host.pass(await host.pass(game, 1), 2);
  game = await host.play(await host.play(game, 3, "QS"), 0, "KD");
  assert.ok(game.events.some((e) => e.kind === "autoPlay" && !e.on));
  assert.deepEqual([game.view.seats[0]!.auto, game.view.seats[0]!.timeouts], [false, 0]);
  const notToAct = await refusal(host.timeout(game, 2));
  assert.deepEqual([notToAct instanceof MoveRejected, notToAct.reason], [true, "NOT_YOUR_TURN"]);

  let left = await host.leave(await host.newGame({ hands: HANDS }), 3);
  assert.deepEqual(left.events[0], { kind: "playerLeft", seat: 3, forfeit: false, place: 0 });
  assert.ok(left.view.seats[3]!.left && left.view.seats[3]!.auto);
  for (const [seat, cards] of [[0, "3S"], [1, "4S"], [2, "5S"]] as const) left = await host.play(left, seat, cards);
  assert.equal((await refusal(host.play(left, 3, "6S"))).reason, "SEAT_LEFT");
  const refused = await refusal(host.leave(await host.newGame({ hands: HANDS, options: { leave_mid_game: "refuse" } }), 1));
  assert.deepEqual([refused instanceof MoveRejected, refused.reason], [true, "LEAVE_REFUSED"]);
});

test("the host is told the chop seats in claim order; a client without the deal key is not", async () => {
  let game = await host.newGame({ hands: ["3S 2H KD", "4S 4C 5S 5C 6S 6C 7S 7C KH", "5D AS", "8S 8C 9S 9C 10S 10C JS JC QD"] });
  game = await host.play(game, 0, "3S");
  game = await host.pass(game, 1);
  game = await host.play(await host.play(game, 2, "5D"), 3, "QD");
  game = await host.play(game, 0, "2H");
  assert.deepEqual([game.chopSeats, game.chopOpen], [[1, 3], true]);
  assert.deepEqual((await host.view(game)).chopSeats, [1, 3]);
  const other = new TienLenClient(server.address, { dealKey: "" });
  try {
    const view = await other.view(game);
    assert.deepEqual([view.chopSeats, view.chopOpen], [[], true]);
  } finally {
    other.close();
  }
});

test("gameId, gameNumber and moveNumber are in a Game's JSON, and a game from JSON plays on", async () => {
  const dealt = await host.newGame({ hands: HANDS });
  const stored = JSON.parse(JSON.stringify(dealt)) as Game;
  assert.ok(stored.gameId.length > 0);
  assert.deepEqual([stored.gameId, stored.gameNumber, stored.moveNumber], [dealt.gameId, 1, 0]);
  const after = await host.play(stored, 0, "3S");
  assert.deepEqual([after.gameId, after.gameNumber, after.moveNumber], [dealt.gameId, 1, 1]);
  const next = await host.nextGame(await finished(after), { seed: 1 });
  assert.deepEqual([next.gameId, next.gameNumber, next.moveNumber], [dealt.gameId, 2, 0]);
});

test("time-outs and leaves go over a move stream as over unary calls", async () => {
  const game = await host.newGame({ hands: HANDS, playerIds: IDS });
  const stream: MoveStream = host.playStream({ updateView: "basic" });
  let streamed: Game;
  try {
    streamed = await stream.leave(await stream.timeout(game, 0), 2);
  } finally {
    await stream.close();
  }
  const unary = await host.leave(await host.timeout(game, 0), 2);
  assert.deepEqual([streamed.view, streamed.events], [unary.view, unary.events]);
});

test("basic answers follow a table of people: time-outs, auto, leaves and seat changes", { timeout: 120_000 }, async () => {
  const basic = new TienLenClient(server.address, { updateView: "basic" });
  const seen = new Set<string>();
  try {
    for (const [variant, options] of [["southern", {}], ["southern", { leave_mid_game: "forfeit" }], ["dau", {}]] as const) {
      const rng = randomFrom(`${variant}-${JSON.stringify(options)}`);
      const players = variant === "dau" ? 3 : 4;
      let full = await host.newGame({ variant, players, seed: 3, options, playerIds: IDS.slice(0, players), bankrolls: Array(players).fill(4000) });
      let followed = full;
      for (let number = 1; number <= 3; number++) {
        for (let i = 0; i < 500 && !full.finished; i++) {
          const seat = full.toAct!;
          const playing = full.view.seats.filter((s) => !s.empty && !s.place).map((s) => s.seat);
          let move: (client: TienLenClient, game: Game) => Promise<Game>;
          if (full.view.seats[seat]!.auto || rng() < 0.3 || full.view.table === null) {
            move = (client, game) => client.timeout(game, seat); // on auto at once, or its clock ran out
          } else if (rng() < 0.05 && !full.view.seats.some((s) => s.left)) {
            const leaver = choice(rng, playing);
            move = (client, game) => client.leave(game, leaver);
          } else {
            const legal = choice(rng, await host.legalMoves(full, seat)); // its own move
            move = (client, game) => (legal.isPass ? client.pass(game, seat) : client.play(game, seat, legal.cards));
          }
          full = await move(host, full);
          followed = await move(basic, followed);
          assert.deepEqual({ ...followed, state: "" }, { ...full, state: "" });
          for (const event of followed.events) seen.add(event.kind);
        }
        if (number === 3) break;
        const seated = full.view.seats.filter((s) => !s.empty && !s.left).map((s) => s.seat);
        const leaving = variant === "dau" || seated.length < 3 ? [] : [choice(rng, seated)];
        const free = [...Array(variant === "dau" ? 3 : 4).keys()].filter((s) => !seated.includes(s) || leaving.includes(s));
        const joining = free.map((seat) => ({ seat, playerId: `new-${number}-${seat}`, bankroll: 3000 }));
        full = followed = await host.nextGame(full, { seed: number, leaving, joining });
        for (const event of full.events) seen.add(event.kind);
      }
    }
  } finally {
    basic.close();
  }
  for (const kind of ["timedOut", "autoPlay", "playerLeft", "seatVacated", "seatTaken"]) assert.ok(seen.has(kind), `never reached ${kind}`);
});

/** The Python client's tests' record of a table of people (the same text for both clients). */
const LIVE = readFileSync(join(REPO, "tests", "client", "live_table.tlr"), "utf8");

test("the people of a table, the host's moves and owed= read and write back exactly", () => {
  const record = parseRecord(LIVE);
  assert.equal(formatRecord(record), LIVE);
  assert.deepEqual([record.emptySeats, record.playerIds, record.bankrolls, record.timeouts, record.autoSeats], [
    [1], ["an", "", "chi", "em"], [4900n, 0n, 5300n, 100n], [1, 0, 0, 0], [0],
  ]);
  assert.deepEqual(record.hands[1]!.cards, []);
  assert.deepEqual([record.moves[2]!.timeout, record.moves[4]!.leave], [true, true]);
  assert.equal(record.result!.transfers[1]!.owed, 200n);
  for (const [text, where] of [
    [LIVE.replace('[Empty "1"]', '[Empty "1 1"]'), "line 8, column 11"],
    [LIVE.replace("[Auto", '[Hand1 "2S"]\n[Auto'), "line 14, column 2"],
    [LIVE.replace("owed=200", "owed=90"), "line 30, column 16"],
  ] as const) {
    assert.throws(() => parseRecord(text), (e: Error) => e.message.includes(where), where);
  }
});

test("a match with seat changes, time-outs and a leave records and replays to its settlements", async () => {
  let game = await host.newGame({ hands: HANDS, playerIds: IDS, bankrolls: [5000, 5000, 5000, 5000] });
  const first = new GameRecorder(game, HANDS);
  game = await host.timeout(game, 0);
  first.follow(game);
  for (const [seat, cards] of [[1, "4S"], [2, "5S"], [3, "6S"]] as const) first.follow((game = await host.play(game, seat, cards)));
  first.follow((game = await host.leave(game, 2)));
  while (!game.finished) first.follow((game = await host.timeout(game, game.toAct!)));
  const settled = [game.settlement];
  const hands = ["3C 8D", "", "5C 10D", "6C JD"];
  game = await host.nextGame(game, { hands, leaving: [1], joining: [{ seat: 2, playerId: "em", bankroll: 150 }] });
  const second = new GameRecorder(game, hands);
  while (!game.finished) second.follow((game = await host.timeout(game, game.toAct!)));
  settled.push(game.settlement);
  const text = formatMatch({ games: [first.record(), second.record()] } as never);
  assert.equal(formatMatch(parseMatch(text)), text);
  for (const part of ['[Empty "1"]', "timeout", "leave", "owed="]) assert.ok(text.includes(part), part);
  const games = parseMatch(text).games;
  for (let i = 0; i < games.length; i++) {
    const replayed = await replayRecord(host, games[i]!);
    // the same settlement, marked as a replay's (the deal came from the record, not the service)
    assert.deepEqual(replayed.settlement, { ...settled[i]!, replayed: true });
  }
});
