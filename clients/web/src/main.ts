// The page: draws the table from the host's state and turns clicks into the host's calls.
//
// URL parameters (all optional): `api` — the service's web address (default: this page's
// origin, where the service serves the page); `pace` — milliseconds between the bots' moves
// (default 600; the browser test uses 0); `variant`, `players`, `bot`, `seed` — the set-up
// form's initial values; `start=1` — deal at once.

import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import type { Card } from "../gen/tienlen/v1/cards_pb.js";
import type { Settlement } from "../gen/tienlen/v1/settlement_pb.js";
import { TienLenEngine, type LegalMove } from "../gen/tienlen/v1/service_pb.js";
import { cardLabel, cardText, cardsKey, combinationName, isRed, rankLabel, sortCards, suitSymbol } from "./cards.js";
import { Host, type TableState } from "./host.js";
import { settlementRows, transferText } from "./narrate.js";
import { refusalOf } from "./refusal.js";

const params = new URLSearchParams(location.search);
const transport = createConnectTransport({
  baseUrl: params.get("api") ?? location.origin,
  // Binary protobuf: the same bytes as gRPC, independent of how the JSON mapping evolves.
  useBinaryFormat: true,
  defaultTimeoutMs: 15_000,
});
const engine = createClient(TienLenEngine, transport);
const pace = Number(params.get("pace") ?? "600");
const HUMAN_SEAT = 0;

const selected = new Set<string>();
const host = new Host(engine, render, Number.isFinite(pace) ? pace : 600);

function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

type Child = Node | string;

