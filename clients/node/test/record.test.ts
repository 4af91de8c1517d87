// Game records in the Node client: the text form (formatRecord / parseRecord, errors with the
// line and column), GameRecorder's record of a followed game, and ReplayGame (replayRecord)
// against the real server: seeded games of every preset replay to the same settlement.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { cardText } from "../src/cards.js";
import { TienLenClient } from "../src/client.js";
import { MoveRejected, TienLenError } from "../src/errors.js";
import type { Game } from "../src/models.js";
import {
  formatMatch,
  formatRecord,
  GameRecorder,
  parseMatch,
  parseRecord,
  RecordMoveRejected,
  RecordParseError,
  replayRecord,
} from "../src/record.js";
import { startServer, type RunningServer } from "../src/server.js";
import { choice, randomFrom } from "./support.js";

let server: RunningServer;
let client: TienLenClient;

before(async () => {
  server = await startServer();
  client = new TienLenClient(server.address);
});
after(async () => {
  client?.close();
  await server?.stop();
});

// The example of tests/client/test_records.py: both clients read and write the same text.
const GOOD = `[Variant "southern"]
[Players "2"]
[Dealer "0"]
[Leader "0"]
[FirstGame "true"]
[Game "1"]
[Totals "0 0"]
[Hand0 "3S 9S"]
[Hand1 "4S 10S"]

1. 0: 3S
2. 1: 4S
3. 0: pass
4. 1: 10S

[Result "over"]
[Places "2 1"]
[Transfer "0 1 200 PLACE"]
[Net "-200 200"]
`;

const PRESETS = ["southern", "northern", "hue", "da_nang", "dau", "dem_la"];
const MAX_MOVES = 500;

/** A seeded game played to its end with random legal moves, followed by a GameRecorder. */
async function playRecorded(variant: string, seed: number): Promise<{ end: Game; recorder: GameRecorder }> {
  const rng = randomFrom(`${variant}-${seed}`);
  const players = variant === "dau" ? 3 : choice(rng, [2, 3, 4]);
  let game = await client.newGame({ variant, players, seed });
  const hands: string[][] = [];
  for (let seat = 0; seat < players; seat++) hands.push((await client.view(game, seat)).hand);
  const recorder = new GameRecorder(game, hands);
  for (let i = 0; i < MAX_MOVES && !game.finished; i++) {
    const seat = game.toAct!;
    const chosen = choice(rng, await client.legalMoves(game, seat));
    const updateView = choice(rng, ["full", "basic"] as const);
    game = chosen.isPass ? await client.pass(game, seat, { updateView }) : await client.play(game, seat, chosen.cards, { updateView });
    recorder.follow(game);
  }
  assert.ok(game.finished, "the game ended");
  return { end: game, recorder };
}

test("seeded games of every preset replay from their record text to the same settlement", { timeout: 240_000 }, async () => {
  for (const variant of PRESETS) {
    for (let seed = 0; seed < 2; seed++) {
      const { end, recorder } = await playRecorded(variant, seed);
      const text = formatRecord(recorder.record());
      const parsed = parseRecord(text);
      assert.equal(formatRecord(parsed), text, "the text round-trips exactly");
      const game = await replayRecord(client, text);
      assert.ok(game.finished);
      assert.equal(game.seatTokens.length, parsed.players);
      // The same settlement, marked: the service replayed the record (anyone may write one).
      assert.equal(game.settlement?.replayed, true);
      assert.equal(game.view.replayed, true);
      assert.deepEqual({ ...game.settlement, replayed: false }, end.settlement, `${variant} ${seed}: the same settlement`);
      const marked = formatRecord({ ...parsed, replayed: true });
      assert.ok(marked.includes('[Replayed "true"]'));
      assert.equal(parseRecord(marked).replayed, true);
      assert.equal(formatRecord(parseRecord(marked)), marked, "a replayed record round-trips exactly");
    }
  }
});

test("a first lead whose 3S becomes 2H is refused at move 1", { timeout: 60_000 }, async () => {
  const { recorder } = await playRecorded("southern", 11);
  const lines = formatRecord(recorder.record()).split("\n");
  const first = lines.findIndex((line) => line.startsWith("1. "));
  assert.ok(lines[first]!.split(":")[1]!.split(" ").includes("3S"));
  lines[first] = lines[first]!.replace("3S", "2H");
  await assert.rejects(replayRecord(client, lines.join("\n")), (error: unknown) => {
    assert.ok(error instanceof RecordMoveRejected);
    assert.ok(error instanceof MoveRejected);
    assert.equal(error.moveNumber, 1);
    assert.ok(["MUST_INCLUDE_STARTING_CARD", "CARD_NOT_IN_HAND"].includes(error.moveReason), error.moveReason);
    assert.equal(error.reason, "RECORD_ILLEGAL_MOVE");
    assert.equal(error.field, "record.moves[0].cards");
    return true;
  });
});

