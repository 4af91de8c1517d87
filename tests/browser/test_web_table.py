"""The web table (clients/web) plays a whole game in a real browser against a real service.

Debian's Chromium (installed by `make apt-deps`), driven headless by Playwright pointed at
/usr/bin/chromium: Playwright downloads no browser. The service runs with `--seal` (the table
sends every seat token all the same; `--require-seat-tokens` is off because the games are dealt
from a seed, which such a service deals only for the host's deal key, and a page is no host),
its gRPC and web ports on free ports serving the built table
(`make web`) at `/`. The test clicks as a person would — New match, a card pair that is no
combination (refused, with the service's reason on screen), then each turn the first
highlighted legal play or Pass — until the settlement shows, and checks the table on screen
against the service's own answer (the ApplyMove bytes the page received, decoded here with the
service's generated code). Then Next game: the match totals carry over.

Every wait is on the page's state (`body[data-phase]`, the refusal, the settlement), bounded
by STEP_TIMEOUT_MS; the game by MAX_HUMAN_TURNS and GAME_DEADLINE_S.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tienlen.v1 import service_pb2

try:
    from playwright import sync_api as playwright_sync
except ImportError:  # the dev extra installs it; only a hand-made venv lacks it
    if os.environ.get("CI"):
        raise
    pytest.skip("playwright is not installed (pip install -e '.[dev]')", allow_module_level=True)

# How Chromium is started and how long a click may take: one definition, the screenshot
# script's, for the script and the test.
from scripts.web_screenshot import CHROMIUM_ARGS, DESKTOP, PHONE, STEP_TIMEOUT_MS, WAITING

ROOT = Path(__file__).resolve().parents[2]
WEB_DIST = ROOT / "clients" / "web" / "dist"
CHROMIUM = "/usr/bin/chromium"
MAX_HUMAN_TURNS = 60
"""A 4-player game gives the human at most 13 plays and a few dozen passes."""
GAME_DEADLINE_S = 300.0
SEED = 7
PLAYER_COUNT = 4
RESPONSES = {"NewGame": service_pb2.NewGameResponse, "ApplyMove": service_pb2.ApplyMoveResponse}


def chromium_or_skip() -> str:
    """The system Chromium; skipped where it is missing, except in CI (where it must be)."""
    if Path(CHROMIUM).is_file() or shutil.which("chromium"):
        return CHROMIUM if Path(CHROMIUM).is_file() else str(shutil.which("chromium"))
    if os.environ.get("CI"):
        pytest.fail(
            f"{CHROMIUM} is missing: `make apt-deps` installs it (apt-get install chromium)"
        )
    pytest.skip("chromium is not installed (`make apt-deps` as root installs it)")


@pytest.fixture
def table_server(server_factory: Callable[..., Any]) -> Any:
    """A service with sealed tokens, its web port (a free one: 0, as only an in-process server
    can ask; on the command line 0 turns it off) serving the table. Seat tokens are not
    required: the tests deal from a seed (docs/SECURITY.md: only the host chooses a deal)."""
    if not (WEB_DIST / "index.html").is_file():
        pytest.fail("the web table is not built: run `make web` (make pytest builds it)")
    return server_factory(seal=True, web_port=0, web_root=str(WEB_DIST))


@pytest.fixture
def table_url(table_server: Any) -> str:
    """The table's page on the service's web port."""
    return f"http://127.0.0.1:{table_server.handle.web_port}"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module; Playwright gives it a fresh, empty profile (a new
    temporary --user-data-dir), removed when it closes."""
    executable = chromium_or_skip()
    with playwright_sync.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page in a new browser context (no cookies or storage from another test)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        yield context.new_page()
    finally:
        context.close()


def decode_connect_error(body: bytes) -> tuple[str, str]:
    """(message, ErrorInfo reason) of a Connect error body."""
    from google.rpc import error_details_pb2

    error = json.loads(body)
    reasons = []
    for detail in error.get("details", []):
        if detail.get("type") == "google.rpc.ErrorInfo":
            value = detail["value"]
            info = error_details_pb2.ErrorInfo.FromString(
                base64.b64decode(value + "=" * (-len(value) % 4))
            )
            reasons.append(info.reason)
    assert len(reasons) == 1, f"a refusal carries exactly one ErrorInfo: {error}"
    return error["message"], reasons[0]


