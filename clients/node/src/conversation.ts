// The Node runner of the golden conversations (tests/contract/conversations/*.json), the
// second implementation of the format next to tests/contract/runner.py. The format is
// specified in docs/FRONTEND.md: requests and expectations in the protobuf JSON mapping, card
// shorthand ($cards, $card), references to earlier answers ($stateFrom, $seatToken, $from),
// token tampering ($tamper), subset comparison ($len, $contains, $present, null = absent), and
// refusals by code, ErrorInfo reason and metadata, and BadRequest fields.

import { readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import type { JsonValue } from "@bufbuild/protobuf";
import { DOMAIN, TienLenError, type WireClient } from "./wire.js";

type Json = JsonValue;
type JsonObject = { [key: string]: Json };

/** One call of a conversation. */
export interface Step {
  number: number;
  rpc: string;
  request: Json;
  expect: JsonObject;
  note: string;
}

/** A golden conversation file. */
export interface Conversation {
  name: string;
  title: string;
  steps: Step[];
}

/** The conversation file itself is wrong (a defect of the golden file, not of the server). */
export class ConversationError extends Error {
  override name = "ConversationError";
}

/** An answer differs from the conversation: names the file, the step and the field. */
export class Mismatch extends Error {
  override name = "Mismatch";
  constructor(
    readonly file: string,
    readonly step: number,
    readonly rpc: string,
    readonly where: string,
    readonly detail: string,
  ) {
    super(`${file} step ${step} (${rpc}): ${where}: ${detail}`);
  }
}

const RPCS = ["NewGame", "ApplyMove", "ValidateMove", "ListLegalMoves", "GetView", "NextGame", "DescribeRules", "SuggestMove", "ReplayGame"];
const RANKS: Record<string, string> = {
  "3": "RANK_THREE", "4": "RANK_FOUR", "5": "RANK_FIVE", "6": "RANK_SIX", "7": "RANK_SEVEN", "8": "RANK_EIGHT",
  "9": "RANK_NINE", "10": "RANK_TEN", J: "RANK_JACK", Q: "RANK_QUEEN", K: "RANK_KING", A: "RANK_ACE", "2": "RANK_TWO",
};
const SUITS: Record<string, string> = { S: "SUIT_SPADES", C: "SUIT_CLUBS", D: "SUIT_DIAMONDS", H: "SUIT_HEARTS" };
const MISSING = Symbol("absent");
type Actual = Json | typeof MISSING;

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// --- loading ----------------------------------------------------------------------------------

/** The JSON mapping of one card written as card text ("3S", "10D", "2H"). */
export function cardJson(text: string): JsonObject {
  const m = /^(10|[2-9JQKA])([SCDH])$/.exec(text);
  if (!m) throw new ConversationError(`${JSON.stringify(text)} is not card text (3S, 10D, QH, 2H ...)`);
  return { rank: RANKS[m[1]!]!, suit: SUITS[m[2]!]! };
}

/** Replace every {"$cards": "3S 4S"} by a list of cards and {"$card": "3S"} by a card. */
export function expand(node: Json): Json {
  if (Array.isArray(node)) return node.map(expand);
  if (isObject(node)) {
    const keys = Object.keys(node);
    if (keys.length === 1 && keys[0] === "$cards") return String(node.$cards).split(/\s+/).filter(Boolean).map(cardJson);
    if (keys.length === 1 && keys[0] === "$card") return cardJson(String(node.$card));
    return Object.fromEntries(keys.map((k) => [k, expand(node[k]!)]));
  }
  return node;
}

/** Read and check a conversation file (steps numbered 1..n in order, known RPCs). */
export function load(path: string): Conversation {
  const data = JSON.parse(readFileSync(path, "utf8")) as JsonObject;
  const name = basename(path);
  const steps = (data.steps as JsonObject[]).map((raw, i): Step => {
    const number = i + 1;
    if (raw.step !== number) throw new ConversationError(`${name}: step ${number} is numbered ${JSON.stringify(raw.step)}`);
    const rpc = String(raw.rpc);
    if (!RPCS.includes(rpc)) throw new ConversationError(`${name} step ${number}: unknown rpc ${rpc}`);
    return {
      number,
      rpc,
      request: expand(raw.request ?? {}),
      expect: expand(raw.expect ?? {}) as JsonObject,
      note: String(raw.note ?? ""),
    };
  });
  return { name, title: String(data.title ?? name), steps };
}

/** Every conversation file of a directory, sorted by name. */
export function conversationFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(directory, f));
}