function h(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** A card face: rank, suit symbol, red or black; `data-card` holds its card text ("10D"). */
function cardFace(card: Card, tag = "div", extra = ""): HTMLElement {
  return h(
    tag,
    { class: `card ${isRed(card) ? "red" : "black"} ${extra}`.trim(), "data-card": cardText(card), title: cardLabel(card) },
    h("span", { class: "corner" }, `${rankLabel(card)}${suitSymbol(card)}`),
    h("span", { class: "rank" }, rankLabel(card)),
    h("span", { class: "suit" }, suitSymbol(card)),
  );
}

function badge(kind: string, text: string): HTMLElement {
  return h("span", { class: `badge ${kind}` }, text);
}

function seatBadges(state: TableState, seat: number): HTMLElement {
  const status = state.view?.seats[seat];
  const badges = h("div", { class: "badges" });
  if (!status) return badges;
  if (state.update?.toAct === seat && !state.update.finished) badges.append(badge("turn", "to play"));
  if (status.passed) badges.append(badge("passed", "passed"));
  if (status.frozen) badges.append(badge("frozen", "frozen (cóng)"));
  if (status.place > 0) badges.append(badge("place", `place ${status.place}`));
  return badges;
}

function matchTotal(state: TableState, seat: number): bigint {
  const before = state.totalsBefore[seat] ?? 0n;
  return before + (state.update?.settlement?.net[seat] ?? 0n);
}

function renderOpponents(state: TableState): void {
  const box = byId("opponents");
  box.replaceChildren();
  const view = state.view;
  if (!view) return;
  for (const status of view.seats) {
    if (status.seat === HUMAN_SEAT) continue;
    const backs = h("div", { class: "backs", "aria-label": `${status.cardsLeft} cards` });
    for (let i = 0; i < status.cardsLeft; i++) backs.append(h("span", { class: "back" }));
    box.append(
      h(
        "div",
        {
          class: `seat${state.update?.toAct === status.seat && !state.update.finished ? " to-act" : ""}`,
          "data-seat": String(status.seat),
          "data-passed": String(status.passed),
        },
        h("div", { class: "name" }, host.seatName(status.seat)),
        backs,
        h("div", { class: "count" }, `${status.cardsLeft} card${status.cardsLeft === 1 ? "" : "s"}`),
        seatBadges(state, status.seat),
        h("div", { class: "total", "data-match-total": String(matchTotal(state, status.seat)) }, `match total ${matchTotal(state, status.seat)}`),
      ),
    );
  }
}

function renderToBeat(state: TableState): void {
  const box = byId("to-beat");
  box.replaceChildren();
  const view = state.view;
  if (!view) return;
  if (view.finished) {
    box.append(h("div", { class: "caption" }, "The game is over: the settlement is below."));
  } else if (view.table && view.tableSeat !== undefined) {
    const whose = view.tableSeat === HUMAN_SEAT ? "your" : `${host.seatName(view.tableSeat)}'s`;
    box.append(
      h("div", { class: "caption" }, `To beat: ${whose} ${combinationName(view.table)}`),
      h("div", { class: "cards", id: "table-cards" }, ...view.table.cards.map((card) => cardFace(card))),
    );
  } else {
    const leader = view.toAct === undefined ? "" : `${host.seatName(view.toAct)} to lead`;
    const must = view.mustInclude ? ` — the lead must contain ${cardLabel(view.mustInclude)}` : "";
    box.append(h("div", { class: "caption" }, `New round: ${leader}${must}.`));
  }
  const announcements = byId("announcements");
  announcements.replaceChildren(
    ...state.lines.filter((line) => line.tone === "announce").slice(-3).map((line) => h("li", { "data-kind": line.kind }, line.text)),
  );
}

function legalCards(legal: readonly LegalMove[]): Set<string> {
  const cards = new Set<string>();
  for (const move of legal) {
    if (move.move?.action.case === "play") for (const card of move.move.action.value.cards) cards.add(cardText(card));
  }
  return cards;
}

function playCards(move: LegalMove): Card[] {
  return move.move?.action.case === "play" ? sortCards(move.move.action.value.cards) : [];
}

function renderMe(state: TableState): void {
  const humanTurn = state.phase === "human";
  const status = byId("my-status");
  status.replaceChildren(
    h("strong", {}, host.seatName(HUMAN_SEAT)),
    seatBadges(state, HUMAN_SEAT),
    h("span", { class: "total", "data-match-total": String(matchTotal(state, HUMAN_SEAT)) }, `match total ${matchTotal(state, HUMAN_SEAT)}`),
  );
  const inHand = new Set(state.hand.map(cardText));
  for (const text of [...selected]) if (!inHand.has(text)) selected.delete(text);
  const legal = legalCards(state.legal);
  const hand = byId("hand");
  hand.replaceChildren(
    ...state.hand.map((card) => {
      const text = cardText(card);
      const classes = [selected.has(text) ? "selected" : "", humanTurn ? (legal.has(text) ? "legal" : "dim") : ""];
      const face = cardFace(card, "button", classes.join(" "));
      face.setAttribute("type", "button");
      face.setAttribute("aria-pressed", String(selected.has(text)));
      face.addEventListener("click", () => {
        if (selected.has(text)) selected.delete(text);
        else selected.add(text);
        render(host.state);
      });
      return face;
    }),
  );
  const selection = new Set(selected);
  const chosenKey = cardsKey(state.hand.filter((card) => selection.has(cardText(card))));
  const play = byId<HTMLButtonElement>("play");
  play.disabled = !humanTurn || selected.size === 0;
  play.classList.toggle("ready", humanTurn && state.legal.some((move) => cardsKey(playCards(move)) === chosenKey));
  const pass = byId<HTMLButtonElement>("pass");
  pass.disabled = !humanTurn;
  pass.classList.toggle("legal", humanTurn && state.canPass);
  byId<HTMLButtonElement>("hint").disabled = !humanTurn;
  byId<HTMLButtonElement>("clear").disabled = selected.size === 0;

  const refusal = byId("refusal");
  if (state.refusal) {
    refusal.hidden = false;
    refusal.dataset.reason = state.refusal.reason;
    refusal.replaceChildren(
      h("span", { class: "message" }, `Refused: ${state.refusal.message}`),
      h("span", { class: "code" }, state.refusal.reason || state.refusal.code),
    );
  } else {
    refusal.hidden = true;
    refusal.replaceChildren();
    delete refusal.dataset.reason;
  }

  const legalBox = byId("legal");
  legalBox.replaceChildren();
  if (humanTurn) {
    for (const move of state.legal) {
      const cards = playCards(move);
      const combination = move.combination;
      const button = h(
        "button",
        { type: "button", class: `legal-play${move.chop ? " chop" : ""}`, "data-cards": cardsKey(cards) },
        `${combination ? combinationName(combination) : "play"}${move.chop ? " (chop)" : ""}: `,
        ...cards.flatMap((card) => [h("span", { class: isRed(card) ? "red" : "black" }, cardLabel(card)), " "]),
      );
      button.addEventListener("click", () => {
        selected.clear();
        for (const card of cards) selected.add(cardText(card));
        render(host.state);
      });
      legalBox.append(button);
    }
    if (state.legal.length === 0) legalBox.append(h("span", {}, state.canPass ? "No play beats the table: pass." : "No legal play."));
  }
}

function renderSettlement(state: TableState): void {
  const box = byId("settlement");
  const settlement: Settlement | undefined = state.update?.settlement;
  if (!state.update?.finished || !settlement) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const appearing = box.hidden;
  box.hidden = false;
  const rows = settlementRows(settlement, state.totalsBefore);
  const body = h("tbody");
  for (const row of rows) {
    const sign = row.net > 0n ? "plus" : row.net < 0n ? "minus" : "";
    body.append(
      h(
        "tr",
        { "data-seat": String(row.seat) },
        h("td", {}, host.seatName(row.seat)),
        h("td", { class: "place", "data-place": String(row.place) }, String(row.place)),
        h("td", { class: `net ${sign}`, "data-net": String(row.net) }, row.net > 0n ? `+${row.net}` : String(row.net)),
        h("td", { class: "match-total", "data-total": String(row.total) }, String(row.total)),
      ),
    );
  }
  const next = h("button", { id: "next-game", type: "button" }, "Next game");
  next.addEventListener("click", () => void host.nextGame());
  const gameNumber = state.view?.gameNumber ?? host.games;
  const record = h("button", { id: "download-record", type: "button", title: "This game's record (docs/RECORDS.md), to replay or keep" }, "Download record");
  record.addEventListener("click", () => download(`tienlen-game-${gameNumber}.tlr`, host.gameRecord()));
  const buttons = [next, record];
  if (host.games > 1) {
    const match = h("button", { id: "download-match", type: "button", title: "Every game of the match so far" }, "Download match record");
    match.addEventListener("click", () => download(`tienlen-match-${host.games}-games.tlr`, host.matchRecord()));
    buttons.push(match);
  }
  box.replaceChildren(
    h("h2", {}, `Settlement of game ${state.view?.gameNumber ?? ""}`),
    h("table", { id: "settlement-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Seat"), h("th", {}, "Place"), h("th", {}, "This game"), h("th", {}, "Match total"))),
      body),
    h("ul", { id: "transfers" }, ...settlement.transfers.map((transfer) => h("li", {}, transferText(transfer, host.seatName)))),
    h("div", { class: "settlement-actions" }, ...buttons),
  );
  if (appearing) box.scrollIntoView({ block: "nearest" });
}

