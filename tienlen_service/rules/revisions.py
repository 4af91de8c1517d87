"""Rules revisions: a game keeps the defaults it was dealt under when a default changes.

A state token names its rules by preset and overrides, and every call rebuilds them from the
code that runs it. So when a release changes an option's default, a game in progress would
change rules at the first call a new replica answers, halfway through a round, with money
on it. Instead every change of a default is recorded here, as data, with the value it
replaced. A state records the revision it was made under (`RULES_REVISION` from now on; 0 in
tokens from before revisions were recorded), and `pinned_overrides` gives an older game, below
its own overrides, the value each later change replaced: the game, and the rest of its match,
are played as they were dealt. Its next token names those values as overrides, so its view
shows them too.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from tienlen_service.rules.options import PRESETS


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
        "nothing",
        (),
        "5+ consecutive pairs are bombs that chop (RULES §3: consecutive pairs, 3+ pairs, are"
        " bombs; source 002 counts 5 and 6 consecutive pairs among the bombs that chop a 2)",
    ),
)

#: The revision of the rules this code deals new games under.
RULES_REVISION: Final = max((c.revision for c in DEFAULT_CHANGES), default=0)


class NewerRevisionError(ValueError):
    """A state made under rules newer than this code knows (a newer release's token)."""


def pinned_overrides(
    variant: str, revision: int, overrides: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, str], ...]:
    """The overrides that play a game made under `revision` as it was dealt: its own, plus, for
    each option a later change touched and the game does not override, the value in force at
    `revision` (sorted by name, as rule sets are keyed). NewerRevisionError for a revision this
    code doesn't know: its defaults can't be reproduced here."""
    if revision == RULES_REVISION:
        return overrides
    if not 0 <= revision < RULES_REVISION:
        raise NewerRevisionError(
            f"the state was made under rules revision {revision}; this service knows"
            f" revisions 0 to {RULES_REVISION}"
        )
    pinned = dict(overrides)
    preset = PRESETS.get(variant, {})
    for change in sorted(DEFAULT_CHANGES, key=lambda c: c.revision):
        applies = variant in change.presets if change.presets else change.option not in preset
        if change.revision > revision and applies:
            pinned.setdefault(change.option, change.previous)  # the earliest: in force then
    return tuple(sorted(pinned.items()))
