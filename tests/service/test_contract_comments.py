"""More promises of the contract's comments (`protos/tienlen/v1/*.proto`), over a real channel.

Each test is named after one sentence of a proto comment that the other service tests and the
golden conversations do not pin down (audit of every comment against the behaviour).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from helpers.dealing import DEAL_KEY

from tienlen.v1 import moves_pb2, service_pb2

from .rich_status import fails
from .test_contract_promises import (
    PASS,
    TIMEOUT,
    Stub,
    apply,
    deal,
    hands,
    new_game,
    play,
    play_out,
    spec,
    texts,
)

GOP_3 = {"starting_card_every_game": "true"}


@pytest.fixture
def stub(server_factory: Callable[..., Any]) -> Iterator[Stub]:
    with grpc.insecure_channel(server_factory().address) as channel:
        yield Stub(channel)


# --- NewGameRequest.leader ---------------------------------------------------------------------


def test_with_gop_3_the_starting_card_holder_leads_every_game_and_no_other_leader_is_taken(
    stub: Stub,
) -> None:
    """NewGameRequest.leader: where the starting card's holder leads (a first game, or every
    game with starting_card_every_game, góp 3) the leader may be left unset or given as that
    seat; another seat is refused with INVALID_LEADER, never silently replaced."""
    hands = deal("4S 9S", "3S 10S")
    for leader in ({}, {"leader": 1}):
        game = new_game(stub, rules=spec(**GOP_3), explicit=hands, first_game=False, **leader).game
        started = game.events[0].game_started
        assert (started.leader, game.to_act, started.first_game) == (1, 1, False)
        assert not started.HasField("must_include")  # góp 3: the holder leads with any play
    error = fails(
        stub.NewGame,
        service_pb2.NewGameRequest(rules=spec(**GOP_3), explicit=hands, first_game=False, leader=0),
    )
    assert (error.code, error.reason, error.fields) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_LEADER",
        ["leader"],
    )
    # Without góp 3 a game that is not a first game is led by the given leader.
    assert new_game(stub, explicit=hands, first_game=False, leader=0).game.to_act == 0


# --- TienLenEngine: purity, and what sealing changes --------------------------------------------


def test_with_sealing_a_retry_gets_the_same_game_in_a_new_state_token(
    server_factory: Callable[..., Any],
) -> None:
    """TienLenEngine: every RPC is a pure function of its request, but a sealed state token is
    encrypted under a fresh nonce each time, so its bytes differ between answers while
    everything else (events, view, the game inside the token) is the same."""
    with grpc.insecure_channel(server_factory(seal=True).address) as channel:
        sealed = Stub(channel)
        game = new_game(sealed, explicit=deal("3S 9S", "4S 10S")).game
        request = service_pb2.ApplyMoveRequest(
            state_token=game.state_token, seat=0, move=play("3S")
        )
        first, again = (sealed.ApplyMove(request, timeout=TIMEOUT).game for _ in range(2))
        assert first.state_token != again.state_token
        assert (first.events, first.view, first.to_act) == (again.events, again.view, again.to_act)
        for answer in (first, again):  # both tokens hold the same game
            seat_1 = sealed.GetView(
                service_pb2.GetViewRequest(state_token=answer.state_token, seat=1),
                timeout=TIMEOUT,
            ).view
            assert (texts(seat_1.hand), seat_1.move_count) == (["4S", "10S"], 1)


def test_new_game_with_a_seed_deals_the_same_hands_to_a_new_match_each_call(
    server_factory: Callable[..., Any],
) -> None:
    """TienLenEngine: NewGame gives every match a fresh game id, so even with a seed each call
    returns other seat tokens and another state token: the same deal, but another match."""
    with grpc.insecure_channel(server_factory(require_seat_tokens=True).address) as channel:
        checked = Stub(channel)
        first, again = (new_game(checked, players=2, seed=7, deal_key=DEAL_KEY) for _ in range(2))
        assert first.game.state_token != again.game.state_token
        assert set(first.seat_tokens).isdisjoint(again.seat_tokens)
        for one, other in ((first, again), (again, first)):
            hand = checked.GetView(
                service_pb2.GetViewRequest(
                    state_token=one.game.state_token, seat=0, seat_token=one.seat_tokens[0]
                ),
                timeout=TIMEOUT,
            ).view.hand
            assert len(hand) == 13
            error = fails(
                checked.GetView,
                service_pb2.GetViewRequest(
                    state_token=one.game.state_token, seat=0, seat_token=other.seat_tokens[0]
                ),
            )
            assert error.reason == "SEAT_TOKEN_INVALID"
        assert first.game.view == again.game.view


# --- NextGame ------------------------------------------------------------------------------------


def test_next_game_with_gop_3_is_led_by_the_starting_card_holder_not_the_winner(
    stub: Stub,
) -> None:
    """NextGame: with starting_card_every_game (góp 3) the starting card's holder leads the next
    game, not the previous winner."""
    game = new_game(stub, rules=spec(**GOP_3), explicit=deal("3S", "8S")).game
    game = apply(stub, game.state_token, 0, play("3S"))
    assert list(game.settlement.places) == [1, 2]
    following = stub.NextGame(
        service_pb2.NextGameRequest(state_token=game.state_token, explicit=deal("4D 5D", "3S 6D")),
        timeout=TIMEOUT,
    ).game
    started = following.events[0].game_started
    assert (started.first_game, started.leader, following.to_act) == (False, 1, 1)


# --- SeatStatus.passed ---------------------------------------------------------------------------


def test_a_seat_that_passed_stays_passed_until_the_round_ends_under_pass_lockout(
    stub: Stub,
) -> None:
    """SeatStatus.passed: with pass_lockout (qua tay) a pass keeps the flag through the later
    plays of the round; only the end of the round clears it."""
    game = new_game(stub, explicit=deal("3S 9S KS", "4S 10S QS", "5S JS AS")).game
    game = apply(stub, game.state_token, 0, play("3S"))
    game = apply(stub, game.state_token, 1, PASS)
    game = apply(stub, game.state_token, 2, play("5S"))
    assert [s.passed for s in game.view.seats] == [False, True, False]  # after a later play
    game = apply(stub, game.state_token, 0, play("9S"))
    assert game.view.seats[1].passed  # seat 1 is skipped: its turn goes to seat 2
    assert game.to_act == 2
    game = apply(stub, game.state_token, 2, PASS)
    assert any(e.HasField("round_won") for e in game.events)
    assert not any(s.passed for s in game.view.seats)


# --- Settlement.rotten ---------------------------------------------------------------------------


def test_a_rotten_part_labelled_2_holds_every_2_left_when_the_rules_charge_them_flat(
    stub: Stub,
) -> None:
    """RottenPart.label "2": one part per 2 left, except where the rules charge the 2s left at a
    flat amount (rotten_two_flat, the Northern thối hai): one part holds every 2 left."""
    southern = new_game(stub, explicit=deal("3S", "4S 2S 2H")).game
    southern = apply(stub, southern.state_token, 0, play("3S"))
    parts = [(p.seat, p.label, texts(p.cards), p.amount) for p in southern.settlement.rotten]
    assert parts == [(1, "2", ["2S"], 50), (1, "2", ["2H"], 100)]
    northern = new_game(stub, rules=spec("northern"), explicit=deal("3S", "4S 2S 2H")).game
    northern = apply(stub, northern.state_token, 0, play("3S"))
    parts = [(p.seat, p.label, texts(p.cards), p.amount) for p in northern.settlement.rotten]
    assert parts == [(1, "2", ["2S", "2H"], 1300)]


# --- CombinationType -----------------------------------------------------------------------------

TRIPLES = ("4S", "4C", "4D", "5S", "5C", "5D", "6S", "6C", "6D")


def test_consecutive_triples_are_a_combination_wherever_their_option_is_on(stub: Stub) -> None:
    """COMBINATION_TYPE_CONSECUTIVE_TRIPLES: a combination under the consecutive_triples option
    (on in Tiến lên Đấu, off by default), not only in the Đấu preset."""
    hands = deal(" ".join(TRIPLES), "7S 8S")
    for options, legal in (({}, False), ({"consecutive_triples": "true"}, True)):
        token = new_game(
            stub, rules=spec(**options), explicit=hands, first_game=False, leader=0
        ).game.state_token
        check = stub.ValidateMove(
            service_pb2.ValidateMoveRequest(state_token=token, seat=0, move=play(*TRIPLES)),
            timeout=TIMEOUT,
        )
        assert check.legal == legal, check
        if legal:
            combination = check.combination
            assert (combination.type, combination.length) == (
                moves_pb2.COMBINATION_TYPE_CONSECUTIVE_TRIPLES,
                3,
            )


# --- GameStarted.must_include and NewGameRequest.seed ----------------------------------------------


def test_the_first_lead_must_include_the_starting_card_which_is_the_3_of_clubs_in_hue(
    stub: Stub,
) -> None:
    """GameStarted.must_include: the starting card (option starting_card: the 3 of spades, the
    3 of clubs in Huế), or the lowest dealt card when nobody holds it."""
    hue = new_game(stub, rules=spec("hue"), explicit=deal("3S 9S", "3C 10S")).game
    started = hue.events[0].game_started
    assert (texts([started.must_include]), started.leader) == (["3C"], 1)
    assert texts([hue.view.must_include]) == ["3C"]
    fallback = new_game(stub, rules=spec("hue"), explicit=deal("3S 9S", "4C 10S")).game
    assert texts([fallback.events[0].game_started.must_include]) == ["3S"]


def test_a_seed_deals_the_same_hands_for_the_same_rules_players_and_dealer(stub: Stub) -> None:
    """NewGameRequest.seed: the same seed, rules, players and dealer give the same deal; in Tiến
    lên Đấu the dealer holds 18 cards, so another dealer is dealt another way."""

    def dau_hands(dealer: int) -> list[list[str]]:
        token = new_game(stub, rules=spec("dau"), seed=5, dealer=dealer).game.state_token
        return [
            texts(
                stub.GetView(
                    service_pb2.GetViewRequest(state_token=token, seat=seat), timeout=TIMEOUT
                ).view.hand
            )
            for seat in range(3)
        ]

    assert dau_hands(1) == dau_hands(1)
    assert dau_hands(0) != dau_hands(1)
    assert [len(hand) for hand in dau_hands(1)] == [17, 18, 17]


# --- NextGameRequest.deal ------------------------------------------------------------------------


def third_game_hands(
    stub: Stub, first_seed: int | None, second: service_pb2.NextGameRequest
) -> list[list[str]]:
    """The hands of game 3 of a match dealt from `first_seed` (None: at random), whose game 2 is
    dealt as `second` says and game 3 with `deal` unset."""
    seed = {} if first_seed is None else {"seed": first_seed}
    first = play_out(stub, new_game(stub, players=2, **seed).game)
    second.state_token = first.state_token
    game_2 = play_out(stub, stub.NextGame(second, timeout=TIMEOUT).game)
    game_3 = stub.NextGame(
        service_pb2.NextGameRequest(state_token=game_2.state_token), timeout=TIMEOUT
    ).game
    assert game_3.view.game_number == 3
    return hands(stub, game_3.state_token, 2)


def test_a_seeded_matchs_later_games_go_on_from_its_seed_after_a_random_or_explicit_game(
    stub: Stub,
) -> None:
    """NextGameRequest.random: a random deal of this game, even in a match dealt from a seed;
    its later games, when `deal` is unset, go on from the seed (so do those after a game dealt
    from explicit hands)."""
    seeded = third_game_hands(stub, 77, service_pb2.NextGameRequest())
    random_2 = service_pb2.NextGameRequest(random=service_pb2.RandomDeal())
    assert third_game_hands(stub, 77, random_2) == seeded
    explicit_2 = service_pb2.NextGameRequest(explicit=deal("3S 9S", "4S 10S"))
    assert third_game_hands(stub, 77, explicit_2) == seeded


def test_a_seed_given_to_next_game_becomes_the_seed_later_games_go_on_from(stub: Stub) -> None:
    """NextGameRequest.seed: the match's later games, when `deal` is unset, go on from this seed,
    whether the match began from another seed or at random."""
    from_5 = third_game_hands(stub, 77, service_pb2.NextGameRequest(seed=5))
    assert from_5 != third_game_hands(stub, 77, service_pb2.NextGameRequest())
    assert third_game_hands(stub, None, service_pb2.NextGameRequest(seed=5)) == from_5
