"""Rules revisions: a game keeps the defaults it was dealt under when a default changes.

A state token names its rules by preset and overrides, and every call rebuilds them from the
code that runs it. So when a release changes an option's default, a game in progress would
change rules at the first call a new replica answers, halfway through a round, with money on
it. Instead every change of a default is recorded here, as data, with the value it replaced.
A rule set carries the revision its game was dealt under (`RULES_REVISION` for games dealt
now; 0 for tokens from before revisions were recorded), its state token carries that same
revision, and `pinned_defaults` gives an older game the value each later change replaced, as
if its preset still said so: the game, and the rest of its match, are played as they were
dealt. Its tokens stay as the release that dealt it wrote them (the same overrides, the same
revision), so during a rolling update that release's replicas still read them.

A revision newer than this code (a token from a newer release, met during a rolling update)
is played with the defaults this code knows and keeps its revision, so the newer replicas play
it as dealt again. To keep even those calls on the new defaults, ship a default change in a
release that still deals under the previous revision, and deal under the new one a release
later (a change of `RULES_REVISION` alone).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from tienlen_rules.choices import LongPairsChop
from tienlen_rules.presets import PRESETS


class DefaultChange(NamedTuple):
    """Revision `revision` changed `option`'s default (in `presets`; empty: in every preset that
    does not set the option itself) from `previous` (canonical option text), because `why`."""

    revision: int
    option: str
    previous: str
    presets: tuple[str, ...]
    why: str


DEFAULT_CHANGES: Final[tuple[DefaultChange, ...]] = (
    DefaultChange(
        1,
        "long_pairs_chop",
        LongPairsChop.NOTHING,
        (),
        "5+ consecutive pairs are bombs that chop (RULES §3: consecutive pairs, 3+ pairs, are"
        " bombs; source 003: they win as 3 consecutive pairs do)",
    ),
)

#: The revision of the rules this code deals new games under.
RULES_REVISION: Final = max((c.revision for c in DEFAULT_CHANGES), default=0)


def pinned_defaults(variant: str, revision: int) -> dict[str, str]:
    """The defaults a game of `variant` dealt under `revision` keeps: for each option a later
    change touched, the value in force at `revision` (canonical text; nothing for the current
    revision or a newer one)."""
    pinned: dict[str, str] = {}
    preset = PRESETS.get(variant, {})
    for change in sorted(DEFAULT_CHANGES, key=lambda c: c.revision):
        applies = variant in change.presets if change.presets else change.option not in preset
        if change.revision > revision and applies:
            pinned.setdefault(change.option, change.previous)  # the earliest: in force then
    return pinned