/** Hand `text` to the browser as a file download named `name`. */
function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const link = h("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function renderLog(state: TableState): void {
  const log = byId("log");
  log.replaceChildren(...state.lines.map((line) => h("li", { class: line.tone, "data-kind": line.kind }, line.text)));
  log.parentElement?.scrollTo({ top: log.scrollHeight });
}

function render(state: TableState): void {
  document.body.dataset.phase = state.phase;
  byId<HTMLButtonElement>("new-match").disabled = state.phase === "busy" || state.phase === "bots";
  if (state.phase === "setup" && state.refusal) {
    byId("connection").textContent = `Refused: ${state.refusal.message} (${state.refusal.reason || state.refusal.code})`;
  }
  if (!state.options) return;
  byId("table").hidden = false;
  renderOpponents(state);
  renderToBeat(state);
  renderMe(state);
  renderSettlement(state);
  renderLog(state);
}

function option(value: string, label = value): HTMLOptionElement {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = label;
  return element;
}

function startMatch(): void {
  const variant = byId<HTMLSelectElement>("variant").value;
  const players = Number(byId<HTMLSelectElement>("players").value);
  const bot = byId<HTMLSelectElement>("bot").value;
  const seedText = byId<HTMLInputElement>("seed").value.trim();
  selected.clear();
  void host.newMatch({ variant, players, bot, humanSeat: HUMAN_SEAT, seed: /^\d+$/.test(seedText) ? BigInt(seedText) : undefined });
}

async function connect(): Promise<void> {
  const status = byId("connection");
  try {
    const rules = await engine.describeRules({});
    const variant = byId<HTMLSelectElement>("variant");
    variant.replaceChildren(...rules.variants.map((v) => option(v.name, `${v.name}`)));
    for (const v of rules.variants) {
      const element = variant.querySelector<HTMLOptionElement>(`option[value="${v.name}"]`);
      if (element) element.title = v.description;
    }
    const bot = byId<HTMLSelectElement>("bot");
    bot.replaceChildren(...rules.bots.map((name) => option(name)));
    if (rules.bots.includes("greedy")) bot.value = "greedy";
    for (const [name, element] of [["variant", variant], ["bot", bot], ["players", byId<HTMLSelectElement>("players")]] as const) {
      const wanted = params.get(name);
      if (wanted !== null) element.value = wanted;
    }
    byId<HTMLInputElement>("seed").value = params.get("seed") ?? "";
    status.textContent = `Connected: ${rules.variants.length} rule sets, bots ${rules.bots.join(", ")}.`;
    byId<HTMLButtonElement>("new-match").disabled = false;
    document.body.dataset.phase = "setup";
    if (params.get("start") === "1") startMatch();
  } catch (error) {
    const refusal = refusalOf(error);
    status.textContent = `Cannot reach the service: ${refusal.message}`;
    document.body.dataset.phase = "offline";
  }
}

function wire(): void {
  byId("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    startMatch();
  });
  byId("variant").addEventListener("change", () => {
    // Tiến lên Đấu is a three-player game.
    if (byId<HTMLSelectElement>("variant").value === "dau") byId<HTMLSelectElement>("players").value = "3";
  });
  byId("play").addEventListener("click", () => {
    const cards = host.state.hand.filter((card) => selected.has(cardText(card)));
    void host.play(cards);
  });
  byId("pass").addEventListener("click", () => void host.pass());
  byId("clear").addEventListener("click", () => {
    selected.clear();
    render(host.state);
  });
  byId("hint").addEventListener("click", () => {
    void host.hint().then(
      (cards) => {
        selected.clear();
        for (const card of cards) selected.add(cardText(card));
        render(host.state);
      },
      () => undefined,
    );
  });
}

wire();
void connect();