def hand_cards(page: Any) -> list[str]:
    return page.locator("#hand .card").evaluate_all("cards => cards.map(c => c.dataset.card)")


def refuse_a_pair_that_is_no_combination(page: Any) -> None:
    """Two cards of different ranks form no combination: the service refuses, the page says why."""
    cards = hand_cards(page)
    weakest, strongest = cards[0], cards[-1]
    assert weakest[:-1] != strongest[:-1], f"a 13-card hand has two ranks: {cards}"
    page.click(f'#hand .card[data-card="{weakest}"]')
    page.click(f'#hand .card[data-card="{strongest}"]')
    with page.expect_response(lambda r: r.url.endswith("/ApplyMove")) as refused:
        page.click("#play")
    assert refused.value.status >= 400
    message, reason = decode_connect_error(refused.value.body())
    refusal = page.locator("#refusal")
    refusal.wait_for(state="visible")
    page.wait_for_selector("body[data-phase=human]")
    assert refusal.get_attribute("data-reason") == reason
    assert message in refusal.inner_text()
    assert sorted(hand_cards(page)) == sorted(cards), "a refused move changes nothing"
    page.click("#clear")


def check_highlights(page: Any) -> None:
    """The cards highlighted in the hand are exactly those of the listed legal plays."""
    listed = page.locator("#legal .legal-play").evaluate_all(
        "buttons => buttons.flatMap(b => b.dataset.cards.split(' '))"
    )
    highlighted = page.locator("#hand .card.legal").evaluate_all(
        "cards => cards.map(c => c.dataset.card)"
    )
    assert set(highlighted) == set(listed)


def take_a_turn(page: Any) -> None:
    """Play the first (weakest) highlighted legal play, or pass when there is none."""
    plays = page.locator("#legal .legal-play")
    if plays.count() > 0:
        plays.first.click()
        page.click("#play")
    else:
        page.click("#pass")


def screen_settlement(page: Any) -> dict[int, tuple[int, int, int]]:
    """seat -> (place, net, match total) as the settlement table shows them."""
    rows = page.locator("#settlement-table tbody tr").evaluate_all(
        """rows => rows.map(r => [r.dataset.seat, r.querySelector('.place').dataset.place,
                                   r.querySelector('.net').dataset.net,
                                   r.querySelector('.match-total').dataset.total])"""
    )
    return {int(s): (int(p), int(n), int(t)) for s, p, n, t in rows}


