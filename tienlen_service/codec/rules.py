"""Rules: `tienlen.v1` RuleSetSpec <-> the engine's RuleSet, and DescribeRules' descriptions.

A rule set travels as a variant (a preset name; empty means Southern) and option overrides,
name -> value text, read and checked by the engine (`build_rules`). Whatever the engine refuses
comes back as its `SetupError`, with the field path put under the request's field. The codec
adds one check of its own: no option may produce chip amounts that could overflow the wire's
int64 (AMOUNT_TOO_LARGE).

Out, a game's spec carries its overrides plus, for a game dealt before a default changed, the
value it keeps (`pinned_defaults`), so that read against today's defaults it plays the same
rules, and the effective value of every option that differs from the preset's (what the
overrides derive too: a frontend prices every card from them). DescribeRules lists every
option (`option_to_pb`), every preset with its values and its overrides of the Southern
defaults (`variants_to_pb`), the constraints between options (`constraints_to_pb`), and the
bots and difficulty levels; `describe_rules_to_pb` is the whole answer.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Final

from tienlen.v1 import rules_pb2, service_pb2
from tienlen_rules import (
    BOTS,
    CONSTRAINTS,
    FOLLOWS_LAST_PLACE,
    LEVELS,
    OPTIONS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    ConstraintKind,
    OptionSpec,
    OptionType,
    RuleSet,
    SetupError,
    build_rules,
    format_option_value,
    max_loss_stakes,
    pinned_defaults,
)

INT64_MAX: Final = (1 << 63) - 1
#: Largest chip amount any one option may produce; leaves room (x1000) for multiplied,
#: per-card and summed payments and match totals to stay inside int64 on the wire.
MAX_OPTION_CHIPS: Final = INT64_MAX // 1_000_000

#: The stakes options, those that follow L last (a huge L is blamed on place_last_to_first).
_AMOUNT_OPTIONS: Final = tuple(
    sorted(
        (o for o in OPTIONS if o.type is OptionType.STAKES),
        key=lambda o: o.name in FOLLOWS_LAST_PLACE,
    )
)
_OPTION_TYPES: Final = {
    OptionType.BOOL: rules_pb2.OPTION_TYPE_BOOL,
    OptionType.INT: rules_pb2.OPTION_TYPE_INT,
    OptionType.STAKES: rules_pb2.OPTION_TYPE_STAKES,
    OptionType.CHOICE: rules_pb2.OPTION_TYPE_CHOICE,
}
_CONSTRAINT_KINDS: Final = {
    ConstraintKind.APPLIES_WHEN: rules_pb2.CONSTRAINT_KIND_APPLIES_WHEN,
    ConstraintKind.DERIVED_VALUE: rules_pb2.CONSTRAINT_KIND_DERIVED_VALUE,
    ConstraintKind.REFUSED_UNLESS: rules_pb2.CONSTRAINT_KIND_REFUSED_UNLESS,
}
_SOUTHERN_VALUES: Final = build_rules("southern").option_values()


def rules_from_pb(spec: rules_pb2.RuleSetSpec, field: str = "rules") -> RuleSet:
    """The rule set of a RuleSetSpec; SetupError (field paths under `field`) if it can't exist."""
    variant = spec.variant or "southern"
    try:
        rules = build_rules(variant, dict(spec.options))
    except SetupError as exc:
        raise SetupError(
            exc.code,
            exc.message,
            f"{field}.{exc.field}" if exc.field else field,
            constraint=exc.constraint,  # the ErrorInfo's "constraint" metadata
        ) from None
    check_amounts(rules, field)
    return rules


def check_amounts(rules: RuleSet, field: str = "rules") -> None:
    """Refuse rules whose chip amounts could overflow the wire's int64 (AMOUNT_TOO_LARGE)."""
    for spec in _AMOUNT_OPTIONS:
        if getattr(rules, spec.name) * rules.stake > MAX_OPTION_CHIPS:
            raise SetupError(
                "AMOUNT_TOO_LARGE",
                f"option {spec.name!r} times the stake exceeds {MAX_OPTION_CHIPS} chips",
                f"{field}.options.{spec.name}",
            )