// --- resolving references ---------------------------------------------------------------------

function pathGet(node: Json, path: string): Actual {
  let here: Json = node;
  for (const part of path.split(".")) {
    if (Array.isArray(here)) {
      const next = here[Number(part)];
      if (next === undefined) return MISSING;
      here = next;
    } else if (isObject(here) && part in here) {
      here = here[part]!;
    } else {
      return MISSING;
    }
  }
  return here;
}

/** Alter a state token's bytes the way a golden step asks. */
export function tamper(tokenB64: string, how: string): string {
  const raw = Buffer.from(tokenB64, "base64");
  let out: Buffer;
  if (how === "flip-last-byte") {
    out = Buffer.from(raw);
    out[out.length - 1]! ^= 0x01;
  } else if (how === "flip-first-byte") {
    out = Buffer.from(raw);
    out[0]! ^= 0x01;
  } else if (how === "drop-last-byte") {
    out = raw.subarray(0, raw.length - 1);
  } else {
    throw new ConversationError(`unknown $tamper ${how}`);
  }
  return out.toString("base64");
}

/** The request with every reference replaced by the value from an earlier answer. */
export function resolve(node: Json, answers: Map<number, Json>, where: string): Json {
  if (Array.isArray(node)) return node.map((v) => resolve(v, answers, where));
  if (!isObject(node)) return node;
  if ("$stateFrom" in node || "$seatToken" in node || "$from" in node) {
    let step: number;
    let path: string;
    if ("$stateFrom" in node) {
      step = Number(node.$stateFrom);
      path = "game.stateToken";
    } else if ("$seatToken" in node) {
      const [s, seat] = node.$seatToken as number[];
      step = Number(s);
      path = `seatTokens.${Number(seat)}`;
    } else {
      const [s, p] = node.$from as [number, string];
      step = Number(s);
      path = String(p);
    }
    const answer = answers.get(step);
    if (answer === undefined) throw new ConversationError(`${where}: step ${step} has no successful answer to refer to`);
    let value = pathGet(answer, path);
    if (value === MISSING) throw new ConversationError(`${where}: step ${step}'s answer has no ${path}`);
    if ("$tamper" in node) value = tamper(String(value), String(node.$tamper));
    return value;
  }
  const keys = Object.keys(node);
  if (keys.length === 1 && keys[0] === "$zeroBytes") return Buffer.alloc(Number(node.$zeroBytes)).toString("base64");
  return Object.fromEntries(keys.map((k) => [k, resolve(node[k]!, answers, where)]));
}

// --- comparing: expected is a subset of actual ------------------------------------------------

function show(value: Actual): string {
  if (value === MISSING) return "(absent)";
  const text = JSON.stringify(value);
  return text.length <= 300 ? text : `${text.slice(0, 297)}...`;
}

