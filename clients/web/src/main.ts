// The page: draws the table from the host's state and turns taps and clicks into the host's
// calls.
//
// URL parameters (all optional): `api` — the service's web address (default: this page's
// origin, where the service serves the page); `pace` — milliseconds between the bots' moves
// (default 600; the browser test uses 0); `variant`, `players`, `bot`, `seed` — the set-up
// form's initial values; `start=1` — deal at once (unless a kept match is taken up);
// `lang=vi` — Vietnamese labels with the English beside them.

import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import type { Card } from "../gen/tienlen/v1/cards_pb.js";
import type { Settlement } from "../gen/tienlen/v1/settlement_pb.js";
import { TienLenEngine, type LegalMove } from "../gen/tienlen/v1/service_pb.js";
import { cardLabel, cardText, cardsKey, isRed, rankLabel, sortCards, suitSymbol } from "./cards.js";
import { botChoices } from "./choices.js";
import { Host, type TableState } from "./host.js";
import { combinationName, label, type Lang, type Word } from "./labels.js";
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
const LANG_KEY = "tienlen.web-table.lang";

const selected = new Set<string>();
const host = new Host(engine, render, Number.isFinite(pace) ? pace : 600, undefined, sessionStorageOrNone());
let lang: Lang = initialLang();

function sessionStorageOrNone(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined; // storage disabled: the match is not kept across a reload
  }
}

function initialLang(): Lang {
  const wanted = params.get("lang");
  if (wanted === "vi" || wanted === "en") return wanted;
  try {
    return localStorage.getItem(LANG_KEY) === "vi" ? "vi" : "en";
  } catch {
    return "en";
  }
}

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

const t = (word: Word): string => label(word, lang);

