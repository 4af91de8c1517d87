// The READMEs' TypeScript samples, run as written against the real server: the lines between
// each pair of markers are a README's block, with the server's address for "127.0.0.1:50051"
// (tests/test_readme.py checks the READMEs hold them): the repository README's PlayStream
// sample, and the Node client README's full game, whose console.log lines must print what
// their comments say. The client is imported by its package name, as a user would.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { card, cardText, startServer, TienLenClient, TienLenError, TransferReason, type RunningServer } from "@tienlen/engine-client";

let server: RunningServer;

before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

test("the README's PlayStream sample runs and every leader opens with the three of spades", async () => {
  let answered: { tables: number; games: number; opened: boolean[] };
  {
    // README sample begin
    const client = new TienLenClient(server.address, { updateView: "basic" });
    await using stream = client.playStream();
    const dealt = await Promise.all([...Array(100).keys()].map((seed) =>
      client.newGame({ players: 4, deal: { case: "seed", value: BigInt(seed) } })));
    const tables = dealt.filter(({ game }) => !game!.finished);         // (an instant win ends a deal)
    const games = await Promise.all(tables.map(({ game, seatTokens }) => // all in flight at once
      stream.play(game!, game!.toAct!, seatTokens[game!.toAct!]!, ["3S"])));  // each leader opened with ♠3
    // README sample end
    answered = {
      tables: tables.length,
      games: games.length,
      opened: games.map((game) => game.events.some((e) => e.kind.case === "played")),
    };
    await stream.close();
    client.close();
  }
  assert.ok(answered.tables > 90, `${answered.tables} of 100 deals left to play`);
  assert.equal(answered.games, answered.tables);
  assert.ok(answered.opened.every(Boolean));
});

test("the Node client README's full game prints what its comments say", async () => {
  const printed: string[] = [];
  const log = console.log;
  console.log = (...values: unknown[]) => void printed.push(values.map(String).join(" "));
  try {
    // client README sample begin
    const client = new TienLenClient(server.address);
    const hands = ["3S 4S 5D 9C", "6C 7D 8H 10D JC", "7S 8S 9S 2S QH", "3C 3D 4C 4D 5S 5C 6S"];
    const dealt = await client.newGame({
      deal: { case: "explicit", value: { hands: hands.map((h) => ({ cards: h.split(" ").map(card) })) } },
    });
    const tokens = dealt.seatTokens;                            // one per seat: give each player theirs
    let game = dealt.game!;
    console.log(game.toAct);                                    // 0
    try {
      await client.play(game, 0, tokens[0]!, ["4S"]);
    } catch (error) {
      if (!(error instanceof TienLenError)) throw error;
      console.log(error.codeName, error.reason);                // FAILED_PRECONDITION MUST_INCLUDE_STARTING_CARD
    }
    const play = async (seat: number, cards: string[]) => (game = await client.play(game, seat, tokens[seat]!, cards));
    const pass = async (seat: number) => (game = await client.pass(game, seat, tokens[seat]!));
    await play(0, ["3S", "4S", "5D"]);                          // a straight, with ♠3
    await play(1, ["6C", "7D", "8H"]);                          // a higher straight
    await pass(2); await pass(3); await pass(0);                // everyone else passed: seat 1 leads
    await play(1, ["10D"]);
    await play(2, ["2S"]);                                      // a 2 (heo) ...
    await play(3, ["3C", "3D", "4C", "4D", "5S", "5C"]);        // ... chopped (chặt) by 3 consecutive pairs
    await pass(0); await pass(1); await pass(2);                // the chain ends: seat 2 pays seat 3
    await play(3, ["6S"]);                                      // seat 3 goes out first
    await play(0, ["9C"]);
    await play(1, ["JC"]);                                      // seat 2 is last
    console.log(game.finished, game.settlement!.places.join(" "));  // true 2 3 4 1
    console.log(game.settlement!.net.join(" "));                // 100 -100 -250 250
    for (const t of game.settlement!.transfers) {
      console.log(t.payer, "->", t.payee, t.amount, TransferReason[t.reason], t.cards.map(cardText).join(" "));
    }
    const seat2 = await client.getView({ stateToken: game.stateToken, seat: 2, seatToken: tokens[2]! });
    console.log(seat2.view!.hand.map(cardText).join(" "));      // 7S 8S 9S QH — seat 2's own cards only
    game = (await client.nextGame({ stateToken: game.stateToken, deal: { case: "seed", value: 7n } })).game!;
    console.log(game.toAct);                                    // 3 — the winner leads game 2
    client.close();
    // client README sample end
  } finally {
    console.log = log;
  }
  const source = readFileSync(new URL("../../test/readme-sample.test.ts", import.meta.url), "utf8");
  const block = source.slice(source.indexOf("// client README sample begin"), source.indexOf("// client README sample end"));
  const wanted = [...block.matchAll(/^\s*console\.log\(.*\);\s+\/\/ (.+?)\s*$/gm)].map((m) => m[1]!.split(" — ")[0]!);
  assert.ok(wanted.length >= 5);
  let at = 0;
  for (const line of wanted) {
    while (at < printed.length && printed[at] !== line) at += 1;
    assert.ok(at < printed.length, `should print ${JSON.stringify(line)} (in order); printed ${JSON.stringify(printed)}`);
    at += 1;
  }
});
