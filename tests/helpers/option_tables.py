"""Random tables for the combination checks (tests/engine/*/test_reference_model.py): every
documented value of an option (`documented_values`), and overrides kept playable — the one
combination the rules refuse (constraint follow_suit_needs_one_colour_and_suit: following suit
needs pairs of one colour and straights of one suit) is mended instead of dealt."""

from __future__ import annotations

from collections.abc import Mapping

from tienlen_rules.option_values import format_option_value
from tienlen_rules.options import (
    FOLLOWS_LAST_PLACE,
    LAST_PLACE,
    OPTIONS_BY_NAME,
    OptionType,
)
from tienlen_rules.presets import PRESETS

#: What following suit needs (RULES §6; DescribeRules' follow_suit_needs_one_colour_and_suit).
FOLLOWING_NEEDS = ("same_colour_pairs", "single_suit_straights")


def option_text(variant: str, options: Mapping[str, str], name: str) -> str:
    """An option's value at this table: its override, else its preset's value, as text."""
    if name in options:
        return options[name]
    preset = PRESETS[variant]
    return format_option_value(preset.get(name, OPTIONS_BY_NAME[name].default))


def mend_following(variant: str, options: Mapping[str, str], keep: str = "") -> dict[str, str]:
    """The overrides with follow_suit mended where the rules would refuse them: following suit
    with pairs or straights that need not be of one colour or suit. The option `keep` (the one a
    round-robin draw sets) keeps its value: when it is one of the two needs, the table stops
    following suit; otherwise it gets both needs."""
    mended = dict(options)
    if option_text(variant, mended, "follow_suit") != "true":
        return mended
    if all(option_text(variant, mended, n) == "true" for n in FOLLOWING_NEEDS):
        return mended
    if keep in FOLLOWING_NEEDS:
        mended["follow_suit"] = "false"
    else:
        mended |= dict.fromkeys(FOLLOWING_NEEDS, "true")
    return mended


#: The values drawn for a stakes option (L where the option takes it).
STAKES_VALUES = ("0", "1/2", "1", "3/2", "2", "3")
#: Values drawn for the int options: their bounds and a value between.
INT_VALUES = {
    "cards_per_hand": ("9", "11", "13"),
    "freeze_exempt_unplayed": ("0", "1", "2", "3"),
    "stake": ("100", "200"),
    "match_bankroll": ("0", "300", "1000"),
    # The table's options (RULES §9): they act on bankrolls, time-outs and leaves, which the
    # combination checks' games (bots playing every move, no host) never have.
    "min_bankroll_stakes": ("0", "20"),
    "auto_after_timeouts": ("0", "2"),
}
#: freeze_multiplier × L × stake stays whole chips with these (the only refusal, whole_chips).
MULTIPLIERS = ("0", "1", "3/2", "2", "4")


def documented_values(name: str) -> tuple[str, ...]:
    """Every documented value of an option, as text (stakes: a spread, and L where allowed)."""
    spec = OPTIONS_BY_NAME[name]
    if spec.type is OptionType.BOOL:
        return ("true", "false")
    if spec.type is OptionType.CHOICE:
        return tuple(str(c) for c in spec.choices)
    if spec.type is OptionType.INT:
        return INT_VALUES[name]
    if name == "freeze_multiplier":
        return MULTIPLIERS
    return STAKES_VALUES + ((LAST_PLACE,) if name in FOLLOWS_LAST_PLACE else ())