/** A seat's name: "You" (or "Bạn (You)") and "Bot 2". */
const seatName = (seat: number): string => (seat === HUMAN_SEAT ? t("you") : host.seatName(seat));

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
  if (state.update?.toAct === seat && !state.update.finished) badges.append(badge("turn", t("toPlay")));
  if (status.passed) badges.append(badge("passed", t("passed")));
  if (status.frozen) badges.append(badge("frozen", lang === "vi" ? t("frozen") : "frozen (cóng)"));
  if (status.empty) badges.append(badge("empty", t("empty")));
  if (status.auto) badges.append(badge("auto", lang === "vi" ? t("auto") : "auto (tự động)"));
  if (status.left) badges.append(badge("left", t("left")));
  if (status.place > 0) badges.append(badge("place", `${t("place")} ${status.place}`));
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
    const backs = h("div", { class: "backs", "aria-hidden": "true" });
    for (let i = 0; i < status.cardsLeft; i++) backs.append(h("span", { class: "back" }));
    box.append(
      h(
        "div",
        {
          class: `seat${state.update?.toAct === status.seat && !state.update.finished ? " to-act" : ""}`,
          "data-seat": String(status.seat),
          "data-passed": String(status.passed),
        },
        h("div", { class: "name" }, seatName(status.seat)),
        backs,
        h("div", { class: "count" }, `${status.cardsLeft} card${status.cardsLeft === 1 ? "" : "s"}`),
        seatBadges(state, status.seat),
        h("div", { class: "total", "data-match-total": String(matchTotal(state, status.seat)) }, `${t("matchTotal")} ${matchTotal(state, status.seat)}`),
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
    box.append(h("div", { class: "caption" }, t("over")));
  } else if (view.table && view.tableSeat !== undefined) {
    box.append(
      h("div", { class: "caption" }, `${t("toBeat")}: ${seatName(view.tableSeat)} — ${combinationName(view.table, lang)}`),
      h("div", { class: "cards", id: "table-cards" }, ...view.table.cards.map((card) => cardFace(card, "div", "small"))),
    );
  } else {
    const leader = view.toAct === undefined ? "" : `${seatName(view.toAct)} ${t("lead")}`;
    const must = view.mustInclude ? ` — the lead must contain ${cardLabel(view.mustInclude)}` : "";
    box.append(h("div", { class: "caption" }, `${t("newRound")}: ${leader}${must}.`));
  }
  const announcements = byId("announcements");
  announcements.replaceChildren(
    ...state.lines.filter((line) => line.tone === "announce").slice(-2).map((line) => h("li", { "data-kind": line.kind }, line.text)),
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
    h("strong", {}, seatName(HUMAN_SEAT)),
    seatBadges(state, HUMAN_SEAT),
    h("span", { class: "total", "data-match-total": String(matchTotal(state, HUMAN_SEAT)) }, `${t("matchTotal")} ${matchTotal(state, HUMAN_SEAT)}`),
  );
  const inHand = new Set(state.hand.map(cardText));
  for (const text of [...selected]) if (!inHand.has(text)) selected.delete(text);
  const legal = legalCards(state.legal);
  const hand = byId("hand");
  hand.setAttribute("aria-label", t("yourHand"));
  hand.replaceChildren(
    ...sortCards(state.hand).map((card) => {
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
  const chosenKey = cardsKey(state.hand.filter((card) => selected.has(cardText(card))));
  const play = byId<HTMLButtonElement>("play");
  play.textContent = t("play");
  play.disabled = !humanTurn || selected.size === 0;
  play.classList.toggle("ready", humanTurn && state.legal.some((move) => cardsKey(playCards(move)) === chosenKey));
  const pass = byId<HTMLButtonElement>("pass");
  pass.textContent = t("pass");
  pass.disabled = !humanTurn;
  pass.classList.toggle("legal", humanTurn && state.canPass);
  const hint = byId<HTMLButtonElement>("hint");
  hint.textContent = t("hint");
  hint.disabled = !humanTurn;
  const clear = byId<HTMLButtonElement>("clear");
  clear.textContent = t("clear");
  clear.disabled = selected.size === 0;

  const refusal = byId("refusal");
  if (state.refusal && state.phase !== "setup") {
    refusal.hidden = false;
    refusal.dataset.reason = state.refusal.reason;
    refusal.replaceChildren(
      h("span", { class: "message" }, `${t("refused")}: ${state.refusal.message}`),
      h("span", { class: "code" }, state.refusal.reason || state.refusal.code),
    );
  } else {
    refusal.hidden = true;
    refusal.replaceChildren();
    delete refusal.dataset.reason;
  }

  const legalBox = byId("legal");
  legalBox.replaceChildren();
  byId("legal-summary").textContent = humanTurn ? `${t("yourPlays")} (${state.legal.length})` : t("yourPlays");
  if (humanTurn) {
    for (const move of state.legal) {
      const cards = playCards(move);
      const combination = move.combination;
      const button = h(
        "button",
        { type: "button", class: `legal-play${move.chop ? " chop" : ""}`, "data-cards": cardsKey(cards) },
        `${combination ? combinationName(combination, lang) : "play"}${move.chop ? ` (${t("chop")})` : ""}: `,
        ...cards.flatMap((card) => [h("span", { class: isRed(card) ? "red" : "black" }, cardLabel(card)), " "]),
      );
      button.addEventListener("click", () => {
        selected.clear();
        for (const card of cards) selected.add(cardText(card));
        render(host.state);
      });
      legalBox.append(button);
    }
    if (state.legal.length === 0) legalBox.append(h("span", {}, state.canPass ? t("noBeat") : t("noPlay")));
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
        h("td", {}, seatName(row.seat)),
        h("td", { class: "place", "data-place": String(row.place) }, String(row.place)),
        h("td", { class: `net ${sign}`, "data-net": String(row.net) }, row.net > 0n ? `+${row.net}` : String(row.net)),
        h("td", { class: "match-total", "data-total": String(row.total) }, String(row.total)),
      ),
    );
  }
  const next = h("button", { id: "next-game", type: "button" }, t("nextGame"));
  next.addEventListener("click", () => void host.nextGame());
  const gameNumber = state.view?.gameNumber ?? host.games;
  const record = h("button", { id: "download-record", type: "button", title: "This game's record (docs/RECORDS.md), to replay or keep" }, t("downloadRecord"));
  record.addEventListener("click", () => download(`tienlen-game-${gameNumber}.tlr`, host.gameRecord()));
  const buttons = [next, record];
  if (host.games > 1) {
    const match = h("button", { id: "download-match", type: "button", title: "Every game of the match so far" }, t("downloadMatch"));
    match.addEventListener("click", () => download(`tienlen-match-${host.games}-games.tlr`, host.matchRecord()));
    buttons.push(match);
  }
  box.replaceChildren(
    h("h2", {}, `${t("settlement")} — game ${state.view?.gameNumber ?? ""}`),
    h("div", { class: "table-scroll" },
      h("table", { id: "settlement-table" },
        h("thead", {}, h("tr", {}, h("th", {}, t("seat")), h("th", {}, t("place")), h("th", {}, t("thisGame")), h("th", {}, t("matchTotal")))),
        body)),
    h("ul", { id: "transfers" }, ...settlement.transfers.map((transfer) =>
      h("li", { "data-reason": String(transfer.reason) }, transferText(transfer, seatName, lang)))),
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
  byId("log-summary").textContent = `${t("tableTalk")} (${state.lines.length})`;
  log.replaceChildren(...state.lines.map((line) => h("li", { class: line.tone, "data-kind": line.kind }, line.text)));
  log.scrollTo({ top: log.scrollHeight });
}

function renderLabels(): void {
  document.documentElement.lang = lang;
  for (const element of document.querySelectorAll<HTMLElement>("[data-word]")) {
    element.textContent = t(element.dataset.word as Word);
  }
}

function render(state: TableState): void {
  document.body.dataset.phase = state.phase;
  renderLabels();
  byId<HTMLButtonElement>("new-match").disabled = state.phase === "busy" || state.phase === "bots";
  if (state.phase === "setup" && state.refusal) {
    byId("connection").textContent = `${t("refused")}: ${state.refusal.message} (${state.refusal.reason || state.refusal.code})`;
  }
  const setupBox = byId<HTMLDetailsElement>("setup-box");
  if (!state.options) {
    byId("table").hidden = true;
    setupBox.open = true;
    return;
  }
  byId("table").hidden = false;
  renderOpponents(state);
  renderToBeat(state);
  renderMe(state);
  renderSettlement(state);
  renderLog(state);
}

function option(value: string, text = value, title = ""): HTMLOptionElement {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = text;
  if (title) element.title = title;
  return element;
}

function startMatch(): void {
  const variant = byId<HTMLSelectElement>("variant").value;
  const players = Number(byId<HTMLSelectElement>("players").value);
  const bot = byId<HTMLSelectElement>("bot").value;
  const seedText = byId<HTMLInputElement>("seed").value.trim();
  selected.clear();
  byId<HTMLDetailsElement>("setup-box").open = false;
  void host.newMatch({ variant, players, bot, humanSeat: HUMAN_SEAT, seed: /^\d+$/.test(seedText) ? BigInt(seedText) : undefined });
}

async function connect(): Promise<void> {
  const status = byId("connection");
  try {
    const rules = await engine.describeRules({});
    const variant = byId<HTMLSelectElement>("variant");
    variant.replaceChildren(...rules.variants.map((v) => option(v.name, v.name, v.description)));
    const bot = byId<HTMLSelectElement>("bot");
    const choices = botChoices(rules);
    const groups = new Map<string, HTMLOptGroupElement>();
    for (const choice of choices) {
      let group = groups.get(choice.group);
      if (!group) {
        group = document.createElement("optgroup");
        group.label = choice.group;
        groups.set(choice.group, group);
        bot.append(group);
      }
      group.append(option(choice.value, choice.label, choice.description));
    }
    const preferred = choices.find((choice) => choice.preferred);
    if (preferred) bot.value = preferred.value;
    for (const [name, element] of [["variant", variant], ["bot", bot], ["players", byId<HTMLSelectElement>("players")]] as const) {
      const wanted = params.get(name);
      if (wanted !== null) element.value = wanted;
    }
    byId<HTMLInputElement>("seed").value = params.get("seed") ?? "";
    status.textContent = `Connected: ${rules.variants.length} rule sets, ${choices.length} opponents.`;
    byId<HTMLButtonElement>("new-match").disabled = false;
    document.body.dataset.phase = "setup";
    // A reload takes the kept match up again; otherwise `start=1` deals at once.
    const resumed = await host.resume();
    if (resumed && host.state.options) {
      status.textContent = `Match taken up again after the reload (game ${host.state.view?.gameNumber ?? 1}).`;
    } else if (params.get("start") === "1") {
      startMatch();
    } else {
      byId<HTMLDetailsElement>("setup-box").open = true;
    }
  } catch (error) {
    const refusal = refusalOf(error);
    // A refused CORS preflight, a server that is down and a wrong address all look the same to
    // page code: a TypeError ("Failed to fetch"), which Connect reports as `unavailable` or
    // `unknown`. docs/WEB.md says how to tell them apart (the browser console, the server's
    // tienlen_web_refused_total{reason="origin"}).
    status.textContent = `Cannot reach the service at ${params.get("api") ?? location.origin}: ${refusal.message}`;
    document.body.dataset.phase = "offline";
  }
}

function wire(): void {
  const langPicker = byId<HTMLSelectElement>("lang");
  langPicker.value = lang;
  langPicker.addEventListener("change", () => {
    lang = langPicker.value === "vi" ? "vi" : "en";
    try {
      localStorage.setItem(LANG_KEY, lang);
    } catch {
      // storage disabled: the choice lasts as long as the page
    }
    render(host.state);
  });
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
renderLabels();
void connect();
