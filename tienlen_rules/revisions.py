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

A change of reading where no default changed (a rule the engine read one way, which the rule
book reads another) is recorded too (`READING_CHANGES`): a game dealt before it asks
`keeps_old_reading` and is played, to the end of its match, by the reading it was dealt under.
A record names no revision: it replays under the current readings (docs/RECORDS.md).

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


class ReadingChange(NamedTuple):
    """Revision `revision` changed how the engine reads a rule where no option's default
    changed: `reading` names it (the engine asks `keeps_old_reading` about it), `previous` says
    what a game dealt before it keeps, `why` why it changed."""

    revision: int
    reading: str
    previous: str
    why: str


#: Cóng decided once, at each finish, under every scheme (issue #38, `finishing.frozen_at_finish`).
CONG_DECIDED_ONCE: Final = "cong_decided_once"
#: The card count's first player out wins, whatever it goes out on (issue #38,
#: `finishing.ranks_last`).
CARD_COUNT_FIRST_OUT_WINS: Final = "card_count_first_out_wins"
#: follow_suit refused with mixed pairs or straights (issue #38, `ruleset._check`).
FOLLOW_SUIT_OF_ONE_COLOUR_AND_SUIT: Final = "follow_suit_of_one_colour_and_suit"

READING_CHANGES: Final[tuple[ReadingChange, ...]] = (
    ReadingChange(
        2,
        CONG_DECIDED_ONCE,
        "freeze_exempt_unplayed spared the players who had not played at every finish that"
        " judged cóng while exactly that many had not played, and the card count ignored it;"
        " a card-count loser holding every dealt card paid doubled (FROZEN) without being shown"
        " frozen",
        "the exemption is the Đà Nẵng rule of the win ('về nhất', sources 000/001/002), so it"
        " spares only at the finish that takes 1st and a later finish that judges cóng"
        " (freeze_at) freezes whoever has still not played, as freeze_at says; it spares under"
        " the card count too; and a frozen card-count loser is frozen in the state, the view"
        " and the events (PlayersFrozen) as in the other schemes",
    ),
    ReadingChange(
        2,
        FOLLOW_SUIT_OF_ONE_COLOUR_AND_SUIT,
        "follow_suit was played with pairs and straights of mixed colours or suits, a mixed pair"
        " followed as a black one and a mixed straight by its top card's suit",
        "following suit and colour is defined for pairs of one colour and straights of one suit"
        " only (RULES §6; no source follows a mixed one): follow_suit without same_colour_pairs"
        " and single_suit_straights is refused (INCOMPATIBLE_OPTIONS)",
    ),
    ReadingChange(
        2,
        CARD_COUNT_FIRST_OUT_WINS,
        "under the card count, going out on a 2 or a four of a kind ranked the player last where"
        " finish_on_two / finish_on_four_of_a_kind said so: the game went on and that player,"
        " holding no card, paid nothing",
        "the card count prices no place, and its game ends when the first player goes out, who"
        " wins (source 004: 'ván chơi sẽ kết thúc ngay khi có người đánh hết ... người đó cũng là"
        " người chiến thắng'): finish_on_two and finish_on_four_of_a_kind change nothing there",
    ),
)

#: The revision of the rules this code deals new games under.
RULES_REVISION: Final = max(
    [d.revision for d in DEFAULT_CHANGES] + [r.revision for r in READING_CHANGES], default=0
)


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


def keeps_old_reading(revision: int, reading: str) -> bool:
    """Whether a game dealt under `revision` keeps the reading `reading` had before it changed
    (`READING_CHANGES`): it was dealt before the change."""
    return any(c.reading == reading and c.revision > revision for c in READING_CHANGES)