def test_a_whole_game_by_clicking_settles_as_the_service_says(table_url: str, page: Any) -> None:
    responses: list[Any] = []
    page.on("response", lambda r: responses.append(r) if r.ok else None)
    page.goto(f"{table_url}/?pace=0")
    page.wait_for_selector("body[data-phase=setup]")
    page.select_option("#players", str(PLAYER_COUNT))
    page.select_option("#bot", "greedy")
    page.fill("#seed", str(SEED))
    page.click("#new-match")

    deadline = time.monotonic() + GAME_DEADLINE_S
    refused = False
    for _ in range(MAX_HUMAN_TURNS):
        assert time.monotonic() < deadline, "the game took too long"
        page.wait_for_selector(WAITING)
        if page.locator("body[data-phase=over]").count():
            break
        check_highlights(page)
        if not refused and len(hand_cards(page)) == 13:
            refuse_a_pair_that_is_no_combination(page)
            refused = True
        take_a_turn(page)
    else:
        pytest.fail(f"no settlement after {MAX_HUMAN_TURNS} turns of the human")
    assert refused, "the human never had a full hand to try a refused move with"

    page.locator("#settlement").wait_for(state="visible")
    answers = [  # every game update the page received, in order: the deal, then each move
        message.FromString(r.body()).game
        for r in responses
        for method, message in RESPONSES.items()
        if r.url.endswith(f"/{method}")
    ]
    final = answers[-1]
    assert final.finished
    settlement = final.settlement
    totals_before = [seat.match_total for seat in final.view.seats]
    expected = {
        seat: (settlement.places[seat], settlement.net[seat], totals_before[seat] + net)
        for seat, net in enumerate(settlement.net)
    }
    assert screen_settlement(page) == expected
    assert page.locator("#transfers li").count() == len(settlement.transfers)
    assert page.locator("#log li[data-kind=game-over]").count() == 1
    # Chops, frozen seats, instant wins and rotten hands are announced, each once.
    events = [event for answer in answers for event in answer.events]
    announced = {
        "chop": sum(
            (e.HasField("played") and e.played.chop) or e.HasField("chop_settled") for e in events
        ),
        "frozen": sum(e.HasField("players_frozen") for e in events),
        "instant-win": sum(e.HasField("instant_win") for e in events),
        "rotten": len(settlement.rotten),
    }
    for kind, count in announced.items():
        assert page.locator(f"#log li[data-kind={kind}].announce").count() == count, kind

    page.click("#next-game")
    page.wait_for_selector(WAITING)
    shown_totals = page.locator("[data-match-total]").evaluate_all(
        "totals => totals.map(t => Number(t.dataset.matchTotal))"
    )
    if page.locator("body[data-phase=human]").count():
        # Seat 0 is drawn last (below the felt); the others in seat order above it.
        assert shown_totals == [*(expected[s][2] for s in range(1, PLAYER_COUNT)), expected[0][2]]
    assert "Game 2 dealt" in page.locator("#log").inner_text()


@pytest.mark.parametrize(("variant", "players"), [("dau", 3), ("northern", 2)])
def test_any_preset_and_player_count_deals_a_table(
    table_url: str, page: Any, variant: str, players: int
) -> None:
    page.goto(f"{table_url}/?pace=0")
    page.wait_for_selector("body[data-phase=setup]")
    page.select_option("#variant", variant)
    page.select_option("#players", str(players))
    with page.expect_response(lambda r: r.url.endswith("/NewGame")) as dealt:
        page.click("#new-match")
    page.wait_for_selector(WAITING)
    game = service_pb2.NewGameResponse.FromString(dealt.value.body()).game
    assert game.view.rules.variant == variant
    (started,) = (e.game_started for e in game.events if e.HasField("game_started"))
    assert len(hand_cards(page)) == started.hand_sizes[0]
    assert page.locator("#opponents .seat").count() == players - 1


def play_to_the_settlement(page: Any) -> None:
    """Take the human's turns (the first legal play, or pass) until the settlement shows."""
    deadline = time.monotonic() + GAME_DEADLINE_S
    for _ in range(MAX_HUMAN_TURNS):
        assert time.monotonic() < deadline, "the game took too long"
        page.wait_for_selector(WAITING)
        if page.locator("body[data-phase=over]").count():
            page.locator("#settlement").wait_for(state="visible")
            return
        take_a_turn(page)
    pytest.fail(f"no settlement after {MAX_HUMAN_TURNS} turns of the human")


def download_text(page: Any, button: str) -> tuple[str, str]:
    """(file name, text) of the download a click on `button` gives."""
    with page.expect_download() as started:
        page.click(button)
    download = started.value
    return download.suggested_filename, Path(download.path()).read_text(encoding="utf-8")


