"""The rule presets and options the service knows (`DescribeRules`), as plain records.

A game names a preset (its `variant`: ``"southern"``, ``"northern"``, ...) and may override
any option by name (`new_game(options={"stake": 50})`). `Rules` is what a settings screen
needs: every preset with each option's value under it, and every option with its type,
default (the Southern value), allowed values and one sentence for a player.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import grpc

from tienlen.v1 import rules_pb2, service_pb2
from tienlen_client.errors import InvalidRequest


@dataclass(frozen=True, slots=True)
class RuleOption:
    """One rule option: `name` (the key in `options=`), `type` (``"BOOL"``, ``"INT"``,
    ``"STAKES"``, ``"CHOICE"``), `default` (its Southern value, as text), the `choices` of a
    CHOICE, the `minimum` and `maximum` of an INT (None otherwise), and a `description`."""

    name: str
    type: str
    default: str
    choices: tuple[str, ...]
    minimum: int | None
    maximum: int | None
    description: str

    @property
    def allowed(self) -> str:
        """The values it takes, in words: ``"true/false"``, ``"2..13"``, ``"void|paid"``."""
        if self.type == "BOOL":
            return "true/false"
        if self.type == "CHOICE":
            return "|".join(self.choices)
        if self.type == "INT":
            return f"{self.minimum}..{self.maximum}"
        if self.type == "STAKES":
            return "stakes (e.g. 2, 0.5, L)"
        return self.type.lower()


@dataclass(frozen=True, slots=True)
class Variant:
    """A preset: its `name`, a `description`, every option's value under it (`values`, in
    option order) and the ones that differ from the Southern defaults (`overrides`)."""

    name: str
    description: str
    values: dict[str, str]
    overrides: dict[str, str]


@dataclass(frozen=True, slots=True)
class Rules:
    """DescribeRules' answer: the `variants` (presets), the `options`, the `bots` SuggestMove
    takes; `raw` is the wire message."""

    variants: tuple[Variant, ...]
    options: tuple[RuleOption, ...]
    bots: tuple[str, ...]
    raw: service_pb2.DescribeRulesResponse = field(repr=False, compare=False)

    @classmethod
    def from_pb(cls, msg: service_pb2.DescribeRulesResponse) -> Rules:
        """From the wire message."""
        return cls(
            variants=tuple(
                Variant(
                    v.name,
                    v.description,
                    {o.name: o.value for o in v.option_values},
                    {o.name: o.value for o in v.overrides},
                )
                for v in msg.variants
            ),
            options=tuple(_option(o) for o in msg.options),
            bots=tuple(msg.bots),
            raw=msg,
        )

    def variant(self, name: str) -> Variant:
        """The preset called `name`; `InvalidRequest` (``UNKNOWN_VARIANT``) naming the known
        ones otherwise, as the service would answer a game dealt under it."""
        for variant in self.variants:
            if variant.name == name:
                return variant
        known = ", ".join(v.name for v in self.variants)
        raise InvalidRequest(
            grpc.StatusCode.INVALID_ARGUMENT,
            "UNKNOWN_VARIANT",
            f"unknown preset {name!r}; the presets are {known}",
            field_violations=(("rules.variant", f"not one of {known}"),),
        )

    def option(self, name: str) -> RuleOption:
        """The option called `name`; `InvalidRequest` (``UNKNOWN_OPTION``) otherwise."""
        for option in self.options:
            if option.name == name:
                return option
        raise InvalidRequest(
            grpc.StatusCode.INVALID_ARGUMENT,
            "UNKNOWN_OPTION",
            f"unknown rule option {name!r} (`tienlen rules` lists them)",
            field_violations=((f"rules.options.{name}", "not a rule option"),),
        )


def _option(msg: rules_pb2.RuleOption) -> RuleOption:
    kind = rules_pb2.OptionType.Name(msg.type).removeprefix("OPTION_TYPE_")
    ranged = msg.type == rules_pb2.OPTION_TYPE_INT
    return RuleOption(
        name=msg.name,
        type=kind,
        default=msg.default_value,
        choices=tuple(msg.choices),
        minimum=msg.minimum if ranged else None,
        maximum=msg.maximum if ranged else None,
        description=msg.description,
    )
