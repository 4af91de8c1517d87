"""The contract's promises, checked over a real channel the way a frontend team would.

Each test is named after one sentence of the contract (the comments of
`protos/tienlen/v1/*.proto`, docs/API.md "RPCs", docs/ERRORS.md, docs/OPERATIONS.md "Configuration", docs/FRONTEND.md)
that the other service tests and the golden conversations do not already pin down.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import grpc
import pytest

from tienlen.v1 import (
    cards_pb2,
    game_pb2,
    moves_pb2,
    rules_pb2,
    service_pb2,
    service_pb2_grpc,
    settlement_pb2,
)
from tienlen_service import codec
from tienlen_service.tokens import KeyRing

from .rich_status import fails, rich

Stub = service_pb2_grpc.TienLenEngineStub
TIMEOUT = 20.0
PASS = moves_pb2.Move(pass_turn=moves_pb2.Pass())
SOUTHERN = "southern"


# --- helpers ---------------------------------------------------------------------------------


def card(text: str) -> cards_pb2.Card:
    return codec.card_from_text(text)


def play(*texts: str) -> moves_pb2.Move:
    return moves_pb2.Move(play=moves_pb2.Play(cards=[card(t) for t in texts]))


def deal(*hands: str) -> service_pb2.ExplicitDeal:
    return service_pb2.ExplicitDeal(
        hands=[cards_pb2.Hand(cards=[card(t) for t in h.split()]) for h in hands]
    )


def texts(cards: Any) -> list[str]:
    return [codec.card_to_text(c) for c in cards]


def spec(variant: str = "", **options: str) -> rules_pb2.RuleSetSpec:
    return rules_pb2.RuleSetSpec(variant=variant, options=options)


@pytest.fixture
def stub(server_factory: Callable[..., Any]) -> Iterator[Stub]:
    with grpc.insecure_channel(server_factory().address) as channel:
        yield Stub(channel)


def new_game(stub: Stub, **fields: Any) -> service_pb2.NewGameResponse:
    response: service_pb2.NewGameResponse = stub.NewGame(
        service_pb2.NewGameRequest(**fields), timeout=TIMEOUT
    )
    return response


def apply(stub: Stub, token: bytes, seat: int, move: moves_pb2.Move) -> game_pb2.GameUpdate:
    response: service_pb2.ApplyMoveResponse = stub.ApplyMove(
        service_pb2.ApplyMoveRequest(state_token=token, seat=seat, move=move), timeout=TIMEOUT
    )
    return response.game


def hands(stub: Stub, token: bytes, players: int) -> list[list[str]]:
    return [
        texts(
            stub.GetView(
                service_pb2.GetViewRequest(state_token=token, seat=seat), timeout=TIMEOUT
            ).view.hand
        )
        for seat in range(players)
    ]


def validate(stub: Stub, token: bytes, seat: int, move: moves_pb2.Move) -> Any:
    return stub.ValidateMove(
        service_pb2.ValidateMoveRequest(state_token=token, seat=seat, move=move), timeout=TIMEOUT
    )


def play_out(stub: Stub, game: game_pb2.GameUpdate) -> game_pb2.GameUpdate:
    """Play a game to its end, each seat making its strongest listed move."""
    for _ in range(500):
        if game.finished:
            return game
        listed = stub.ListLegalMoves(
            service_pb2.ListLegalMovesRequest(
                state_token=game.state_token, seat=game.to_act, page_size=1000
            ),
            timeout=TIMEOUT,
        )
        game = apply(stub, game.state_token, game.to_act, listed.moves[-1].move)
    raise AssertionError("the game did not end")


def describe(stub: Stub) -> service_pb2.DescribeRulesResponse:
    response: service_pb2.DescribeRulesResponse = stub.DescribeRules(
        service_pb2.DescribeRulesRequest(), timeout=TIMEOUT
    )
    return response


# --- NewGame: players, deals, leader and dealer -------------------------------------------------


def test_players_0_means_the_explicit_hands_or_4_or_3_in_dau(stub: Stub) -> None:
    assert new_game(stub, seed=1).game.view.players == 4
    assert new_game(stub, rules=spec("dau"), seed=1).game.view.players == 3
    assert new_game(stub, explicit=deal("3S", "4S", "5S")).game.view.players == 3
    assert new_game(stub, explicit=deal("3S", "4S")).game.view.players == 2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_random_deal_gives_13_cards_to_each_of_2_to_4_players(stub: Stub, players: int) -> None:
    game = new_game(stub, players=players).game
    assert [s.cards_left for s in game.view.seats] == [13] * players


def test_explicit_hands_may_hold_13_cards_and_18_in_dau(stub: Stub) -> None:
    thirteen = "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S"
    game = new_game(stub, explicit=deal(thirteen, "3C"), first_game=False, leader=1).game
    assert [s.cards_left for s in game.view.seats] == [13, 1]
    every = [codec.card_to_text(codec.card_to_pb(c)) for c in range(52)]
    dau = deal(" ".join(every[:18]), " ".join(every[18:35]), " ".join(every[35:]))
    rules = spec("dau", instant_wins="none")
    dau_game = new_game(stub, rules=rules, explicit=dau, first_game=False, leader=0).game
    assert [s.cards_left for s in dau_game.view.seats] == [18, 17, 17]


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_the_dau_dealer_gets_18_cards(stub: Stub, dealer: int) -> None:
    game = new_game(stub, rules=spec("dau"), seed=11, dealer=dealer).game
    counts = [s.cards_left for s in game.view.seats]
    assert counts[dealer] == 18
    assert sorted(counts) == [17, 17, 18]
    assert game.view.dealer == dealer
    assert game.events[0].game_started.dealer == dealer


def test_the_dealer_defaults_to_0_and_is_reported_in_the_event_and_the_view(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S", "4S", "5S")).game
    assert (game.view.dealer, game.events[0].game_started.dealer) == (0, 0)
    later = new_game(
        stub, explicit=deal("3S", "4S", "5S"), first_game=False, leader=1, dealer=2
    ).game
    started = later.events[0].game_started
    assert (later.view.dealer, started.dealer, started.leader) == (2, 2, 1)
    assert not started.HasField("must_include")  # not a first game: any play leads
    assert not started.first_game


def test_the_starting_card_falls_back_to_the_lowest_dealt_card(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("9S KS", "5C 8H", "5D JC")).game
    started = game.events[0].game_started
    assert texts([started.must_include]) == ["5C"]
    assert started.leader == game.to_act == 1
    assert texts([game.view.must_include]) == ["5C"]


def test_a_first_games_leader_may_only_be_the_starting_card_holder(stub: Stub) -> None:
    hands = deal("3S 9S", "4S 10S", "5S JS", "6S QS")
    assert new_game(stub, explicit=hands, leader=0).game.to_act == 0  # seat 0 holds ♠3
    with pytest.raises(grpc.RpcError) as info:
        new_game(stub, explicit=hands, leader=2)
    error = rich(info.value)
    assert (error.code, error.reason, error.fields) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_LEADER",
        ["leader"],
    )
    later = new_game(stub, explicit=hands, leader=2, first_game=False).game
    assert later.to_act == 2


@pytest.mark.parametrize(
    ("request_", "reason", "field"),
    [
        (
            service_pb2.NewGameRequest(rules=spec("dau"), players=2),
            "INVALID_PLAYER_COUNT",
            "players",
        ),
        (service_pb2.NewGameRequest(players=4, leader=4), "INVALID_SEAT", "leader"),
        (service_pb2.NewGameRequest(players=2, dealer=-1), "INVALID_SEAT", "dealer"),
        (service_pb2.NewGameRequest(rules=spec("dau"), dealer=3), "INVALID_SEAT", "dealer"),
        (
            service_pb2.NewGameRequest(
                rules=spec("dau"),
                explicit=deal(
                    "3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H 6S 6C 6D 6H 7S 7C 7D", "8S", "9S"
                ),
            ),
            "INVALID_DEAL",
            "explicit.hands[0]",
        ),
        (
            service_pb2.NewGameRequest(rules=spec(penalty_two_hearts="-1")),
            "INVALID_OPTION_VALUE",
            "rules.options.penalty_two_hearts",
        ),
        (
            service_pb2.NewGameRequest(rules=spec(penalty_two_hearts="L")),
            "INVALID_OPTION_VALUE",
            "rules.options.penalty_two_hearts",
        ),
        (
            service_pb2.NewGameRequest(rules=spec(starting_card="4S")),
            "INVALID_OPTION_VALUE",
            "rules.options.starting_card",
        ),
    ],
)
def test_tables_deals_and_option_values_outside_the_documented_ranges_are_refused(
    stub: Stub, request_: service_pb2.NewGameRequest, reason: str, field: str
) -> None:
    error = fails(stub.NewGame, request_)
    assert (error.code, error.reason, error.fields) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        reason,
        [field],
    )


# --- option values by name ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("true", "true"),
        ("false", "false"),
        ("1", "true"),
        ("0", "false"),
        ("yes", "true"),
        ("no", "false"),
        ("on", "true"),
        ("off", "false"),
    ],
)
def test_bool_options_accept_every_documented_spelling(
    stub: Stub, text: str, canonical: str
) -> None:
    game = new_game(stub, rules=spec(pass_lockout=text), seed=1).game
    assert dict(game.view.rules.options) == {"pass_lockout": canonical}


def test_stakes_options_take_exact_numbers_and_L_only_where_documented(stub: Stub) -> None:
    for text in ("1.5", "3/2"):
        game = new_game(stub, rules=spec(penalty_two_hearts=text), seed=1).game
        assert dict(game.view.rules.options) == {"penalty_two_hearts": "3/2"}
    for name in ("instant_win_stakes", "blind_three_stakes"):
        game = new_game(stub, rules=spec(**{name: "L"}), seed=1).game
        assert dict(game.view.rules.options) == {name: "L"}


def test_int_options_accept_their_describe_rules_minimum_and_maximum(stub: Stub) -> None:
    ints = [o for o in describe(stub).options if o.type == rules_pb2.OPTION_TYPE_INT]
    assert ints
    for option in ints:
        assert option.minimum <= int(option.default_value) <= option.maximum
        # A stake of 1 chip makes the default ½-stake penalties a fraction of a chip (a
        # documented FRACTIONAL_AMOUNT), so the stake's minimum is tried with whole penalties.
        whole = (
            {
                "penalty_two_spades": "1",
                "penalty_two_clubs": "1",
                "penalty_three_pairs": "1",
                "penalty_four_pairs": "2",
            }
            if option.name == "stake"
            else {}
        )
        for bound in (option.minimum, option.maximum):
            rules = spec(**whole, **{option.name: str(bound)})
            game = new_game(stub, rules=rules, players=3, seed=2).game
            assert game.view.rules.options[option.name] == str(bound)
        for outside in (option.minimum - 1, option.maximum + 1):
            error = fails(
                stub.NewGame,
                service_pb2.NewGameRequest(rules=spec(**{option.name: str(outside)}), seed=2),
            )
            assert (error.reason, error.fields) == (
                "INVALID_OPTION_VALUE",
                [f"rules.options.{option.name}"],
            )


def test_an_empty_variant_means_southern(stub: Stub) -> None:
    game = new_game(stub, rules=rules_pb2.RuleSetSpec(), seed=1).game
    assert game.view.rules.variant == SOUTHERN
    assert new_game(stub, seed=1).game.view.rules.variant == SOUTHERN


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"pass_lockout": "false"},
        {"lead_stealing": "true"},
        {"lead_stealing": "false"},
        {"steal_winner_pairs_lead": "false"},
    ],
)
def test_every_view_carries_the_games_follow_rules_resolved_from_its_preset_and_overrides(
    stub: Stub, overrides: dict[str, str]
) -> None:
    """TableView.follow_rules: the game's pass_lockout, lead_stealing and steal_winner_pairs_lead,
    the overrides else the preset's values, in NewGame's, ApplyMove's, GetView's (seat or spectator) and NextGame's
    views alike."""
    for variant in describe(stub).variants:
        values = {o.name: o.value for o in variant.option_values} | overrides
        wanted = game_pb2.FollowRules(
            pass_lockout=values["pass_lockout"] == "true",
            lead_stealing=values["lead_stealing"] == "true",
            steal_winner_pairs_lead=values["steal_winner_pairs_lead"] == "true",
        )
        rules = rules_pb2.RuleSetSpec(variant=variant.name, options=overrides)
        players = 3 if variant.name == "dau" else 2
        hands = ["3S 4S", "5S", "6S"][:players]
        dealt = new_game(stub, rules=rules, explicit=deal(*hands), first_game=False, leader=0)
        after = apply(stub, dealt.game.state_token, 0, play("3S"))
        views = [dealt.game.view, after.view]
        for seat in (None, 0):
            request = service_pb2.GetViewRequest(state_token=after.state_token, seat=seat)
            views.append(stub.GetView(request, timeout=TIMEOUT).view)
        over = after
        for seat in range(1, players):  # each plays its one card and goes out
            if not over.finished:
                over = apply(stub, over.state_token, seat, play(hands[seat]))
        assert over.finished, variant.name
        request = service_pb2.NextGameRequest(state_token=over.state_token, seed=1)
        views.append(stub.NextGame(request, timeout=TIMEOUT).game.view)
        for view in views:
            assert view.HasField("follow_rules"), variant.name
            assert view.follow_rules == wanted, (variant.name, overrides)


# --- DescribeRules --------------------------------------------------------------------------


def test_describe_rules_lists_the_bots_suggest_move_documents(stub: Stub) -> None:
    rules = describe(stub)
    assert sorted(rules.bots) == ["counting", "expert", "greedy", "montecarlo", "novice", "random"]
    assert [level.name for level in rules.levels] == ["easy", "medium", "hard", "expert"]
    for level in rules.levels:
        assert level.description, level.name
        assert level.bot.partition(":")[0] in rules.bots, level.name


def test_suggest_move_takes_a_level_name_and_explains_its_move(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S 4D 5C", "6S 7S 9C", "8D 10D JC", "QS KS AC")).game
    for level in ("easy", "medium", "hard", "expert"):
        request = service_pb2.SuggestMoveRequest(
            state_token=game.state_token, seat=game.to_act, bot=level
        )
        suggestion = stub.SuggestMove(request, timeout=60)
        assert suggestion.bot == level
        assert texts(suggestion.move.play.cards) == ["3S", "4D", "5C"]
        assert suggestion.reason == "GO_OUT"
        assert "last cards" in suggestion.explanation


def test_a_searching_level_lists_the_moves_it_weighed(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S 3C 4D 8C 9C", "6S 7S 9D", "8D 10D JC", "QS KS AC")).game
    request = service_pb2.SuggestMoveRequest(
        state_token=game.state_token, seat=game.to_act, bot="expert"
    )
    suggestion = stub.SuggestMove(request, timeout=60)
    weighed = [texts(c.move.play.cards) for c in suggestion.candidates]
    assert len(weighed) > 1
    assert texts(suggestion.move.play.cards) in weighed
    assert all(c.samples > 0 for c in suggestion.candidates)
    assert suggestion.reason
    assert suggestion.explanation


def test_describe_rules_options_are_enough_to_draw_a_settings_control(stub: Stub) -> None:
    for option in describe(stub).options:
        assert option.description, option.name
        assert option.type != rules_pb2.OPTION_TYPE_UNSPECIFIED, option.name
        if option.type == rules_pb2.OPTION_TYPE_BOOL:
            assert option.default_value in {"true", "false"}, option.name
        if option.type == rules_pb2.OPTION_TYPE_CHOICE:
            assert option.default_value in option.choices, option.name
        else:
            assert not option.choices, option.name
        if option.type == rules_pb2.OPTION_TYPE_STAKES and option.default_value != "L":
            assert Fraction(option.default_value) >= 0, option.name


def test_every_variant_lists_every_option_value_in_describe_rules_order(stub: Stub) -> None:
    rules = describe(stub)
    names = [o.name for o in rules.options]
    values_of = {v.name: {o.name: o.value for o in v.option_values} for v in rules.variants}
    southern = values_of[SOUTHERN]
    for variant in rules.variants:
        assert [o.name for o in variant.option_values] == names, variant.name
        differing = [
            (o.name, o.value) for o in variant.option_values if o.value != southern[o.name]
        ]
        assert [(o.name, o.value) for o in variant.overrides] == differing, variant.name
    assert rules.variants[0].name == SOUTHERN
    assert not rules.variants[0].overrides


def test_every_value_describe_rules_lists_is_accepted_back_by_new_game(stub: Stub) -> None:
    rules = describe(stub)
    for variant in rules.variants:
        options = {o.name: o.value for o in variant.option_values}
        game = new_game(stub, rules=rules_pb2.RuleSetSpec(variant=variant.name, options=options))
        assert game.game.view.rules.variant == variant.name
        # The preset's values given explicitly to the Southern defaults are the same table.
        again = new_game(stub, rules=rules_pb2.RuleSetSpec(variant=SOUTHERN, options=options))
        assert again.game.view.players == game.game.view.players


def test_each_option_default_is_its_value_in_the_southern_preset(stub: Stub) -> None:
    rules = describe(stub)
    southern = {o.name: o.value for o in rules.variants[0].option_values}
    assert {o.name: o.default_value for o in rules.options} == southern


# --- combinations, ValidateMove ---------------------------------------------------------------


def test_combination_length_and_top_are_as_documented(stub: Stub) -> None:
    hand = "3S 3C 3D 3H 4S 4C 5S 5C 6D 8S 8C 8D"
    game = new_game(stub, explicit=deal(hand, "9H"), first_game=False, leader=0).game
    expected = [
        (("4S",), moves_pb2.COMBINATION_TYPE_SINGLE, 1, "4S"),
        (("4C", "4S"), moves_pb2.COMBINATION_TYPE_PAIR, 2, "4C"),
        (("8D", "8S", "8C"), moves_pb2.COMBINATION_TYPE_TRIPLE, 3, "8D"),
        (("3H", "3S", "3D", "3C"), moves_pb2.COMBINATION_TYPE_FOUR_OF_A_KIND, 4, "3H"),
        (("6D", "4S", "5C"), moves_pb2.COMBINATION_TYPE_STRAIGHT, 3, "6D"),
        (("3S", "4S", "5S", "6D"), moves_pb2.COMBINATION_TYPE_STRAIGHT, 4, "6D"),
        (
            ("5C", "3S", "4S", "3C", "5S", "4C"),
            moves_pb2.COMBINATION_TYPE_CONSECUTIVE_PAIRS,
            3,
            "5C",
        ),
    ]
    for cards, kind, length, top in expected:
        check = validate(stub, game.state_token, 0, play(*cards))
        assert check.legal, cards
        combo = check.combination
        assert (combo.type, combo.length, texts([combo.top])) == (kind, length, [top]), cards
        shown = texts(combo.cards)
        assert shown == sorted(cards, key=lambda t: codec.card_from_pb(card(t), "c")), cards


def test_validate_move_of_a_legal_pass_is_legal_without_a_combination(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S 9S", "4S 10S", "5S JS")).game
    game = apply(stub, game.state_token, 0, play("3S"))
    check = validate(stub, game.state_token, 1, PASS)
    assert check.legal
    assert not check.HasField("combination")
    assert (check.reason, check.chop) == ("", False)


def test_validate_move_on_a_finished_game_is_an_answer_not_an_error(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S", "4S 5S")).game
    game = apply(stub, game.state_token, 0, play("3S"))
    assert game.finished
    check = validate(stub, game.state_token, 1, play("4S"))
    assert (check.legal, check.reason) == (False, "GAME_OVER")
    assert check.message


# --- ApplyMove: events and the view as the game goes ------------------------------------------


def test_a_won_round_clears_the_table_and_the_passes_and_its_winner_leads(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S 9S", "4S 10S", "5S JS")).game
    game = apply(stub, game.state_token, 0, play("3S"))
    assert not game.view.HasField("must_include")  # only the first lead must include it
    game = apply(stub, game.state_token, 1, play("10S"))
    game = apply(stub, game.state_token, 2, PASS)
    assert game.view.seats[2].passed
    game = apply(stub, game.state_token, 0, PASS)
    kinds = [e.WhichOneof("kind") for e in game.events]
    assert kinds == ["passed", "round_won", "turn_passed"]
    won = game.events[1].round_won
    assert (won.seat, won.leader, game.events[2].turn_passed.seat, game.to_act) == (1, 1, 1, 1)
    view = game.view
    assert not view.HasField("table")
    assert not view.HasField("table_seat")
    assert not any(s.passed for s in view.seats)
    assert view.move_count == 4


def test_a_round_won_by_a_seat_that_went_out_is_led_by_another_seat(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S 2S", "4S 9C", "5S 10C")).game
    for seat, move in ((0, play("3S")), (1, play("4S")), (2, play("5S")), (0, play("2S"))):
        game = apply(stub, game.state_token, seat, move)
    finished = game.events[1].player_finished
    assert (finished.seat, finished.place, finished.ranked_last) == (0, 1, False)
    assert game.view.seats[0].place == 1
    game = apply(stub, game.state_token, 1, PASS)
    game = apply(stub, game.state_token, 2, PASS)
    won = next(e.round_won for e in game.events if e.WhichOneof("kind") == "round_won")
    assert (won.seat, won.leader) == (0, 1)  # hưởng sái: the next seat with cards leads
    assert game.to_act == 1


def test_every_step_ends_by_naming_the_seat_to_act_until_the_game_over_event(stub: Stub) -> None:
    game = new_game(stub, players=3, seed=21).game
    moves = 0
    while not game.finished:
        seat = game.to_act
        listed = stub.ListLegalMoves(
            service_pb2.ListLegalMovesRequest(state_token=game.state_token, seat=seat),
            timeout=TIMEOUT,
        )
        game = apply(stub, game.state_token, seat, listed.moves[0].move)
        moves += 1
        last = game.events[-1]
        assert game.view.move_count == moves
        for event in game.events:
            if event.WhichOneof("kind") == "played":
                left = event.played.cards_left
                assert left == game.view.seats[event.played.seat].cards_left
        if not game.finished:
            assert last.turn_passed.seat == game.to_act == game.view.to_act
            assert not game.HasField("settlement")
    assert game.events[-1].WhichOneof("kind") == "game_over"
    assert list(game.events[-1].game_over.places) == list(game.settlement.places)
    assert not game.HasField("to_act")
    assert not game.view.HasField("to_act")
    assert game.view.finished
    assert sorted(game.settlement.places) == [1, 2, 3]
    assert [s.place for s in game.view.seats] == list(game.settlement.places)


def test_the_settlement_nets_are_what_the_transfers_pay(stub: Stub) -> None:
    game = play_out(stub, new_game(stub, players=4, seed=33).game)
    net = [0] * 4
    for transfer in game.settlement.transfers:
        assert transfer.amount > 0
        net[transfer.payee] += transfer.amount
        if transfer.payer >= 0:
            net[transfer.payer] -= transfer.amount
    assert list(game.settlement.net) == net


def test_transfer_amounts_are_always_positive(stub: Stub) -> None:
    game = new_game(
        stub,
        rules=spec(penalty_two_spades="0"),
        explicit=deal("2S 9S", "3C 3D 4S 4C 5S 5C 10S", "6S JS", "7S QS"),
        first_game=False,
        leader=0,
    ).game
    game = apply(stub, game.state_token, 0, play("2S"))
    game = apply(stub, game.state_token, 1, play("3C", "3D", "4S", "4C", "5S", "5C"))
    for seat in (2, 3, 0):
        game = apply(stub, game.state_token, seat, PASS)
    game = apply(stub, game.state_token, 1, play("10S"))
    assert game.finished
    assert all(t.amount > 0 for t in game.settlement.transfers), game.settlement.transfers


def test_chop_settled_names_no_payer_when_nobody_pays(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S 2D", "4S 4C 5S 5C 6S 6C 10D KH", "JD 8D", "QC 9C")).game
    for seat, move in (
        (0, play("3S")),
        (1, play("10D")),
        (2, play("JD")),
        (3, play("QC")),
        (0, play("2D")),  # seat 0's last card ...
        (1, play("4S", "4C", "5S", "5C", "6S", "6C")),  # ... chopped: void, nobody pays
        (2, PASS),
        (3, PASS),
    ):
        game = apply(stub, game.state_token, seat, move)
    settled = [e.chop_settled for e in game.events if e.WhichOneof("kind") == "chop_settled"]
    assert len(settled) == 1
    assert settled[0].amount == 0
    assert settled[0].payer == -1


# --- ListLegalMoves paging --------------------------------------------------------------------


def many_moves_game(stub: Stub) -> bytes:
    """A Đấu table whose leader (seat 0, 18 cards) has more than 1000 legal plays."""
    lead = "3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H 6S 6C 6D 6H 7S 7C"
    rest = [
        codec.card_to_text(codec.card_to_pb(c))
        for c in range(52)
        if codec.card_to_text(codec.card_to_pb(c)) not in lead.split()
    ]
    game = new_game(
        stub,
        rules=spec("dau", instant_wins="none"),
        explicit=deal(lead, " ".join(rest[0::2]), " ".join(rest[1::2])),
        first_game=False,
        leader=0,
    ).game
    assert game.to_act == 0
    return bytes(game.state_token)


def test_page_size_0_means_50(stub: Stub) -> None:
    token = many_moves_game(stub)
    page = stub.ListLegalMoves(
        service_pb2.ListLegalMovesRequest(state_token=token, seat=0), timeout=TIMEOUT
    )
    assert page.total_size > 1000
    assert len(page.moves) == 50
    assert page.next_page_token


def test_page_sizes_above_1000_are_treated_as_1000(stub: Stub) -> None:
    token = many_moves_game(stub)
    sizes: list[int] = []
    page_token = ""
    while True:
        page = stub.ListLegalMoves(
            service_pb2.ListLegalMovesRequest(
                state_token=token, seat=0, page_size=5000, page_token=page_token
            ),
            timeout=TIMEOUT,
        )
        sizes.append(len(page.moves))
        page_token = page.next_page_token
        if not page_token:
            break
    assert page.total_size > 2000
    assert sizes[:-1] == [1000] * (len(sizes) - 1)
    assert 0 < sizes[-1] <= 1000
    assert sum(sizes) == page.total_size
    # A leader can't pass: every listed move is a play, counted in its group.
    assert sum(g.count for g in page.group_counts) == page.total_size


# --- NextGame -------------------------------------------------------------------------------


def test_the_game_after_an_instant_win_is_a_first_game_again(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("2S 2C 2D 2H 9S", "4S", "5S", "6S")).game
    assert game.finished
    nxt = stub.NextGame(
        service_pb2.NextGameRequest(
            state_token=game.state_token, explicit=deal("4S", "3S", "5S", "6S")
        ),
        timeout=TIMEOUT,
    ).game
    started = nxt.events[0].game_started
    assert started.first_game
    assert nxt.view.first_game
    assert texts([started.must_include]) == ["3S"]
    assert nxt.to_act == 1  # the holder of ♠3 leads, not the instant winner
    assert [s.match_total for s in nxt.view.seats] == list(game.settlement.net)
    assert nxt.view.game_number == 2


def finished_seeded_game(stub: Stub) -> game_pb2.GameUpdate:
    return play_out(stub, new_game(stub, players=2, seed=77).game)


def test_next_game_without_a_deal_continues_the_matchs_seeded_deals(stub: Stub) -> None:
    first = finished_seeded_game(stub)
    second = finished_seeded_game(stub)  # the same match again: the same seed, the same moves
    a, b = (
        stub.NextGame(service_pb2.NextGameRequest(state_token=g.state_token), timeout=TIMEOUT).game
        for g in (first, second)
    )
    assert hands(stub, a.state_token, 2) == hands(stub, b.state_token, 2)
    # ... whereas a match that began with a random deal goes on with random deals: each fixed
    # by its finished game (asked twice, the same hands: nobody re-deals), match by match.
    unseeded = play_out(stub, new_game(stub, players=2).game)
    other = play_out(stub, new_game(stub, players=2).game)
    c, d, e = (
        stub.NextGame(service_pb2.NextGameRequest(state_token=g.state_token), timeout=TIMEOUT).game
        for g in (unseeded, unseeded, other)
    )
    assert hands(stub, c.state_token, 2) == hands(stub, d.state_token, 2)
    assert hands(stub, c.state_token, 2) != hands(stub, e.state_token, 2)


def test_next_game_with_a_seed_deals_reproducibly(stub: Stub) -> None:
    game = finished_seeded_game(stub)
    a, b = (
        stub.NextGame(
            service_pb2.NextGameRequest(state_token=game.state_token, seed=5), timeout=TIMEOUT
        ).game
        for _ in range(2)
    )
    assert hands(stub, a.state_token, 2) == hands(stub, b.state_token, 2)
    unset = stub.NextGame(
        service_pb2.NextGameRequest(state_token=game.state_token), timeout=TIMEOUT
    ).game
    assert hands(stub, a.state_token, 2) != hands(stub, unset.state_token, 2)


def test_next_game_with_random_set_deals_at_random_even_in_a_seeded_match(stub: Stub) -> None:
    game = finished_seeded_game(stub)
    deals = [
        hands(
            stub,
            stub.NextGame(
                service_pb2.NextGameRequest(
                    state_token=game.state_token, random=service_pb2.RandomDeal()
                ),
                timeout=TIMEOUT,
            ).game.state_token,
            2,
        )
        for _ in range(2)
    ]
    seeded = stub.NextGame(
        service_pb2.NextGameRequest(state_token=game.state_token), timeout=TIMEOUT
    ).game
    # Not the seed's deal, and fixed by the finished game: asked again, the same hands.
    assert deals[0] != hands(stub, seeded.state_token, 2)
    assert deals[0] == deals[1]


# --- PlayStream -------------------------------------------------------------------------------


def test_play_stream_errors_carry_the_field_as_a_path_inside_move_and_the_view_is_honoured(
    stub: Stub,
) -> None:
    game = new_game(stub, explicit=deal("3S 9S", "4S 10S", "5S JS")).game
    bad_card = moves_pb2.Move(play=moves_pb2.Play(cards=[cards_pb2.Card(rank=cards_pb2.RANK_TEN)]))
    requests = [
        service_pb2.PlayStreamRequest(
            tag="bad card",
            move=service_pb2.ApplyMoveRequest(state_token=game.state_token, seat=0, move=bad_card),
        ),
        service_pb2.PlayStreamRequest(
            tag="no move",
            move=service_pb2.ApplyMoveRequest(state_token=game.state_token, seat=0),
        ),
        service_pb2.PlayStreamRequest(
            tag="basic",
            move=service_pb2.ApplyMoveRequest(
                state_token=game.state_token,
                seat=0,
                move=play("3S"),
                view=game_pb2.UPDATE_VIEW_BASIC,
            ),
        ),
    ]
    answers = list(stub.PlayStream(iter(requests), timeout=TIMEOUT))
    assert [a.tag for a in answers] == ["bad card", "no move", "basic"]
    bad, empty, basic = answers
    assert (bad.error.code, bad.error.reason) == (3, "INVALID_CARD")
    assert bad.error.metadata["field"] == "move.play.cards[0].suit"
    assert (empty.error.code, empty.error.reason) == (3, "INVALID_ARGUMENT")
    assert empty.error.metadata["field"] == "move"
    assert basic.WhichOneof("result") == "applied"
    assert not basic.applied.game.HasField("view")
    assert basic.applied.game.to_act == 1


# --- purity: any replica gives the same answer -------------------------------------------------


def test_two_replicas_with_the_same_keys_answer_alike(server_factory: Callable[..., Any]) -> None:
    keyring = KeyRing([("k1", secrets.token_bytes(32))])
    first, second = (server_factory(keyring=keyring) for _ in range(2))
    with grpc.insecure_channel(first.address) as one, grpc.insecure_channel(second.address) as two:
        a, b = Stub(one), Stub(two)
        game = new_game(a, players=4, seed=9).game
        other = new_game(b, players=4, seed=9).game
        assert hands(a, game.state_token, 4) == hands(b, other.state_token, 4)
        request = service_pb2.ListLegalMovesRequest(
            state_token=game.state_token, seat=game.to_act, page_size=1
        )
        move = a.ListLegalMoves(request, timeout=TIMEOUT).moves[0].move
        applied = service_pb2.ApplyMoveRequest(
            state_token=game.state_token, seat=game.to_act, move=move
        )
        assert a.ApplyMove(applied, timeout=TIMEOUT) == b.ApplyMove(applied, timeout=TIMEOUT)
        suggest = service_pb2.SuggestMoveRequest(
            state_token=game.state_token, seat=game.to_act, bot="random"
        )
        assert a.SuggestMove(suggest, timeout=TIMEOUT) == b.SuggestMove(suggest, timeout=TIMEOUT)


# --- transfer reasons -------------------------------------------------------------------------


def test_a_place_transfer_has_no_cards_and_a_chop_transfer_names_the_chopped_cards(
    stub: Stub,
) -> None:
    game = new_game(
        stub,
        explicit=deal("2S 9S", "3C 3D 4S 4C 5S 5C 10S", "6S JS", "7S QS"),
        first_game=False,
        leader=0,
    ).game
    game = apply(stub, game.state_token, 0, play("2S"))
    game = apply(stub, game.state_token, 1, play("3C", "3D", "4S", "4C", "5S", "5C"))
    for seat in (2, 3, 0):
        game = apply(stub, game.state_token, seat, PASS)
    game = play_out(stub, game)
    chops = [
        t for t in game.settlement.transfers if t.reason == settlement_pb2.TRANSFER_REASON_CHOP
    ]
    assert [(t.payer, t.payee, t.amount, texts(t.cards)) for t in chops] == [(0, 1, 50, ["2S"])]
    for transfer in game.settlement.transfers:
        if transfer.reason == settlement_pb2.TRANSFER_REASON_PLACE:
            assert not transfer.cards


# --- more of the view, the update and the refusals ----------------------------------------------


def test_frozen_seats_are_shown_frozen_with_their_places_and_no_play(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S", "4S 5S", "6S 7S")).game
    game = apply(stub, game.state_token, 0, play("3S"))
    frozen = next(e.players_frozen for e in game.events if e.HasField("players_frozen"))
    assert (list(frozen.seats), list(frozen.places)) == ([1, 2], [2, 3])
    seats = game.view.seats
    assert [(s.frozen, s.has_played, s.place) for s in seats] == [
        (False, True, 1),
        (True, False, 2),
        (True, False, 3),
    ]
    assert game.finished


def test_steal_open_says_whether_the_lead_may_still_be_stolen(stub: Stub) -> None:
    game = new_game(
        stub,
        rules=spec("hue"),
        explicit=deal("3S 9S", "4S 10S", "5S JS", "6S QS"),
        first_game=False,
        leader=0,
    ).game
    assert game.view.steal_open  # a non-first game of a variant with cướp cái
    assert not new_game(
        stub, rules=spec("hue"), explicit=deal("3C 9S", "4S 10S")
    ).game.view.steal_open
    game = apply(stub, game.state_token, 0, play("9S"))
    assert not game.view.steal_open


def test_a_basic_update_of_the_last_move_still_carries_the_settlement(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S", "4S 5S")).game
    last = stub.ApplyMove(
        service_pb2.ApplyMoveRequest(
            state_token=game.state_token, seat=0, move=play("3S"), view=game_pb2.UPDATE_VIEW_BASIC
        ),
        timeout=TIMEOUT,
    ).game
    assert not last.HasField("view")
    assert last.finished
    assert not last.HasField("to_act")
    assert last.HasField("settlement")
    assert last.events[-1].HasField("game_over")


def test_a_seat_not_at_the_table_is_invalid_seat_for_every_seat_call(stub: Stub) -> None:
    token = new_game(stub, explicit=deal("3S 9S", "4S 10S")).game.state_token
    for call, request in (
        (stub.ValidateMove, service_pb2.ValidateMoveRequest(state_token=token, seat=2, move=PASS)),
        (stub.ListLegalMoves, service_pb2.ListLegalMovesRequest(state_token=token, seat=2)),
        (stub.SuggestMove, service_pb2.SuggestMoveRequest(state_token=token, seat=-1)),
    ):
        error = fails(call, request)
        assert (error.code, error.reason, error.fields) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "INVALID_SEAT",
            [],
        )


def test_suggest_move_on_a_finished_game_has_nothing_to_suggest(stub: Stub) -> None:
    game = new_game(stub, explicit=deal("3S", "4S 5S")).game
    game = apply(stub, game.state_token, 0, play("3S"))
    assert game.finished
    suggestion = stub.SuggestMove(
        service_pb2.SuggestMoveRequest(state_token=game.state_token, seat=1), timeout=TIMEOUT
    )
    assert not suggestion.HasField("move")