test("the example record reads, writes back exactly, and replays", { timeout: 30_000 }, async () => {
  const record = parseRecord(GOOD);
  assert.equal(formatRecord(record), GOOD);
  assert.deepEqual(record.hands.map((h) => h.cards.map(cardText)), [["3S", "9S"], ["4S", "10S"]]);
  assert.equal(record.moves[2]!.passTurn, true);
  const game = await replayRecord(client, record);
  assert.deepEqual(game.settlement!.net, [-200, 200]);
  const loose = GOOD.replace("3S 9S", "9s 3♠").replace("4. 1: 10S", "; the last card\n4.   1:  TS");
  assert.equal(formatRecord(parseRecord(loose)), GOOD);
  const match = parseMatch(GOOD + "\n" + GOOD);
  assert.equal(match.games.length, 2);
  assert.equal(formatMatch(match), GOOD + "\n" + GOOD);
});

test("a record's own tags are kept and written back, the standard ones first", () => {
  const loose = '[Table "4"]\n[Date "2026.02.??"]\n' + GOOD.replace("[Dealer", '[Event "Tết \\"at home\\""]\n[Dealer');
  const record = parseRecord(loose);
  assert.deepEqual(
    record.tags.map((t) => [t.name, t.value]),
    [["Event", 'Tết "at home"'], ["Date", "2026.02.??"], ["Table", "4"]],
  );
  const text = formatRecord(record);
  assert.equal(text, '[Event "Tết \\"at home\\""]\n[Date "2026.02.??"]\n[Table "4"]\n' + GOOD);
  assert.equal(formatRecord(parseRecord(text)), text);
});

test("a stated result the replay does not reach is refused with the field", { timeout: 30_000 }, async () => {
  await assert.rejects(replayRecord(client, GOOD.replace('[Net "-200 200"]', '[Net "200 -200"]')), (error: unknown) => {
    assert.ok(error instanceof TienLenError);
    assert.equal(error.reason, "RECORD_RESULT_MISMATCH");
    assert.deepEqual(error.fieldViolations, ["record.result.net"]);
    return true;
  });
});

const MALFORMED: [string, string, number, number, string][] = [
  ["a seat of no table", GOOD.replace("[Dealer", "[Hand7"), 3, 2, "the seat tags are"],
  ["a date not as PGN writes it", '[Date "17 Feb 2026"]\n' + GOOD, 1, 8, "YYYY.MM.DD"],
  ["a tag twice", '[Event "a"]\n[Event "b"]\n' + GOOD, 2, 2, "[Event] given twice"],
  ["a card that does not exist", GOOD.replace("4S 10S", "4S 11S"), 9, 12, "unknown rank '11'"],
  ["a card dealt twice", GOOD.replace("4S 10S", "4S 9S"), 9, 12, "9S is dealt twice"],
  ["a move by a seat not at the table", GOOD.replace("2. 1: 4S", "2. 5: 4S"), 12, 4, "seat 5 is not at this table"],
  ["cut after a move", GOOD.slice(0, GOOD.indexOf("[Result")), 14, 1, "cut short"],
  ["cut inside the result", GOOD.slice(0, GOOD.indexOf("[Net")), 16, 10, "no [Net] tag"],
  ["cut in a tag", GOOD.slice(0, GOOD.indexOf("10S") + 1), 9, 1, "a closing quote"],
  ["a bad reason", GOOD.replace("200 PLACE", "200 BRIBE"), 18, 20, "unknown reason"],
  ["nothing", "", 1, 1, "no game"],
];

for (const [name, text, line, column, words] of MALFORMED) {
  test(`a malformed record is refused with its line and column: ${name}`, () => {
    assert.throws(
      () => parseRecord(text),
      (error: unknown) => {
        assert.ok(error instanceof RecordParseError);
        assert.deepEqual([error.line, error.column], [line, column], error.message);
        assert.ok(error.detail.includes(words), error.detail);
        return true;
      },
    );
  });
}

test("record-text's card and reason tables are the contract's Rank, Suit and TransferReason numbers", async () => {
  // record-text.ts holds no generated code (the web table bundles it): its tables must agree.
  const { RANKS, SUITS, TRANSFER_REASONS, cardOf, recordCardText } = await import("../src/record-text.js");
  const { Rank, Suit } = await import("../gen/tienlen/v1/cards_pb.js");
  const { TransferReason } = await import("../gen/tienlen/v1/settlement_pb.js");
  const names = (e: object) => Object.keys(e).filter((k) => Number.isNaN(Number(k)) && k !== "UNSPECIFIED");
  assert.equal(RANKS.length, names(Rank).length);
  assert.equal(SUITS.length, names(Suit).length);
  assert.deepEqual(TRANSFER_REASONS, names(TransferReason));
  TRANSFER_REASONS.forEach((name, i) => assert.equal(TransferReason[name as keyof typeof TransferReason], i + 1));
  for (const rank of RANKS) {
    for (const suit of SUITS) {
      const card = cardOf(rank + suit);
      assert.equal(cardText({ rank: card.rank as never, suit: card.suit as never }), rank + suit);
      assert.equal(recordCardText(card), rank + suit);
    }
  }
});
