// Who the bots are: the opponents the set-up form offers, from DescribeRules.
//
// A service that lists difficulty levels (`levels`: a name such as "easy" … "expert", with a
// one-line description) is offered by level first; every bot it names (`bots`: "greedy",
// "montecarlo", "random") follows, so a page works against a service of either age. The chosen
// name is what SuggestMove's `bot` receives.

import type { DescribeRulesResponse } from "../gen/tienlen/v1/service_pb.js";

/** One choice of the form's opponent picker. */
export interface BotChoice {
  /** What SuggestMoveRequest.bot receives. */
  readonly value: string;
  readonly label: string;
  readonly description: string;
  /** The picker's group: "Difficulty" or "Bots by name". */
  readonly group: string;
  /** The one chosen when the page opens. */
  readonly preferred: boolean;
}

interface Level {
  readonly name: string;
  readonly description: string;
}

/** The difficulty levels an answer lists, read by field name so that the page built before the
 * contract had them still reads them once it does (a field this page's generated code does not
 * know yet is simply absent). */
export function levelsOf(rules: DescribeRulesResponse): Level[] {
  const listed = (rules as unknown as { levels?: unknown }).levels;
  if (!Array.isArray(listed)) return [];
  const levels: Level[] = [];
  for (const level of listed as unknown[]) {
    if (typeof level === "string" && level) levels.push({ name: level, description: "" });
    else if (level && typeof level === "object" && typeof (level as { name?: unknown }).name === "string") {
      const { name, description } = level as { name: string; description?: unknown };
      if (name) levels.push({ name, description: typeof description === "string" ? description : "" });
    }
  }
  return levels;
}

/** The picker's choices: the levels (the middle one preferred), then the bots by name ("greedy"
 * preferred when there are no levels). */
export function botChoices(rules: DescribeRulesResponse): BotChoice[] {
  const levels = levelsOf(rules);
  const preferredLevel = levels.find((level) => level.name === "medium")?.name ?? levels[0]?.name;
  const choices: BotChoice[] = levels.map((level) => ({
    value: level.name,
    label: level.name,
    description: level.description,
    group: "Difficulty",
    preferred: level.name === preferredLevel,
  }));
  const preferredBot = levels.length > 0 ? undefined : rules.bots.includes("greedy") ? "greedy" : rules.bots[0];
  for (const bot of rules.bots) {
    if (levels.some((level) => level.name === bot)) continue;
    choices.push({ value: bot, label: bot, description: "", group: "Bots by name", preferred: bot === preferredBot });
  }
  return choices;
}
