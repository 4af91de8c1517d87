// The table's people in a record's text (RULES §9, docs/RECORDS.md): the header tags `Empty` (the
// seats nobody sat in), `PlayerId0` … `PlayerId3` (the host's own ids), `Bankrolls` (each seat's
// chips at the deal), `Timeouts` (each seat's time-outs in a row at the deal) and `Auto` (the seats
// on auto at the deal). `peopleTags` writes them, in that order, each only when it says something
// (an id for a seat that has one, time-outs when one is not 0), as the Python client's
// tienlen_client/record_people.py does; `readPeople` reads them from a game's tags.

import { INT64_MAX, integer, integers, RecordSyntaxError, tag, tokens, type Located } from "./record-syntax.js";

/** The tags of the table's people other than the per-seat `PlayerId0` … `PlayerId3`. */
export const PEOPLE_TAGS = ["Empty", "Bankrolls", "Timeouts", "Auto"];
/** The longest player id, in UTF-8 bytes (as NewGame's). */
const MAX_PLAYER_ID_BYTES = 64;
/** The most time-outs in a row a record may give a seat (the service's bound). */
const MAX_TIMEOUTS = 1_000_000n;

/** The table's people as a game's tags give them (the GameRecord fields of that name). */
export interface People {
  readonly emptySeats: readonly number[];
  readonly playerIds: readonly string[];
  readonly bankrolls: readonly bigint[];
  readonly timeouts: readonly number[];
  readonly autoSeats: readonly number[];
}

/** The tag lines of a record's people, in their written order. */
export function peopleTags(record: Partial<People>): string[] {
  const lines: string[] = [];
  const empty = record.emptySeats ?? [];
  if (empty.length) lines.push(tag("Empty", empty.join(" ")));
  (record.playerIds ?? []).forEach((id, seat) => {
    if (id) lines.push(tag(`PlayerId${seat}`, id));
  });
  const bankrolls = record.bankrolls ?? [];
  if (bankrolls.length) lines.push(tag("Bankrolls", bankrolls.join(" ")));
  const timeouts = record.timeouts ?? [];
  if (timeouts.some((t) => t !== 0)) lines.push(tag("Timeouts", timeouts.join(" ")));
  const auto = record.autoSeats ?? [];
  if (auto.length) lines.push(tag("Auto", auto.join(" ")));
  return lines;
}

/** Whether `name` is one of the tags above (`PlayerId` of seats 0 to 3 only). */
export function isPeopleTag(name: string): boolean {
  return PEOPLE_TAGS.includes(name) || /^PlayerId[0-3]$/.test(name);
}

/** The people of a game whose header `tags` were read, at a table of `players` seats. */
export function readPeople(tags: ReadonlyMap<string, Located>, players: number): People {
  const seats = [...Array(players).keys()];
  let playerIds: string[] = [];
  if (seats.some((seat) => tags.has(`PlayerId${seat}`))) playerIds = seats.map((seat) => playerId(tags.get(`PlayerId${seat}`)));
  const bankrollsTag = tags.get("Bankrolls");
  const bankrolls = bankrollsTag === undefined ? [] : atLeastZero(integers(bankrollsTag, "Bankrolls", players), bankrollsTag, "a bankroll", INT64_MAX);
  const timeoutsTag = tags.get("Timeouts");
  const timeouts =
    timeoutsTag === undefined ? [] : atLeastZero(integers(timeoutsTag, "Timeouts", players), timeoutsTag, "a count of time-outs", MAX_TIMEOUTS).map(Number);
  return {
    emptySeats: seatList(tags.get("Empty"), "Empty", players),
    playerIds,
    bankrolls,
    timeouts,
    autoSeats: seatList(tags.get("Auto"), "Auto", players),
  };
}

function playerId(located: Located | undefined): string {
  if (located === undefined) return "";
  if (new TextEncoder().encode(located.value).length > MAX_PLAYER_ID_BYTES) {
    throw new RecordSyntaxError(located.line, located.column, `a player id is at most ${MAX_PLAYER_ID_BYTES} bytes of UTF-8`);
  }
  return located.value;
}

/** Seats of the table, each once, in increasing order. */
function seatList(located: Located | undefined, what: string, players: number): number[] {
  if (located === undefined) return [];
  const seats: number[] = [];
  for (const { token, at } of tokens(located.value)) {
    const seat = Number(integer(token, located.line, located.column + at, `a seat in ${what}`, 0n, BigInt(players - 1)));
    if (seats.length && seat <= seats.at(-1)!) throw new RecordSyntaxError(located.line, located.column + at, `${what}: seats in increasing order, once`);
    seats.push(seat);
  }
  return seats;
}

function atLeastZero(numbers: bigint[], located: Located, what: string, high: bigint): bigint[] {
  tokens(located.value).forEach(({ at }, i) => {
    const n = numbers[i]!;
    if (n < 0n || n > high) throw new RecordSyntaxError(located.line, located.column + at, `${what} is 0 to ${high}, not ${n}`);
  });
  return numbers;
}
