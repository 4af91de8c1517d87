"""Screenshots of the web table in headless Chromium (docs/web-table.png, docs/web-table-phone.png).

    make web && python scripts/web_screenshot.py [--out docs/web-table.png] [--seed 7] [--turns 3]
    python scripts/web_screenshot.py --phone --out docs/web-table-phone.png   # 390x844, touch

Starts the service in this process (seat tokens required, sealed tokens, gRPC and web ports
picked free, the built table clients/web/dist at `/`), opens the table in Debian's Chromium through Playwright (no
browser download), deals a 4-player match from the seed, plays the human's first highlighted
legal play (or passes) for a few turns, selects the next legal play and takes the picture.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.sync_api import sync_playwright

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parent.parent
# As root, in a sandbox whose network is closed: no sandbox, no GPU, and none of Chromium's
# background connections (each would be refused, and slow the start).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
STEP_TIMEOUT_MS = 30_000
"""Longest wait for the page to answer one click (bots included); generous: CI is shared."""
WAITING = "body[data-phase=human], body[data-phase=over]"
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
"""A 390x844 phone (an iPhone 12-15's CSS size), touch and the mobile viewport on."""
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}


@contextlib.contextmanager
def service() -> Iterator[str]:
    """The service in this process on free ports; yields the web table's URL."""
    from tienlen_service.config import Config
    from tienlen_service.server import Server

    config = Config(
        host="127.0.0.1",
        port=0,
        metrics_port=None,
        web_port=0,  # in a Config (not on the command line) 0 is a free port
        web_root=str(ROOT / "clients" / "web" / "dist"),
        seal=True,
        require_seat_tokens=True,
    )
    server = Server(config)
    server.start()
    try:
        yield f"http://127.0.0.1:{server.web_port}"
    finally:
        server.stop(0, 0)


def play_turns(page: Page, turns: int) -> None:
    """The human plays its first legal play (or passes) `turns` times; bots answer."""
    for _ in range(turns):
        page.wait_for_selector(WAITING)
        if page.locator("body[data-phase=over]").count():
            return
        plays = page.locator("#legal .legal-play")
        if plays.count() > 0:
            plays.first.click()
            page.click("#play")
        else:
            page.click("#pass")
    page.wait_for_selector(WAITING)
    plays = page.locator("#legal .legal-play")
    if plays.count() > 0:
        plays.first.click()  # shows a selected play, raised above the hand


def main() -> None:
    """Start the service, play a few turns in Chromium, write the screenshot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "web-table.png")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument(
        "--phone", action="store_true", help="a 390x844 phone with touch (else 1280x800)"
    )
    parser.add_argument("--lang", choices=("en", "vi"), default="en")
    options = parser.parse_args()
    device = PHONE if options.phone else DESKTOP
    with (
        service() as url,
        tempfile.TemporaryDirectory() as profile,
        sync_playwright() as playwright,
    ):
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path="/usr/bin/chromium",
            headless=True,
            args=CHROMIUM_ARGS,
            **device,
        )
        context.set_default_timeout(STEP_TIMEOUT_MS)
        page = context.new_page()
        page.goto(
            f"{url}/?pace=0&players=4&bot=greedy&seed={options.seed}&start=1&lang={options.lang}"
        )
        play_turns(page, options.turns)
        page.screenshot(path=str(options.out))
        context.close()
    print(f"wrote {options.out}")


if __name__ == "__main__":
    main()