def test_the_downloaded_records_replay_to_the_settlements_the_page_showed(
    table_server: Any, table_url: str, page: Any
) -> None:
    from tienlen_client import GameRecord, MatchRecord, TienLenClient

    finished: list[Any] = []  # the final answer of each game, as the page received it
    page.on(
        "response",
        lambda r: (
            finished.append(service_pb2.ApplyMoveResponse.FromString(r.body()).game)
            if r.ok and r.url.endswith("/ApplyMove")
            else None
        ),
    )
    page.goto(f"{table_url}/?pace=0&players=3&bot=greedy&seed={SEED}&start=1")
    play_to_the_settlement(page)
    assert page.locator("#download-match").count() == 0  # one game: its record is the match's
    name, text = download_text(page, "#download-record")
    assert name == "tienlen-game-1.tlr"
    record = GameRecord.from_text(text)
    assert record.to_text() == text  # the canonical text, as the Python client writes it
    assert record.names == ("You", "Bot 1", "Bot 2")
    first = next(g for g in reversed(finished) if g.finished)

    with TienLenClient(table_server.address) as client:
        replayed = client.replay(record)
        assert replayed.finished
        assert replayed.settlement is not None
        assert replayed.settlement.places == tuple(first.settlement.places)
        assert replayed.settlement.net == tuple(first.settlement.net)
        assert len(replayed.settlement.transfers) == len(first.settlement.transfers)

        page.click("#next-game")
        play_to_the_settlement(page)
        name, text = download_text(page, "#download-match")
        assert name == "tienlen-match-2-games.tlr"
        match = MatchRecord.from_text(text)
        assert match.to_text() == text
        assert [g.game_number for g in match.games] == [1, 2]
        assert match.games[0] == record
        second = finished[-1]
        assert second.finished
        assert match.games[1].match_totals == tuple(s.match_total for s in second.view.seats)
        replayed = client.replay(match.games[1])
        assert replayed.settlement is not None
        assert replayed.settlement.net == tuple(second.settlement.net)


# --- on a phone and on a desktop: everything on screen, taps, a reload --------------------------

FIT = """() => {
  const width = window.innerWidth;
  const outside = [];
  for (const selector of ["#opponents .seat", "#felt", "#hand", "#hand .card", "#controls button",
                          "#legal-box", "#log-box", "#settlement", "header"]) {
    for (const element of document.querySelectorAll(selector)) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && (box.left < -0.5 || box.right > width + 0.5))
        outside.push(`${selector} ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
  }
  return {scrollWidth: document.scrollingElement.scrollWidth, width, outside};
}"""
"""What sticks out sideways: the page's scroll width, and every part of the table whose box
leaves the viewport's width (a card of the hand, a seat, a button...)."""

ON_SCREEN = """(ids) => ids.filter((id) => {
  const box = document.getElementById(id).getBoundingClientRect();
  return !(box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight
           && box.right <= window.innerWidth && box.width > 0);
})"""
"""The ids among these whose box is not wholly inside the viewport, as the page stands."""


def assert_fits(page: Any) -> None:
    fit = page.evaluate(FIT)
    assert fit["scrollWidth"] <= fit["width"], f"the page scrolls sideways: {fit}"
    assert fit["outside"] == [], f"off screen sideways: {fit['outside']}"


