// The README's TypeScript sample (many tables over one PlayStream), run as written against the
// real server: the lines between the markers are the README's block, with the server's address
// for "127.0.0.1:50051" (tests/client/test_readme_samples.py checks the README holds them).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TienLenClient } from "../src/client.js";
import { startServer, type RunningServer } from "../src/server.js";

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
