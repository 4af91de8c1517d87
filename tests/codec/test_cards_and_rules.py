"""Cards, moves and rule specs: engine values <-> tienlen.v1 messages, and the field a bad one
names."""

from __future__ import annotations

import pytest

from tienlen.v1 import cards_pb2, moves_pb2, rules_pb2
from tienlen_rules.cards import parse_card
from tienlen_rules.errors import CardParseError, SetupError
from tienlen_rules.options import OPTIONS
from tienlen_rules.presets import PRESETS
from tienlen_rules.ruleset import build_rules
from tienlen_service import codec
from tienlen_service.codec import FieldError

VARIANTS = tuple(PRESETS)


def test_every_card_maps_to_rank_and_suit_enums_and_back() -> None:
    for card in range(52):
        pb = codec.card_to_pb(card)
        assert pb.rank == card // 4 + 1
        assert pb.suit == card % 4 + 1
        assert codec.card_from_pb(pb, "card") == card


def test_card_enums_follow_the_rule_book_order() -> None:
    assert codec.card_to_pb(parse_card("3S")) == cards_pb2.Card(
        rank=cards_pb2.RANK_THREE, suit=cards_pb2.SUIT_SPADES
    )
    assert codec.card_to_pb(parse_card("10D")) == cards_pb2.Card(
        rank=cards_pb2.RANK_TEN, suit=cards_pb2.SUIT_DIAMONDS
    )
    assert codec.card_to_pb(parse_card("2H")) == cards_pb2.Card(
        rank=cards_pb2.RANK_TWO, suit=cards_pb2.SUIT_HEARTS
    )


def test_card_text_round_trips_through_the_wire_form() -> None:
    cases = {"3S": "3S", "10D": "10D", "TD": "10D", "qh": "QH", "2H": "2H", "3♠": "3S", "aC": "AC"}
    for text, canonical in cases.items():
        assert codec.card_to_text(codec.card_from_text(text)) == canonical


@pytest.mark.parametrize(
    ("card", "field"),
    [
        (
            cards_pb2.Card(rank=cards_pb2.RANK_UNSPECIFIED, suit=cards_pb2.SUIT_HEARTS),
            "move.cards[0].rank",
        ),
        (
            cards_pb2.Card(rank=cards_pb2.RANK_ACE, suit=cards_pb2.SUIT_UNSPECIFIED),
            "move.cards[0].suit",
        ),
        (
            cards_pb2.Card(rank=cards_pb2.Rank.ValueType(14), suit=cards_pb2.SUIT_SPADES),
            "move.cards[0].rank",
        ),
        (
            cards_pb2.Card(rank=cards_pb2.RANK_THREE, suit=cards_pb2.Suit.ValueType(-3)),
            "move.cards[0].suit",
        ),
    ],
)
def test_an_invalid_wire_card_names_its_field(card: cards_pb2.Card, field: str) -> None:
    with pytest.raises(FieldError) as info:
        codec.cards_from_pb([card], "move.cards")
    assert info.value.reason == "INVALID_CARD"
    assert info.value.field == field


def test_card_text_errors_are_parse_errors() -> None:
    with pytest.raises(CardParseError):
        codec.card_from_text("1X")
    with pytest.raises(CardParseError):
        codec.card_to_text(cards_pb2.Card())


def test_a_card_listed_twice_in_an_explicit_hand_is_an_invalid_deal() -> None:
    hand = [codec.card_to_pb(parse_card("3S")), codec.card_to_pb(parse_card("3S"))]
    with pytest.raises(SetupError) as info:
        codec.hand_from_pb(hand, "explicit.hands[0].cards")
    assert info.value.code == "INVALID_DEAL"
    assert info.value.field == "explicit.hands[0].cards[1]"


def test_plays_keep_duplicates_so_the_engine_can_refuse_them() -> None:
    three = codec.card_to_pb(parse_card("3S"))
    move = codec.move_from_pb(moves_pb2.Move(play=moves_pb2.Play(cards=[three, three])), 1)
    assert move.cards == (0, 0)
    assert move.seat == 1


def test_a_move_without_play_or_pass_is_a_field_error() -> None:
    with pytest.raises(FieldError) as info:
        codec.move_from_pb(moves_pb2.Move(), 0)
    assert info.value.field == "move"


# --- rules -------------------------------------------------------------------------------------


def test_rule_spec_round_trips_through_the_wire() -> None:
    rules = codec.rules_from_pb(rules_pb2.RuleSetSpec(variant="hue", options={"stake": "50"}))
    assert rules.variant == "hue"
    assert rules.stake == 50
    assert codec.rules_from_pb(codec.rules_to_pb(rules)) == rules


def test_the_spec_of_a_game_dealt_before_a_default_changed_names_the_value_it_keeps() -> None:
    # A client reads a view's rules against today's defaults; dealt anew, the spec plays the
    # same rules as the old game.
    old = build_rules("southern", {"stake": "50"}, revision=0)
    spec = codec.rules_to_pb(old)
    assert dict(spec.options) == {"stake": "50", "long_pairs_chop": "nothing"}
    assert codec.rules_from_pb(spec).option_values() == old.option_values()
    mine = build_rules("southern", {"long_pairs_chop": "ladder"}, revision=0)
    assert dict(codec.rules_to_pb(mine).options) == {"long_pairs_chop": "ladder"}


def test_an_empty_variant_means_southern() -> None:
    assert codec.rules_from_pb(rules_pb2.RuleSetSpec()).variant == "southern"


@pytest.mark.parametrize(
    ("spec", "code", "field"),
    [
        (rules_pb2.RuleSetSpec(variant="martian"), "UNKNOWN_VARIANT", "rules.variant"),
        (rules_pb2.RuleSetSpec(options={"nope": "1"}), "UNKNOWN_OPTION", "rules.options.nope"),
        (
            rules_pb2.RuleSetSpec(options={"stake": "many"}),
            "INVALID_OPTION_VALUE",
            "rules.options.stake",
        ),
        (rules_pb2.RuleSetSpec(options={"stake": "1"}), "FRACTIONAL_AMOUNT", "rules.options.stake"),
        (
            rules_pb2.RuleSetSpec(options={"place_last_to_first": "99999999999"}),
            "AMOUNT_TOO_LARGE",
            "rules.options.place_last_to_first",
        ),
    ],
)
def test_rules_that_cannot_exist_name_the_field(
    spec: rules_pb2.RuleSetSpec, code: str, field: str
) -> None:
    with pytest.raises(SetupError) as info:
        codec.rules_from_pb(spec)
    assert (info.value.code, info.value.field) == (code, field)


def test_every_option_is_described() -> None:
    described = [codec.option_to_pb(spec) for spec in OPTIONS]
    assert [o.name for o in described] == [o.name for o in OPTIONS]
    assert all(o.description and o.type != rules_pb2.OPTION_TYPE_UNSPECIFIED for o in described)


def test_every_variant_lists_every_option_value() -> None:
    variants = codec.variants_to_pb()
    assert [v.name for v in variants] == list(PRESETS)
    for variant in variants:
        assert len(variant.option_values) == len(OPTIONS)
        rules = build_rules(variant.name, {o.name: o.value for o in variant.overrides})
        assert rules.option_values() == build_rules(variant.name).option_values()
    assert not variants[0].overrides  # southern is the default
