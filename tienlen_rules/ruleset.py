"""The rule set (*luật chơi*): one immutable record of every option, built from a preset name.

`build_rules("hue", {"stake": 50})` resolves a table's rules here and nowhere else, in this
order (docs/RULE-OPTIONS.md, "How a table's rules are resolved"):

1. the preset: the Southern defaults, the preset's values (`presets.PRESETS`), and for a game
   dealt under an older rules revision the defaults it keeps (`revisions.pinned_defaults`);
2. the table's overrides, by name;
3. the values derived from other options (`constraints.CONSTRAINTS`, kind `derived_value`): an
   amount given as L takes place_last_to_first; with scoring = points, every penalty option
   the table did not give takes its points value. Nothing else depends on another option;
4. what the table can play decides its bombs (`_derive`): a class of the chop table is a bomb
   only when it is a combination at this table (no consecutive pairs without
   `consecutive_pairs`, ...), and only bombs chop, rot, or cost a frozen player — a penalty
   value prices a bomb, it never makes one;
5. the refusals (`constraints.CONSTRAINTS`, kind `refused_unless`): the stake must make every
   amount whole chips.

Hot-path lookups (the chop table, penalty values) are derived once here, so the engine reads
rules as data and never branches on a variant's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from fractions import Fraction
from functools import lru_cache

from tienlen_rules.cards import RANK_TWO, THREE_OF_CLUBS, THREE_OF_SPADES, CardSet
from tienlen_rules.choices import (
    CardCountRotten,
    ChopChainOutLink,
    ChopOnLastCard,
    ChopTableName,
    DealerRotation,
    FinishOnFourOfAKind,
    FinishOnTwo,
    FirstGameLeader,
    FourTwos,
    FreezeAt,
    FrozenPays,
    InstantWinList,
    InstantWinTie,
    LeaveMidGame,
    LongPairsChop,
    LossCap,
    MissingStartingCard,
    RottenPayee,
    Scoring,
    StartingCard,
    TimeoutAction,
)
from tienlen_rules.chop_tables import (
    CHOP_TABLES,
    MOST_PAIRS,
    NO_CHOPS_BY_SHAPE,
    SUITED_STRAIGHT_CHOPS,
    ChopsByShape,
    by_shape,
    with_longer_pairs,
)
from tienlen_rules.combinations import (
    CONSECUTIVE_PAIRS,
    CONSECUTIVE_PAIRS_CLASSES,
    CONSECUTIVE_TRIPLES,
    ChopClass,
)
from tienlen_rules.constraints import CONSTRAINTS, ConstraintKind, condition_holds
from tienlen_rules.errors import SetupError
from tienlen_rules.option_values import format_option_value, parse_option_value
from tienlen_rules.options import (
    FOLLOWS_LAST_PLACE,
    LAST_PLACE,
    OPTIONS,
    OPTIONS_BY_NAME,
    PENALTY_OPTIONS,
)
from tienlen_rules.presets import PRESETS
from tienlen_rules.revisions import (
    FOLLOW_SUIT_OF_ONE_COLOUR_AND_SUIT,
    RULES_REVISION,
    keeps_old_reading,
    pinned_defaults,
)

OptionValue = bool | int | Fraction | str


@dataclass(frozen=True, slots=True, eq=False)
class RuleSet:
    """Every rule option's value (see `options.OPTIONS` for their meaning) plus derived tables.

    A rule set is identified by its preset, canonical overrides and rules revision (the
    defaults in force when its game was dealt, `revisions`): equal keys, equal rules.
    """

    variant: str
    overrides: tuple[tuple[str, str], ...]
    revision: int
    cards_per_hand: int
    deal_all_cards: bool
    four_twos: FourTwos
    four_threes_lay_down_twos: bool
    same_colour_pairs: bool
    consecutive_pairs: bool
    consecutive_triples: bool
    single_suit_straights: bool
    follow_suit: bool
    pair_of_twos_beats_pair_of_twos: bool
    chop_table: ChopTableName
    suited_straight_chops: bool
    long_pairs_chop: LongPairsChop
    out_of_turn_chops: bool
    chop_on_last_card: ChopOnLastCard
    chop_chain_out_link: ChopChainOutLink
    starting_card: StartingCard
    starting_card_every_game: bool
    first_game_leader: FirstGameLeader
    missing_starting_card: MissingStartingCard
    pass_lockout: bool
    lead_stealing: bool
    steal_winner_pairs_lead: bool
    finish_on_two: FinishOnTwo
    finish_on_four_of_a_kind: FinishOnFourOfAKind
    instant_wins: InstantWinList
    first_game_instant_wins: bool
    any_game_instant_wins_in_first_game: bool
    instant_win_tie: InstantWinTie
    triple_counts_as_pair: bool
    instant_wins_on_short_hands: bool
    count_pigs: bool
    first_game_after_instant_win: bool
    instant_win_stakes: Fraction
    freezing: bool
    freeze_at: FreezeAt
    freeze_multiplier: Fraction
    frozen_pays: FrozenPays
    freeze_exempt_unplayed: int
    alone_with_frozen_pays_place: bool
    chops_paid_on_freeze: bool
    compensation: bool
    blind_three_stakes: Fraction
    blind_three_in_first_game: bool
    rotten_three_stakes: Fraction
    scoring: Scoring
    stake: int
    card_count_per_card: Fraction
    card_count_rotten: CardCountRotten
    rotten_payee: RottenPayee
    dealer_rotation: DealerRotation
    place_last_to_first: Fraction
    place_third_to_second: Fraction
    place_second_to_first: Fraction
    penalty_two_spades: Fraction
    penalty_two_clubs: Fraction
    penalty_two_diamonds: Fraction
    penalty_two_hearts: Fraction
    penalty_three_pairs: Fraction
    penalty_four_of_a_kind: Fraction
    penalty_four_pairs: Fraction
    penalty_five_pairs: Fraction
    penalty_six_pairs: Fraction
    penalty_three_triples: Fraction
    rotten_two_flat: Fraction
    match_bankroll: int
    first_game_when_winner_leaves: bool
    min_bankroll_stakes: int
    loss_cap: LossCap
    timeout_action: TimeoutAction
    auto_after_timeouts: int
    leave_mid_game: LeaveMidGame
    # Derived, read by the hot paths.
    chop_targets: Mapping[ChopClass, frozenset[ChopClass]] = field(default_factory=dict)
    out_of_turn: frozenset[ChopClass] = frozenset()
    # `chop_targets` indexed by the plays' shapes, for `beating.beat`.
    chops_by_shape: ChopsByShape = NO_CHOPS_BY_SHAPE
    two_values: tuple[Fraction, Fraction, Fraction, Fraction] = (Fraction(0),) * 4
    bomb_values: Mapping[ChopClass, Fraction] = field(default_factory=dict)
    # The classes of plays some bomb of this table may chop out of turn (RULES §9.5's pause).
    out_of_turn_targets: frozenset[ChopClass] = frozenset()
    # The hash of the rule set's key, computed once: rule sets key the hot paths' caches.
    key_hash: int = 0
    # Memo of `claims.chop_open` by the table's cards (every answer asks; a rule set meets a
    # few hundred different tables). Filled as it is read; not part of the rules.
    open_tables: dict[int, bool] = field(default_factory=dict)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RuleSet):
            return NotImplemented
        return (self.variant, self.overrides, self.revision) == (
            other.variant,
            other.overrides,
            other.revision,
        )

    def __hash__(self) -> int:
        return self.key_hash or hash((self.variant, self.overrides, self.revision))

    @property
    def start_card(self) -> int:
        """The card that must open a first game: ♠3, or ♣3 in Huế."""
        return (
            THREE_OF_CLUBS if self.starting_card == StartingCard.THREE_OF_CLUBS else THREE_OF_SPADES
        )

    @property
    def ends_at_first_finish(self) -> bool:
        """Đếm lá ends the game as soon as one player has gone out."""
        return self.scoring == Scoring.CARD_COUNT

    def option_values(self) -> dict[str, OptionValue]:
        """Every option's value by name, in `OPTIONS` order; "L" where an option follows
        place_last_to_first (its field holds the resolved amount)."""
        values: dict[str, OptionValue] = {o.name: getattr(self, o.name) for o in OPTIONS}
        given = dict(self.overrides)
        for name in FOLLOWS_LAST_PLACE:
            declared = given.get(
                name, PRESETS[self.variant].get(name, OPTIONS_BY_NAME[name].default)
            )
            if declared == LAST_PLACE:
                values[name] = LAST_PLACE
        return values

    def twos_penalty(self, cards: CardSet) -> Fraction:
        """The penalty value of the 2s among `cards`, each by its suit (♠♣ ½, ♦♥ 1 by default)."""
        twos = cards >> (4 * RANK_TWO)
        return sum((self.two_values[s] for s in range(4) if twos >> s & 1), Fraction(0))

    def amount(self, stakes: Fraction) -> int:
        """Chips for a number of stakes; exact, because `build_rules` checked the stake."""
        chips = stakes * self.stake
        if chips.denominator != 1:
            raise SetupError(
                "FRACTIONAL_AMOUNT",
                f"{stakes} stakes of {self.stake} chips is not a whole number",
                "stake",
            )
        return int(chips)


def build_rules(
    variant: str = "southern",
    overrides: Mapping[str, object] | None = None,
    revision: int = RULES_REVISION,
) -> RuleSet:
    """The rule set of a named preset with option overrides, under the defaults of rules
    `revision` (new games: the current one); SetupError names a bad input."""
    canonical: list[tuple[str, str]] = []
    for name, raw in (overrides or {}).items():
        spec = OPTIONS_BY_NAME.get(name)
        if spec is None:
            raise SetupError("UNKNOWN_OPTION", f"unknown rule option {name!r}", f"options.{name}")
        try:
            value = parse_option_value(spec, raw)
        except ValueError as exc:
            raise SetupError(
                "INVALID_OPTION_VALUE", f"option {name!r}: {exc}", f"options.{name}"
            ) from None
        canonical.append((name, format_option_value(value)))
    return _build(variant, tuple(sorted(canonical)), revision)


@lru_cache(maxsize=256)
def _build(variant: str, overrides: tuple[tuple[str, str], ...], revision: int) -> RuleSet:
    preset = PRESETS.get(variant)
    if preset is None:
        raise SetupError(
            "UNKNOWN_VARIANT",
            f"unknown variant {variant!r}; known: {', '.join(PRESETS)}",
            "variant",
        )
    # 1. The preset (at the game's rules revision).
    values: dict[str, OptionValue] = {o.name: o.default for o in OPTIONS} | preset
    for name, text in pinned_defaults(variant, revision).items():  # as the preset's own
        values[name] = parse_option_value(OPTIONS_BY_NAME[name], text)
    # 2. The overrides.
    given = dict(overrides)
    for name, text in given.items():
        values[name] = parse_option_value(OPTIONS_BY_NAME[name], text)
    # 3. The values derived from other options, in `CONSTRAINTS` order.
    _derive_values(values, given)
    rules = RuleSet(variant=variant, overrides=overrides, revision=revision, **values)  # type: ignore[arg-type]
    rules = _derive(rules)
    _check(rules)
    return rules


def _derive_values(values: dict[str, OptionValue], given: Mapping[str, str]) -> None:
    """Step 3: every `derived_value` constraint whose conditions hold sets the options it
    derives, except those the table gave (an amount given as L is resolved either way)."""
    for constraint in CONSTRAINTS:
        if constraint.kind is not ConstraintKind.DERIVED_VALUE:
            continue
        if not all(condition_holds(c, values) for c in constraint.when):  # type: ignore[arg-type]
            continue
        if constraint.source:
            for name in constraint.options:
                if values[name] == LAST_PLACE:
                    values[name] = values[constraint.source]
        for name, text in constraint.values:
            if name not in given:
                values[name] = parse_option_value(OPTIONS_BY_NAME[name], text)


def playable(rules: RuleSet, chop_class: ChopClass) -> bool:
    """Whether plays of this chop class are combinations at this table (RULES §3): runs of
    pairs only with `consecutive_pairs`, runs of triples only with `consecutive_triples`."""
    if chop_class.kind == CONSECUTIVE_PAIRS:
        return rules.consecutive_pairs
    if chop_class.kind == CONSECUTIVE_TRIPLES:
        return rules.consecutive_triples
    return True


def _derive(rules: RuleSet) -> RuleSet:
    listed = CHOP_TABLES[rules.chop_table]
    table = with_longer_pairs(listed) if rules.long_pairs_chop == LongPairsChop.LADDER else listed
    targets = dict(table.targets)
    if rules.suited_straight_chops:
        targets |= SUITED_STRAIGHT_CHOPS
    # Step 4: a bomb is a class of the table its players can play (RULES §3: "the combinations
    # that can chop"), and it chops only what can be played; nothing else chops, rots or is
    # charged to a frozen player, whatever its penalty value.
    targets = {
        bomb: frozenset(t for t in chopped if playable(rules, t))
        for bomb, chopped in targets.items()
        if playable(rules, bomb)
    }
    # In this order: the rotten split tries the bombs in it (`rotten._best`).
    bomb_values = {
        ChopClass.THREE_PAIRS: rules.penalty_three_pairs,
        ChopClass.FOUR_PAIRS: rules.penalty_four_pairs,
        ChopClass.FIVE_PAIRS: rules.penalty_five_pairs,
        ChopClass.SIX_PAIRS: rules.penalty_six_pairs,
        ChopClass.FOUR_OF_A_KIND: rules.penalty_four_of_a_kind,
        ChopClass.THREE_TRIPLES: rules.penalty_three_triples,
    }
    # A run of pairs only the ladder makes a bomb is worth what the run one pair shorter is,
    # unless its own penalty option values it [ours]: no source values those runs, and a chop
    # is always paid (RULES §5) — 6 pairs on 5 pairs must not pay less than 5 on 4.
    for n in range(4, MOST_PAIRS + 1):
        run = CONSECUTIVE_PAIRS_CLASSES[n]
        if run in table.targets and run not in listed.targets and not bomb_values.get(run):
            bomb_values[run] = bomb_values.get(CONSECUTIVE_PAIRS_CLASSES[n - 1], Fraction(0))
    out_of_turn = (
        frozenset(b for b in table.out_of_turn if b in targets)
        if rules.out_of_turn_chops
        else frozenset()
    )
    derived = {
        "chop_targets": targets,
        "chops_by_shape": by_shape(targets),
        "out_of_turn": out_of_turn,
        "out_of_turn_targets": frozenset(t for bomb in out_of_turn for t in targets[bomb]),
        "two_values": (
            rules.penalty_two_spades,
            rules.penalty_two_clubs,
            rules.penalty_two_diamonds,
            rules.penalty_two_hearts,
        ),
        "bomb_values": {k: v for k, v in bomb_values.items() if v and k in targets},
        "key_hash": hash((rules.variant, rules.overrides, rules.revision)),
    }
    return RuleSet(**{f.name: getattr(rules, f.name) for f in fields(RuleSet)} | derived)


def _check(rules: RuleSet) -> None:
    """Reject rule sets that can't be played or paid in whole chips."""
    _check_following(rules)
    # Amounts are option values, sums of them, or an option value times the frozen multiplier:
    # cóng multiplies L (places and points schemes), and đếm lá multiplies every part of a frozen
    # loser's payment (a stake per card and the rotten conversions). Each must be whole chips.
    multiplied = {"place_last_to_first"}
    if rules.scoring == Scoring.CARD_COUNT:
        multiplied |= {*PENALTY_OPTIONS}
    for spec in OPTIONS:
        value = getattr(rules, spec.name)
        if not isinstance(value, Fraction) or spec.name == "freeze_multiplier":
            continue
        factors = [(Fraction(1), "")]
        if spec.name in multiplied:
            factors.append((rules.freeze_multiplier, " × freeze_multiplier"))
        for factor, why in factors:
            if (value * factor * rules.stake).denominator != 1:
                raise SetupError(
                    "FRACTIONAL_AMOUNT",
                    f"stake {rules.stake} makes option {spec.name!r} ({value} stakes{why}) a fraction of a chip",
                    "options.stake",
                    constraint="whole_chips",
                )
    frozen_card = rules.card_count_per_card * rules.freeze_multiplier
    if rules.scoring == Scoring.CARD_COUNT and (frozen_card * rules.stake).denominator != 1:
        raise SetupError(
            "FRACTIONAL_AMOUNT",
            f"stake {rules.stake} makes a frozen card ({rules.card_count_per_card} × {rules.freeze_multiplier} stakes) a fraction of a chip",
            "options.stake",
            constraint="whole_chips",
        )


def _check_following(rules: RuleSet) -> None:
    """Following suit and colour needs pairs of one colour and straights of one suit
    (constraint follow_suit_needs_one_colour_and_suit): a mixed pair or straight has no colour
    or suit to follow. A game dealt before rules revision 2 is played as it was dealt."""
    if not rules.follow_suit or keeps_old_reading(
        rules.revision, FOLLOW_SUIT_OF_ONE_COLOUR_AND_SUIT
    ):
        return
    for option, what in (
        ("same_colour_pairs", "pairs of one colour"),
        ("single_suit_straights", "straights of one suit"),
    ):
        if not getattr(rules, option):
            raise SetupError(
                "INCOMPATIBLE_OPTIONS",
                f"follow_suit follows a pair's colour and a straight's suit: it needs {what}"
                f" ({option} = true)",
                f"options.{option}",
                constraint="follow_suit_needs_one_colour_and_suit",
            )