/** The first difference as [field path, description], or null when `expected` is a subset. */
export function compare(expected: Json, actual: Actual, where: string): [string, string] | null {
  if (expected === null) {
    return actual === MISSING || actual === null ? null : [where, `expected absent, got ${show(actual)}`];
  }
  if (isObject(expected)) {
    const keys = Object.keys(expected);
    if (keys.length === 1 && keys[0]!.startsWith("$")) return compareOperator(keys[0]!, expected[keys[0]!]!, actual, where);
  }
  if (actual === MISSING || actual === null) return [where, `expected ${show(expected)}, got (absent)`];
  if (isObject(expected)) {
    if (!isObject(actual)) return [where, `expected an object, got ${show(actual)}`];
    for (const [key, value] of Object.entries(expected)) {
      const found = compare(value, key in actual ? actual[key]! : MISSING, where ? `${where}.${key}` : key);
      if (found) return found;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [where, `expected a list, got ${show(actual)}`];
    if (expected.length !== actual.length) return [where, `expected ${expected.length} elements, got ${actual.length}: ${show(actual)}`];
    for (let i = 0; i < expected.length; i++) {
      const found = compare(expected[i]!, actual[i]!, `${where}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (typeof expected !== typeof actual || expected !== actual) return [where, `expected ${show(expected)}, got ${show(actual)}`];
  return null;
}

function compareOperator(op: string, arg: Json, actual: Actual, where: string): [string, string] | null {
  if (op === "$present") return actual === MISSING || actual === null ? [where, "expected a value, got (absent)"] : null;
  if (op === "$len") {
    if (!Array.isArray(actual) || actual.length !== arg) {
      return [where, `expected ${String(arg)} elements, got ${Array.isArray(actual) ? actual.length : show(actual)}`];
    }
    return null;
  }
  if (op === "$contains") {
    if (!Array.isArray(actual)) return [where, `expected a list, got ${show(actual)}`];
    const items = arg as Json[];
    for (let i = 0; i < items.length; i++) {
      if (actual.every((a) => compare(items[i]!, a, "") !== null)) return [`${where}{$contains[${i}]}`, `no element matches ${show(items[i]!)}`];
    }
    return null;
  }
  throw new ConversationError(`${where}: unknown operator ${op}`);
}

// --- replaying --------------------------------------------------------------------------------

/** Compare a refusal with the expectation: code, then exactly one ErrorInfo with the reason,
 * the ErrorInfo metadata entries the expectation lists (others are not checked), the fields. */
export function checkRefusal(expect: JsonObject, error: TienLenError): [string, string] | null {
  const code = String(expect.code ?? "OK");
  if (error.codeName !== code) {
    const reasons = error.reasons.length ? ` (${error.reasons.join(", ")})` : "";
    return ["code", `expected ${code}, got ${error.codeName}${reasons}`];
  }
  if ("reason" in expect) {
    const reason = expect.reason;
    if (reason === null) {
      if (error.reasons.length) return ["reason", `expected no ErrorInfo, got ${JSON.stringify(error.reasons)}`];
    } else if (error.reasons.length !== 1 || error.reasons[0] !== reason) {
      return ["reason", `expected exactly one ErrorInfo with reason ${String(reason)}, got ${JSON.stringify(error.reasons)}`];
    } else if (error.domains[0] !== DOMAIN) {
      return ["reason", `expected ErrorInfo.domain ${DOMAIN}, got ${JSON.stringify(error.domains)}`];
    }
  }
  for (const [key, value] of Object.entries(isObject(expect.metadata) ? expect.metadata : {})) {
    const actual = error.metadata[key];
    if (actual !== value) return [`metadata.${key}`, `expected ${JSON.stringify(value)}, got ${actual === undefined ? "(absent)" : JSON.stringify(actual)}`];
  }
  if ("fieldViolations" in expect) {
    const want = [...(expect.fieldViolations as string[])].sort();
    const got = [...error.fieldViolations].sort();
    if (JSON.stringify(want) !== JSON.stringify(got)) {
      return ["fieldViolations", `expected ${JSON.stringify(expect.fieldViolations)}, got ${JSON.stringify(error.fieldViolations)}`];
    }
  }
  return null;
}

/** Replay every step; throws Mismatch at the first difference. Returns the number of steps. */
export async function replay(conversation: Conversation, client: WireClient): Promise<number> {
  const answers = new Map<number, Json>();
  for (const step of conversation.steps) {
    const where = `${conversation.name} step ${step.number}`;
    const request = resolve(step.request, answers, where);
    const code = String(step.expect.code ?? "OK");
    let answer: Json;
    try {
      answer = await client.callJson(step.rpc, request);
    } catch (error) {
      if (!(error instanceof TienLenError)) throw error;
      const found = checkRefusal(step.expect, error);
      if (found) throw new Mismatch(conversation.name, step.number, step.rpc, ...found);
      continue;
    }
    if (code !== "OK") throw new Mismatch(conversation.name, step.number, step.rpc, "code", `expected ${code}, got OK`);
    answers.set(step.number, answer);
    const found = compare(step.expect.response ?? {}, answer, "");
    if (found) throw new Mismatch(conversation.name, step.number, step.rpc, found[0] || "(response)", found[1]);
  }
  return conversation.steps.length;
}