def table_snapshot(page: Any) -> dict[str, Any]:
    """What a reload must bring back: the hand, every seat's card count and total, the talk."""
    return {
        "hand": hand_cards(page),
        "seats": page.locator("#opponents .seat").evaluate_all(
            "seats => seats.map(s => [s.dataset.seat, s.querySelector('.count').textContent])"
        ),
        "totals": page.locator("[data-match-total]").evaluate_all(
            "totals => totals.map(t => t.dataset.matchTotal)"
        ),
        "talk": page.locator("#log li").evaluate_all("lines => lines.map(l => l.textContent)"),
        "to_beat": page.locator("#to-beat").text_content(),
    }


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_the_table_fits_the_screen_plays_by_taps_and_a_reload_brings_the_match_back(
    table_url: str, browser: Any, device: str
) -> None:
    touch = device == "phone"
    context = browser.new_context(**(PHONE if touch else DESKTOP))
    context.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        page = context.new_page()
        dealt: list[str] = []
        page.on("request", lambda r: dealt.append(r.url) if r.url.endswith("/NewGame") else None)

        def press(target: Any) -> None:
            """Tap on the phone, click on the desktop: a selector or a locator's first match."""
            element = (page.locator(target) if isinstance(target, str) else target).first
            if touch:
                element.tap()
            else:
                element.click()

        page.goto(f"{table_url}/?pace=0&players=4&bot=greedy&seed={SEED}")
        page.wait_for_selector("body[data-phase=setup]")
        assert_fits(page)
        press("#new-match")
        reloaded = False
        for turn in range(MAX_HUMAN_TURNS):
            page.wait_for_selector(WAITING)
            assert_fits(page)
            if page.locator("body[data-phase=over]").count():
                break
            # Play and Pass (and Hint) are on screen on the human's turn, with no scrolling.
            assert page.evaluate(ON_SCREEN, ["play", "pass", "hint"]) == []
            if turn == 2 and not reloaded:
                before = table_snapshot(page)
                page.reload()
                page.wait_for_selector(WAITING)
                assert table_snapshot(page) == before, "the reload lost the match"
                assert len(dealt) == 1, "the reload dealt a new game instead of taking it up"
                reloaded = True
                continue
            plays = page.locator("#legal .legal-play")
            if plays.count() > 0:
                press(plays)
                press("#play")
            else:
                press("#pass")
        else:
            pytest.fail(f"no settlement after {MAX_HUMAN_TURNS} turns of the human")
        assert reloaded, "the game ended before the reload"
        page.locator("#settlement").wait_for(state="visible")
        assert_fits(page)
        settlement = table_snapshot(page)
        page.reload()  # a reload after the game: the settlement is back, with Next game
        page.locator("#settlement").wait_for(state="visible")
        assert table_snapshot(page) == settlement
        assert page.locator("#transfers li").count() > 0
        page.locator("#setup-box summary").click()
        press("#new-match")  # forgets the kept match: a reload now shows the new one
        page.wait_for_selector(WAITING)
        assert len(dealt) == 2
        fresh = table_snapshot(page)
        page.reload()
        page.wait_for_selector(WAITING)
        assert table_snapshot(page) == fresh
        assert "Game 1 dealt" in " ".join(fresh["talk"])
    finally:
        context.close()


def test_vietnamese_labels_carry_the_english_beside_them(table_url: str, page: Any) -> None:
    page.goto(f"{table_url}/?pace=0&players=4&bot=greedy&seed={SEED}&start=1&lang=vi")
    page.wait_for_selector(WAITING)
    assert page.locator("#pass").inner_text() == "Bỏ lượt (Pass)"
    assert page.locator("#play").inner_text() == "Đánh (Play)"
    page.select_option("#lang", "en")
    assert page.locator("#pass").inner_text() == "Pass"


def web_refusals(metrics_url: str) -> dict[str, float]:
    """tienlen_web_refused_total by reason, scraped from the service's /metrics."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(metrics_url, timeout=10) as answer:
        text = answer.read().decode()
    return {
        sample.labels["reason"]: sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "tienlen_web_refused"
        for sample in family.samples
        if sample.name.endswith("_total")
    }


def test_a_page_of_an_origin_not_allowed_sees_failed_to_fetch_and_the_service_counts_it(
    server_factory: Callable[..., Any], table_url: str, page: Any
) -> None:
    """The page comes from one service's web port (its origin) and calls another's with ?api=:
    the browser is refused at the preflight, and page code sees only a network error, never the
    403. The service counts it by reason; listed with --cors-origin, the same page plays."""
    other = server_factory(web_port=0)
    api = f"http://127.0.0.1:{other.handle.web_port}"
    page.goto(f"{table_url}/?api={api}")
    page.wait_for_selector("body[data-phase=offline]")
    status = page.locator("#connection").inner_text()
    assert "Cannot reach the service" in status
    assert "Failed to fetch" in status  # Chromium's TypeError text, as Connect passes it on
    assert web_refusals(other.metrics_url).get("ORIGIN_NOT_ALLOWED", 0) >= 1

    allowing = server_factory(web_port=0, cors_origins=(table_url,))
    page.goto(f"{table_url}/?api=http://127.0.0.1:{allowing.handle.web_port}")
    page.wait_for_selector("body[data-phase=setup]")
    assert page.locator("#connection").inner_text().startswith("Connected")
