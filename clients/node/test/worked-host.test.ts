// docs/HOSTS.md's worked host, run as written against the real server: the lines between the
// markers are the page's TypeScript block (tests/test_readme.py checks the page holds exactly
// them, with the server's address for "127.0.0.1:50051", and its import lines are this file's). A
// 4-seat table plays a match of four games with the host's checks of totals, seat tokens and leads
// at each step: a bankroll refusal, a player leaving and a newcomer sitting down (once the winner,
// once not), time-outs, a seat on auto and back, a mid-game leave and an out-of-turn chop
// arbitrated from the host's view (chopSeats). The contract server checks seat tokens and has the
// deal key, which startServer hands to this process's clients (TIENLEN_DEAL_KEY), as a host's.
import assert from "node:assert/strict";
import { MoveRejected, PermissionDenied, TienLenClient, TienLenError, type Game, type Newcomer } from "@tienlen/engine-client";
import { after, before, test } from "node:test";
import { startServer, type RunningServer } from "../src/server.js";

let server: RunningServer;

before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

test("docs/HOSTS.md's worked host runs a four-game match of people coming and going", { timeout: 120_000 }, async () => {
  {
    // worked host begin
    /** One table of people, as a host keeps it: the latest Game, taken by compare-and-set. */
    class Table {
      game: Game;
      private back = new Set<number>(); // seats on auto whose player reconnected

      constructor(readonly client: TienLenClient, game: Game) {
        this.game = game;
      }

      /** Keep an answer only if it follows the stored game (in a real host: one compare-and-set
       * in its store, on gameId, gameNumber and moveNumber: they are in the Game's JSON too); then
       * play a seat on auto at once. */
      async take(answer: Game): Promise<Game> {
        let game = answer;
        for (;;) {
          const stored = this.game;
          const newer = game.gameNumber > stored.gameNumber || (game.gameNumber === stored.gameNumber && game.moveNumber > stored.moveNumber);
          if (game.gameId !== stored.gameId || !newer) throw new Error("a stale answer: keep the stored game");
          this.game = game;
          this.back = new Set([...this.back].filter((seat) => game.view.seats[seat]!.auto));
          const seat = game.toAct;
          if (seat === null || !game.view.seats[seat]!.auto || this.back.has(seat)) return game;
          game = await this.client.timeout(game, seat); // on auto: no clock, its time-out at once
        }
      }

      /** `seat` plays `cards` ("3S 4S 5S"), or passes (none). */
      play(seat: number, cards?: string): Promise<Game> {
        const move = cards === undefined ? this.client.pass(this.game, seat) : this.client.play(this.game, seat, cards);
        return move.then((game) => this.take(game));
      }

      /** The clock of the seat to act ran out. */
      async timeOut(): Promise<Game> {
        return this.take(await this.client.timeout(this.game, this.game.toAct!));
      }

      /** `seat`'s player left for good in the middle of a game. */
      async leave(seat: number): Promise<Game> {
        return this.take(await this.client.leave(this.game, seat));
      }

      /** `seat`'s player is back: wait for its own move again, even on auto. */
      reconnected(seat: number): void {
        this.back.add(seat);
      }

      /** Seats claimed the out-of-turn chop of the table's play during the host's pause: the
       * first of them in `chopSeats` takes it (RULES §9.5). */
      claims(chops: Record<number, string>): Promise<Game> {
        const first = this.game.chopSeats.find((seat) => seat in chops)!;
        return this.play(first, chops[first]);
      }

      /** The next game of the match, with its seat changes (an explicit deal: the tests'). */
      async nextGame(hands: string[], leaving: number[] = [], joining: Newcomer[] = []): Promise<Game> {
        return this.take(await this.client.nextGame(this.game, { hands, leaving, joining }));
      }

      totals(): number[] {
        return this.game.view.seats.map((seat) => seat.matchTotal);
      }
    }

    /** The error `call()` rejects with, checked to be `reason`. */
    async function refused(call: () => Promise<unknown>, reason: string): Promise<TienLenError> {
      const error = await call().then(() => assert.fail(`expected ${reason}`), (e: unknown) => e);
      assert.ok(error instanceof MoveRejected || error instanceof PermissionDenied, String(error));
      assert.equal(error.reason, reason);
      return error;
    }

    // The service checks seat tokens; the client has the host's deal key (TIENLEN_DEAL_KEY), so it
    // may deal these explicit hands and is told the seats that could chop out of turn.
    const client = new TienLenClient(server.address, { updateView: "basic" });
    // Game 1, a first game: the 3 of spades leads. 20 stakes (2000 chips) to sit down.
    const table = new Table(client, await client.newGame({
      hands: ["3S 2H KD", "4S 4C 5S 5C 6S 6C 7S 7C KH", "5D AS", "8S 8C 9S 9C 10S 10C JS JC QD"],
      playerIds: ["an", "binh", "chi", "dung"],
      bankrolls: [5000, 5000, 5000, 2000],
      options: { min_bankroll_stakes: 20 },
    }));
    assert.deepEqual([table.game.toAct, table.game.view.mustInclude], [0, "3S"]);
    await table.play(0, "3S");
    await table.timeOut();                                  // binh's clock ran out: a pass
    assert.equal(table.game.view.seats[1]!.timeouts, 1);
    await table.play(2, "5D");
    await table.play(3, "QD");
    await table.play(0, "2H");                              // a 2: the host pauses for claims
    assert.ok(table.game.chopOpen);
    assert.deepEqual(table.game.chopSeats, [1, 3]);
    await table.claims({ 3: "8S 8C 9S 9C 10S 10C JS JC", 1: "4S 4C 5S 5C 6S 6C 7S 7C" });
    const chop = table.game.events[0];
    assert.ok(chop?.kind === "played" && chop.seat === 1 && chop.chop); // binh, nearest after an
    assert.equal(table.game.view.seats[1]!.timeouts, 0);    // his own move: the count starts again
    for (const seat of [2, 3, 0]) await table.play(seat);   // binh wins the round: an pays the chop
    await table.play(1, "KH");                              // binh is out first
    await table.play(2, "AS");
    await table.play(3);
    await table.play(0);
    await table.play(3, "8S 8C 9S 9C 10S 10C JS JC");      // an is last
    assert.deepEqual(table.game.settlement!.net, [-300, 300, 100, -100]);

    // Dung is down to 1900 chips, below the minimum: the next deal is refused, naming him.
    const low = await refused(() => table.nextGame(["3C", "4C", "5C", "6C"]), "BANKROLL_TOO_LOW");
    assert.deepEqual([low.metadata.seat, low.metadata.shortfall], ["3", "100"]);
    const dung = table.game.seatTokens[3]!;
    // Game 2: dung leaves, em sits down in his seat; binh, the winner, stays and leads.
    await table.nextGame(["6C 7C JC QC 4D", "3C 8C 5D", "4C 9C 10C 6D", "5C KC AC"], [3], [{ seat: 3, playerId: "em", bankroll: 4000 }]);
    assert.deepEqual(table.totals(), [-300, 300, 100, 0]);  // em starts at 0
    assert.deepEqual([table.game.toAct, table.game.view.firstGame], [1, false]);
    assert.ok(![dung, ""].includes(table.game.seatTokens[3]!)); // em's own token: dung's is refused
    const withDungs = { ...table.game, seatTokens: [...table.game.seatTokens.slice(0, 3), dung] };
    await refused(() => client.view(withDungs, 3), "SEAT_TOKEN_INVALID");
    await table.play(1, "3C");
    await table.play(2, "4C");
    await table.play(3, "5C");
    await table.play(0, "6C");
    await table.play(1);
    await table.play(2);
    await table.timeOut();                                  // em's clock: a pass, 1 in a row
    await table.play(0, "7C");
    await table.play(1, "8C");
    await table.play(2, "9C");
    await table.timeOut();                                  // 2 in a row: em is on auto
    assert.ok(table.game.view.seats[3]!.auto);
    await table.play(0);
    await table.play(1);
    await table.play(2, "10C");                             // em's turn: the host passes em at once
    assert.deepEqual([table.game.view.seats[3]!.timeouts, table.game.toAct], [3, 0]);
    await table.play(0, "JC");
    await table.play(1);
    await table.play(2);
    table.reconnected(3);                                   // em is back: the host waits for em
    await table.play(0, "QC");
    await table.play(1);
    await table.play(2);
    await table.play(3, "KC");                              // em's own move: off auto
    assert.ok(!table.game.view.seats[3]!.auto);
    await table.play(0);
    await table.play(3, "AC");                              // em is out first
    for (const seat of [0, 1, 2]) await table.play(seat);
    await table.play(0, "4D");
    await table.play(1, "5D");
    assert.deepEqual(table.game.settlement!.net, [100, -100, -200, 200]);

    // Game 3: em, the winner, leads; chi leaves in the middle of it.
    await table.nextGame(["4H 8H", "5H 9H", "6H 10H", "3H 2D"]);
    assert.deepEqual(table.totals(), [-200, 200, -100, 200]);
    assert.deepEqual([table.game.toAct], [3]);
    await table.play(3, "3H");
    await table.play(0, "4H");
    await table.play(1, "5H");
    await table.play(2, "6H");
    await table.play(3, "2D");                              // em is out first again
    await table.leave(2);                                   // chi closed the app: on auto
    assert.ok(table.game.view.seats[2]!.left && table.game.view.seats[2]!.auto);
    await refused(() => client.pass(table.game, 2), "SEAT_LEFT");
    await table.play(0);
    await table.play(1);                                    // chi's turn: the host passes chi at once
    await table.play(0, "8H");
    await table.play(1, "9H");
    assert.deepEqual(table.game.settlement!.net, [100, -100, -200, 200]);
    const em = table.game.seatTokens[3]!;

    // Game 4: chi goes by itself; em, the winner, leaves: a first game again (3S leads).
    await table.nextGame(["4S 9D", "3S 8D", "5S 7D", "6S 10D"], [3], [{ seat: 2, playerId: "giang", bankroll: 3000 }, { seat: 3, playerId: "hoa", bankroll: 3000 }]);
    const game = table.game;
    assert.deepEqual(table.totals(), [-100, 100, 0, 0]);
    assert.ok(game.view.firstGame && game.toAct === 1 && game.view.mustInclude === "3S");
    assert.deepEqual(game.view.seats.map((seat) => seat.playerId), ["an", "binh", "giang", "hoa"]);
    assert.ok(!game.seatTokens.includes(em) && game.seatTokens.every(Boolean));
    await table.play(1, "3S");
    await table.play(2, "5S");
    await table.play(3, "6S");
    await table.play(0, "9D");
    for (const seat of [1, 2, 3]) await table.play(seat);
    await table.play(0, "4S");                              // an is out first
    await table.play(1, "8D");
    await table.play(2);
    await table.play(3, "10D");
    assert.deepEqual(table.game.settlement!.net, [200, 100, -200, -100]);
    client.close();
    // worked host end
  }
});
