// Helpers shared by the client's tests (update-view.test.ts, stream.test.ts): card deals,
// reproducible random legal moves, GameUpdate comparison, the server's call counters, and a
// client that records the answers it receives on the wire.
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { clone, equals, toJson } from "@bufbuild/protobuf";
import { Rank } from "../gen/tienlen/v1/cards_pb.js";
import type { Event } from "../gen/tienlen/v1/events_pb.js";
import { GameUpdateSchema, TableViewSchema, type GameUpdate, type TableView } from "../gen/tienlen/v1/game_pb.js";
import { CombinationType } from "../gen/tienlen/v1/moves_pb.js";
import type { ApplyMoveResponse, PlayStreamResponse } from "../gen/tienlen/v1/service_pb.js";
import { card, cardText, WireClient, type ClientOptions } from "../src/wire.js";

/** A move: the cards played, or null for a pass. */
export type Cards = string[] | null;

/** An explicit deal, one hand of card text per seat. */
export function hands(...texts: string[]) {
  return { case: "explicit" as const, value: { hands: texts.map((h) => ({ cards: h.split(" ").map(card) })) } };
}

/** How many calls of `method` the server has answered (its Prometheus counter; or another
 * per-method counter, e.g. grpc_server_msg_sent_total). */
export async function handled(metricsUrl: string, method: string, counter = "grpc_server_handled_total"): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${counter}{`) && line.includes(`grpc_method="${method}"`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

/** A reproducible random number generator (mulberry32) seeded from text. */
export function randomFrom(text: string): () => number {
  let seed = 2166136261;
  for (const char of text) seed = Math.imul(seed ^ char.charCodeAt(0), 16777619) >>> 0;
  return () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function choice<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

/** The event kinds of `events`, plus "chop" and "steal" for plays that are one. */
export function kinds(events: readonly Event[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    assert.ok(event.kind.case !== undefined);
    out.push(event.kind.case);
    if (event.kind.case === "played" && event.kind.value.chop) out.push("chop");
    if (event.kind.case === "played" && event.kind.value.steal) out.push("steal");
  }
  return out;
}

/** The TableView fields that differ, for a failure message. */
export function diff(mine: TableView | undefined, theirs: TableView | undefined): string {
  const a = (mine ? toJson(TableViewSchema, mine, { alwaysEmitImplicit: true }) : {}) as Record<string, unknown>;
  const b = (theirs ? toJson(TableViewSchema, theirs, { alwaysEmitImplicit: true }) : {}) as Record<string, unknown>;
  return Object.keys({ ...a, ...b })
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => `${k}: ${JSON.stringify(a[k])} != ${JSON.stringify(b[k])}`)
    .join("\n");
}

/** `game` without its state token (the contract server seals tokens: two tokens of one state
 * differ). */
export function withoutToken(game: GameUpdate): GameUpdate {
  const copy = clone(GameUpdateSchema, game);
  copy.stateToken = new Uint8Array();
  return copy;
}

/** The two GameUpdates are equal — events, toAct, finished, settlement, every TableView field —
 * but for their state tokens. */
export function assertSameGame(mine: GameUpdate, theirs: GameUpdate, where: string): void {
  assert.ok(mine.view && theirs.view && equals(TableViewSchema, mine.view, theirs.view), `${where}\n${diff(mine.view, theirs.view)}`);
  assert.ok(equals(GameUpdateSchema, withoutToken(mine), withoutToken(theirs)), where);
}

export interface Legal {
  cards: Cards;
  chop: boolean;
}

/** Every legal move of `seat` now (all pages). */
export async function legalMoves(client: WireClient, game: GameUpdate, seat: number, token: string): Promise<Legal[]> {
  const out: Legal[] = [];
  let pageToken = "";
  do {
    const page = await client.listLegalMoves({ stateToken: game.stateToken, seat, seatToken: token, pageSize: 1000, pageToken });
    for (const m of page.moves) {
      const action = m.move?.action;
      out.push({ cards: action?.case === "play" ? action.value.cards.map(cardText) : null, chop: m.chop });
    }
    pageToken = page.nextPageToken;
  } while (pageToken);
  return out;
}

const BOMB_TYPES = new Set([CombinationType.CONSECUTIVE_PAIRS, CombinationType.FOUR_OF_A_KIND, CombinationType.CONSECUTIVE_TRIPLES]);

/** A random legal move, eager to chop: when the table holds a 2 or a bomb, or the lead may be
 * stolen, now and then another seat's out-of-turn play; else the seat to act's play (chops
 * first, 2s often) or, now and then, a pass. */
export async function randomMove(client: WireClient, game: GameUpdate, tokens: string[], rng: () => number): Promise<[number, Cards]> {
  const seat = game.toAct!;
  const view = game.view!;
  const table = view.table;
  if ((view.stealOpen || (table && (BOMB_TYPES.has(table.type) || table.cards.some((c) => c.rank === Rank.TWO)))) && rng() < 0.7) {
    const others: [number, Cards][] = [];
    for (let other = 0; other < view.players; other++) {
      if (other === seat) continue;
      for (const m of await legalMoves(client, game, other, tokens[other]!)) if (m.cards !== null) others.push([other, m.cards]);
    }
    if (others.length > 0) return choice(rng, others);
  }
  const moves = await legalMoves(client, game, seat, tokens[seat]!);
  const plays = moves.filter((m) => m.cards !== null);
  const chops = plays.filter((m) => m.chop);
  const twos = plays.filter((m) => m.cards!.some((c) => c.startsWith("2")));
  const canPass = plays.length < moves.length;
  if (chops.length > 0 && rng() < 0.8) return [seat, choice(rng, chops).cards];
  if (canPass && (plays.length === 0 || rng() < 0.3)) return [seat, null];
  if (twos.length > 0 && rng() < 0.4) return [seat, choice(rng, twos).cards];
  return [seat, choice(rng, plays).cards];
}

/** A client that records, for every move's answer as it came off the wire (ApplyMove's, and
 * each PlayStream answer applied), whether it carried a view; `alter` may change the answers
 * before the client reads them (as a newer service would answer). Its warnings are kept. */
export class Recording extends WireClient {
  readonly answeredWithView: boolean[];
  readonly warnings: string[];
  private readonly hooks: { alter?: ((game: GameUpdate) => void) | undefined };

  constructor(address: string, options: ClientOptions = {}) {
    const answeredWithView: boolean[] = [];
    const warnings: string[] = [];
    const hooks: { alter?: (game: GameUpdate) => void } = {};
    const answered = (game: GameUpdate | undefined) => {
      if (game === undefined) return;
      answeredWithView.push(game.view !== undefined);
      hooks.alter?.(game);
    };
    const interceptor: grpc.Interceptor = (callOptions, nextCall) => {
      const path = callOptions.method_definition.path;
      return new grpc.InterceptingCall(nextCall(callOptions), {
        start: (metadata, listener, next) =>
          next(metadata, {
            onReceiveMessage: (message: unknown, nextMessage: (message: unknown) => void) => {
              if (path.endsWith("/ApplyMove")) answered((message as ApplyMoveResponse).game);
              if (path.endsWith("/PlayStream")) {
                const result = (message as PlayStreamResponse).result;
                if (result.case === "applied") answered(result.value.game);
              }
              nextMessage(message);
            },
          }),
      });
    };
    super(address, {
      ...options,
      logger: { warn: (message: string) => warnings.push(message) },
      channelOptions: { ...options.channelOptions, interceptors: [interceptor] },
    });
    this.answeredWithView = answeredWithView;
    this.warnings = warnings;
    this.hooks = hooks;
  }

  /** Changes every answer's game before the client reads it (undefined: none). */
  set alter(alter: ((game: GameUpdate) => void) | undefined) {
    this.hooks.alter = alter;
  }

  /** Whether the last answer carried a view. */
  get lastHadView(): boolean | undefined {
    return this.answeredWithView.at(-1);
  }
}

/** Asserts that `printed` holds, in order, what the `console.log(...);  // what it prints` lines
 * of the sample `source` say (the text before an em dash " — "). */
export function printedAsCommented(source: string, printed: readonly string[]): void {
  const wanted = [...source.matchAll(/^\s*console\.log\(.*\);\s+\/\/ (.+?)\s*$/gm)].map((m) => m[1]!.split(" — ")[0]!);
  assert.ok(wanted.length >= 5, `only ${wanted.length} commented console.log lines`);
  let at = 0;
  for (const line of wanted) {
    while (at < printed.length && printed[at] !== line) at += 1;
    assert.ok(at < printed.length, `should print ${JSON.stringify(line)} (in order); printed ${JSON.stringify(printed)}`);
    at += 1;
  }
}