def rules_to_pb(rules: RuleSet) -> rules_pb2.RuleSetSpec:
    """The RuleSetSpec of `rules` as a client reads it: the game's overrides plus, for a game
    dealt before a default changed, the value it keeps (`revisions.pinned_defaults`). Read
    against today's defaults (DescribeRules), or sent to NewGame, it gives the rules the game
    is played by."""
    return rules_pb2.RuleSetSpec(
        variant=rules.variant,
        options=pinned_defaults(rules.variant, rules.revision) | dict(rules.overrides),
        effective_values=effective_values(rules),
    )


def effective_values(rules: RuleSet) -> list[rules_pb2.OptionValue]:
    """Every option whose value in `rules` differs from the preset's today (DescribeRules), in
    option order: the overrides, the values they derive, the defaults an older game keeps."""
    preset = _preset_values(rules.variant)
    return [
        rules_pb2.OptionValue(name=name, value=text)
        for name, value in rules.option_values().items()
        if (text := format_option_value(value)) != preset[name]
    ]


@lru_cache(maxsize=16)
def _preset_values(variant: str) -> dict[str, str]:
    return {k: format_option_value(v) for k, v in build_rules(variant).option_values().items()}


def constraints_to_pb() -> list[rules_pb2.OptionConstraint]:
    """DescribeRules' constraints between options (`constraints.CONSTRAINTS`)."""
    return [
        rules_pb2.OptionConstraint(
            name=c.name,
            kind=_CONSTRAINT_KINDS[c.kind],
            options=list(c.options),
            when=[
                rules_pb2.OptionCondition(option=w.option, values=list(w.values), negated=w.negated)
                for w in c.when
            ],
            values=[rules_pb2.OptionValue(name=k, value=v) for k, v in c.values],
            source=c.source,
            refusal=c.refusal,
            description=c.description,
        )
        for c in CONSTRAINTS
    ]


@lru_cache(maxsize=512)
def cached_rules(variant: str, overrides: tuple[tuple[str, str], ...], revision: int) -> RuleSet:
    """Rules of a decoded state, memoised: a state names the same few rule sets again and again."""
    return build_rules(variant, dict(overrides), revision)


def option_to_pb(spec: OptionSpec) -> rules_pb2.RuleOption:
    """DescribeRules' description of one option."""
    return rules_pb2.RuleOption(
        name=spec.name,
        type=_OPTION_TYPES[spec.type],
        default_value=format_option_value(spec.default),
        choices=list(spec.choices),
        minimum=spec.minimum,
        maximum=spec.maximum,
        description=spec.description,
    )


def variants_to_pb() -> list[rules_pb2.Variant]:
    """Every preset with every option's value and its overrides of the Southern defaults."""
    variants = []
    for name in PRESETS:
        rules = build_rules(name)
        values = rules.option_values()
        variants.append(
            rules_pb2.Variant(
                name=name,
                description=PRESET_DESCRIPTIONS.get(name, ""),
                option_values=[
                    rules_pb2.OptionValue(name=k, value=format_option_value(v))
                    for k, v in values.items()
                ],
                overrides=[
                    rules_pb2.OptionValue(name=k, value=format_option_value(v))
                    for k, v in values.items()
                    if v != _SOUTHERN_VALUES[k]
                ],
                max_loss_stakes=format_option_value(max_loss_stakes(rules)),
            )
        )
    return variants


@cache
def describe_rules_to_pb() -> service_pb2.DescribeRulesResponse:
    """DescribeRules' answer, built once: the presets, options, bots and levels are fixed for
    the life of the process."""
    return service_pb2.DescribeRulesResponse(
        variants=variants_to_pb(),
        options=[option_to_pb(spec) for spec in OPTIONS],
        bots=sorted(BOTS),
        levels=[
            service_pb2.BotLevel(
                name=level.name,
                bot=level.bot,
                description=level.description,
                strength_vs_greedy=level.strength,
                deals=level.deals,
            )
            for level in LEVELS
        ],
        constraints=constraints_to_pb(),
    )
