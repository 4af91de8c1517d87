// The READMEs' TypeScript samples, run as written against the real server: the lines between
// each pair of markers are a README's block, with the server's address for "127.0.0.1:50051"
// (tests/test_readme.py checks the READMEs hold them): the repository README's PlayStream
// sample, and the Node client README's full game, whose console.log lines must print what
// their comments say (test/package.test.ts runs that one again as plain JavaScript, in a fresh
// npm project where the packed client is installed). The client is imported by its package
// name, as a user would.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { MoveRejected, TienLenClient, TienLenError } from "@tienlen/engine-client";
import { startServer, type RunningServer } from "../src/server.js";
import { printedAsCommented } from "./support.js";

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
    const dealt = await Promise.all([...Array(100).keys()].map((seed) => client.newGame({ players: 4, seed })));
    const tables = dealt.filter((game) => !game.finished);            // (an instant win ends a deal)
    const games = await Promise.all(tables.map((game) =>              // all in flight at once
      stream.play(game, game.toAct!, ["3S"])));                       // each leader opened with ♠3
    // README sample end
    answered = {
      tables: tables.length,
      games: games.length,
      opened: games.map((game) => game.events.some((e) => e.kind === "played")),
    };
    await stream.close();
    client.close();
  }
  assert.ok(answered.tables > 90, `${answered.tables} of 100 deals left to play`);
  assert.equal(answered.games, answered.tables);
  assert.ok(answered.opened.every(Boolean));
});

test("the Node client README's full game prints what its comments say", { timeout: 120_000 }, async () => {
  const printed: string[] = [];
  const log = console.log;
  console.log = (...values: unknown[]) => void printed.push(values.map(String).join(" "));
  try {
    // client README sample begin
    const client = new TienLenClient(server.address);
    const hands = ["3S 4S 5D 9C", "6C 7D 8H 10D JC", "7S 8S 9S 2S QH", "3C 3D 4C 4D 5S 5C 6S"];
    let game = await client.newGame({ hands });                 // or { players: 4, seed: 7 }
    console.log(game.toAct, game.seatTokens.length);            // 0 4 — a token per seat: give each player theirs
    try {
      await client.play(game, 0, "4S");
    } catch (error) {
      if (!(error instanceof MoveRejected)) throw error;
      console.log(error.codeName, error.reason);                // FAILED_PRECONDITION MUST_INCLUDE_STARTING_CARD
    }
    game = await client.play(game, 0, "3S 4S 5D");              // a straight, with ♠3
    console.log(game.view.table?.type, game.toAct);             // STRAIGHT 1
    game = await client.play(game, 1, ["6C", "7D", "8H"]);      // a higher straight: text or a list
    game = await client.pass(game, 2);
    game = await client.pass(game, 3);
    game = await client.pass(game, 0);                          // everyone else passed: seat 1 leads
    game = await client.play(game, 1, "10D");
    game = await client.play(game, 2, "2S");                    // a 2 (heo) ...
    game = await client.play(game, 3, "3C 3D 4C 4D 5S 5C");     // ... chopped (chặt) by 3 consecutive pairs
    console.log(game.events.map((e) => e.kind).join(" "));      // played turnPassed
    game = await client.pass(game, 0);
    game = await client.pass(game, 1);
    game = await client.pass(game, 2);                          // the chain ends: seat 2 pays seat 3
    console.log(game.events.map((e) => e.kind).join(" "));      // passed chopSettled roundWon turnPassed
    game = await client.play(game, 3, "6S");                    // seat 3 goes out first
    game = await client.play(game, 0, "9C");
    game = await client.play(game, 1, "JC");                    // seat 2 is last
    const { settlement } = game;
    console.log(game.finished, settlement?.places.join(" "));   // true 2 3 4 1
    console.log(settlement?.net.join(" "));                     // 100 -100 -250 250
    console.log(JSON.stringify(settlement?.transfers[0]));      // {"payer":2,"payee":3,"amount":50,"reason":"CHOP","cards":["2S"],"owed":0}
    console.log((await client.view(game, 2)).hand.join(" "));   // 7S 8S 9S QH — seat 2's own cards only
    try {
      await client.play(game, 0, "3X");
    } catch (error) {
      if (!(error instanceof TienLenError)) throw error;
      console.log(error.name, error.reason);                    // CardTextError INVALID_CARD
    }
    game = await client.nextGame(game, { seed: 7 });            // a seed is a plain number
    console.log(game.toAct);                                    // 3 — the winner leads game 2
    while (!game.finished) {                                    // the service's bot plays every seat
      const seat = game.toAct ?? 0;
      const move = await client.suggest(game, seat);
      game = move === null || move.isPass ? await client.pass(game, seat) : await client.play(game, seat, move.cards);
    }
    console.log(game.settlement?.net.reduce((sum, chips) => sum + chips, 0));  // 0 — chips change hands
    client.close();
    // client README sample end
  } finally {
    console.log = log;
  }
  const source = readFileSync(new URL("../../test/readme-sample.test.ts", import.meta.url), "utf8");
  const block = source.slice(source.indexOf("// client README sample begin"), source.indexOf("// client README sample end"));
  printedAsCommented(block, printed);
});
