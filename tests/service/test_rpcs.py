"""Every RPC of tienlen.v1.TienLenEngine over a real channel to a real in-process server."""

from __future__ import annotations

import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

import tienlen_rules as engine
from tienlen.v1 import (
    cards_pb2,
    events_pb2,
    game_pb2,
    moves_pb2,
    rules_pb2,
    service_pb2,
    service_pb2_grpc,
    settlement_pb2,
)
from tienlen_rules.options import OPTIONS
from tienlen_rules.presets import PRESETS
from tienlen_service import codec

Stub = service_pb2_grpc.TienLenEngineStub
TIMEOUT = 10.0


def card(text: str) -> cards_pb2.Card:
    return codec.card_from_text(text)


def hands_of(*hands: str) -> service_pb2.ExplicitDeal:
    return service_pb2.ExplicitDeal(
        hands=[cards_pb2.Hand(cards=[card(t) for t in h.split()]) for h in hands]
    )


def play(*texts: str) -> moves_pb2.Move:
    return moves_pb2.Move(play=moves_pb2.Play(cards=[card(t) for t in texts]))


PASS = moves_pb2.Move(pass_turn=moves_pb2.Pass())


def texts(cards: Any) -> list[str]:
    return [codec.card_to_text(c) for c in cards]


@pytest.fixture
def running(server_factory: Callable[..., Any]) -> Any:
    return server_factory()


@pytest.fixture
def stub(running: Any) -> Iterator[Stub]:
    with grpc.insecure_channel(running.address) as channel:
        yield Stub(channel)


def new_game(stub: Stub, **fields: Any) -> service_pb2.NewGameResponse:
    response: service_pb2.NewGameResponse = stub.NewGame(
        service_pb2.NewGameRequest(**fields), timeout=TIMEOUT
    )
    return response


def apply(
    stub: Stub, token: bytes, seat: int, move: moves_pb2.Move
) -> service_pb2.ApplyMoveResponse:
    request = service_pb2.ApplyMoveRequest(state_token=token, seat=seat, move=move)
    response: service_pb2.ApplyMoveResponse = stub.ApplyMove(request, timeout=TIMEOUT)
    return response


def seat_hand(stub: Stub, token: bytes, seat: int) -> list[str]:
    view = stub.GetView(
        service_pb2.GetViewRequest(state_token=token, seat=seat), timeout=TIMEOUT
    ).view
    return texts(view.hand)


# --- NewGame -----------------------------------------------------------------------------------


def test_new_game_with_a_seed_deals_reproducibly(stub: Stub) -> None:
    first = new_game(stub, players=4, seed=7)
    second = new_game(stub, players=4, seed=7)
    hands = [seat_hand(stub, first.game.state_token, s) for s in range(4)]
    assert hands == [seat_hand(stub, second.game.state_token, s) for s in range(4)]
    assert all(len(h) == 13 for h in hands)
    assert len({c for h in hands for c in h}) == 52
    # A fresh game id per NewGame: the seat tokens differ even for the same deal.
    assert set(first.seat_tokens).isdisjoint(second.seat_tokens)


def test_new_game_first_game_is_led_by_the_three_of_spades(stub: Stub) -> None:
    response = new_game(stub, players=4, seed=7)
    game = response.game
    leader = game.to_act
    assert "3S" in seat_hand(stub, game.state_token, leader)
    assert texts([game.view.must_include]) == ["3S"]
    started = game.events[0].game_started
    assert (started.leader, started.first_game, started.game_number) == (leader, True, 1)
    assert not game.finished
    assert not game.HasField("settlement")
    assert len(response.seat_tokens) == 4


def test_new_game_with_explicit_hands_deals_them(stub: Stub) -> None:
    deal = hands_of("3S 4S 5S", "6H 7H", "8D", "9C 9D 9H 9S")
    game = new_game(stub, explicit=deal).game
    assert game.view.players == 4
    assert [seat_hand(stub, game.state_token, s) for s in range(4)] == [
        ["3S", "4S", "5S"],
        ["6H", "7H"],
        ["8D"],
        ["9S", "9C", "9D", "9H"],
    ]
    assert [s.cards_left for s in game.view.seats] == [3, 2, 1, 4]


def test_new_game_not_first_game_is_led_by_the_given_leader(stub: Stub) -> None:
    game = new_game(
        stub, explicit=hands_of("3S", "4S", "5S", "6S 7S"), first_game=False, leader=2
    ).game
    assert game.to_act == 2
    assert not game.view.HasField("must_include")
    assert not game.view.first_game


@pytest.mark.parametrize("variant", list(PRESETS))
def test_new_game_deals_every_variant(stub: Stub, variant: str) -> None:
    game = new_game(stub, rules=rules_pb2.RuleSetSpec(variant=variant), seed=1).game
    expected = [17, 17, 18] if variant == "dau" else [13] * 4
    assert sorted(s.cards_left for s in game.view.seats) == sorted(expected)
    assert game.view.rules.variant == variant


def test_new_game_options_reach_the_rules(stub: Stub) -> None:
    spec = rules_pb2.RuleSetSpec(variant="southern", options={"stake": "10", "freezing": "off"})
    game = new_game(stub, rules=spec, seed=2).game
    assert dict(game.view.rules.options) == {"freezing": "false", "stake": "10"}


def test_an_instant_win_ends_the_game_at_the_deal_with_a_settlement(stub: Stub) -> None:
    game = new_game(stub, explicit=hands_of("2S 2C 2D 2H 3S", "4S", "5S", "6S")).game
    assert game.finished
    assert not game.HasField("to_act")
    kinds = [e.WhichOneof("kind") for e in game.events]
    assert kinds == ["game_started", "instant_win", "game_over"]
    assert game.events[1].instant_win.seat == 0
    settlement = game.settlement
    assert list(settlement.net) == [600, -200, -200, -200]
    assert {t.reason for t in settlement.transfers} == {settlement_pb2.TRANSFER_REASON_INSTANT_WIN}


# --- ApplyMove ---------------------------------------------------------------------------------


def test_apply_move_plays_and_passes(stub: Stub) -> None:
    game = new_game(stub, explicit=hands_of("3S 9S", "4S 10S", "5S JS", "6S QS")).game
    after = apply(stub, game.state_token, 0, play("3S")).game
    kinds = [e.WhichOneof("kind") for e in after.events]
    assert kinds == ["played", "turn_passed"]
    played = after.events[0].played
    assert (played.seat, played.cards_left, texts(played.combination.cards)) == (0, 1, ["3S"])
    assert played.combination.type == moves_pb2.COMBINATION_TYPE_SINGLE
    assert after.to_act == 1
    assert texts(after.view.table.cards) == ["3S"]
    assert after.view.table_seat == 0
    passed = apply(stub, after.state_token, 1, PASS).game
    assert passed.events[0].passed.seat == 1
    assert passed.view.seats[1].passed
    assert passed.to_act == 2


def test_apply_move_with_the_basic_view_leaves_out_only_the_view(stub: Stub) -> None:
    game = new_game(stub, explicit=hands_of("3S 9S", "4S 10S", "5S JS", "6S QS")).game
    full, basic, default = (
        stub.ApplyMove(
            service_pb2.ApplyMoveRequest(
                state_token=game.state_token, seat=0, move=play("3S"), view=view
            ),
            timeout=TIMEOUT,
        ).game
        for view in (
            game_pb2.UPDATE_VIEW_FULL,
            game_pb2.UPDATE_VIEW_BASIC,
            game_pb2.UPDATE_VIEW_UNSPECIFIED,
        )
    )
    assert not basic.HasField("view")
    assert full.HasField("view")
    assert default == full
    full.ClearField("view")
    assert basic == full  # the same token, events and to_act
    assert basic.to_act == 1


def test_a_game_played_from_listed_moves_reaches_a_settlement(stub: Stub) -> None:
    game = new_game(stub, players=4, seed=42).game
    moves = 0
    while not game.finished:
        seat = game.to_act
        listed = stub.ListLegalMoves(
            service_pb2.ListLegalMovesRequest(
                state_token=game.state_token, seat=seat, page_size=1000
            ),
            timeout=TIMEOUT,
        )
        assert listed.moves, "the seat to act always has a legal move"
        chosen = listed.moves[-1].move  # the strongest play (or the pass when nothing beats)
        game = apply(stub, game.state_token, seat, chosen).game
        moves += 1
        assert moves < 500
    settlement = game.settlement
    assert sum(settlement.net) == 0
    assert settlement.zero_sum
    assert sorted(settlement.places) == [1, 2, 3, 4] or max(settlement.places) == 4
    assert game.events[-1].WhichOneof("kind") == "game_over"


# --- ValidateMove ------------------------------------------------------------------------------


def test_validate_move_is_a_dry_run(stub: Stub) -> None:
    game = new_game(stub, explicit=hands_of("3S 3C 9S", "4S 10S", "5S JS", "6S QS")).game
    ok = stub.ValidateMove(
        service_pb2.ValidateMoveRequest(
            state_token=game.state_token, seat=0, move=play("3S", "3C")
        ),
        timeout=TIMEOUT,
    )
    assert ok.legal
    assert ok.combination.type == moves_pb2.COMBINATION_TYPE_PAIR
    assert texts(ok.combination.cards) == ["3S", "3C"]
    assert not ok.reason
    bad = stub.ValidateMove(
        service_pb2.ValidateMoveRequest(state_token=game.state_token, seat=0, move=play("9S")),
        timeout=TIMEOUT,
    )
    assert not bad.legal
    assert bad.reason == "MUST_INCLUDE_STARTING_CARD"
    assert bad.message
    wrong_turn = stub.ValidateMove(
        service_pb2.ValidateMoveRequest(state_token=game.state_token, seat=1, move=PASS),
        timeout=TIMEOUT,
    )
    assert (wrong_turn.legal, wrong_turn.reason) == (False, "NOT_YOUR_TURN")
    # Nothing changed: the same token still accepts the move.
    assert apply(stub, game.state_token, 0, play("3S", "3C")).game.to_act == 1


def test_validate_move_answers_the_engines_chop_flag(stub: Stub) -> None:
    hands = ("2S 9S", "3C 3D 4S 4C 5S 5C 10S", "6S JS", "7S QS")
    flags = []
    for lead, cards in (("2S", "3C 3D 4S 4C 5S 5C"), ("9S", "10S")):
        game = new_game(stub, explicit=hands_of(*hands), first_game=False, leader=0).game
        game = apply(stub, game.state_token, 0, play(lead)).game
        state = engine_game(hands, (f"0: {lead}",))
        check = stub.ValidateMove(
            service_pb2.ValidateMoveRequest(
                state_token=game.state_token, seat=1, move=play(*cards.split())
            ),
            timeout=TIMEOUT,
        )
        combo = engine.classify(engine.parse_set(cards), state.rules)
        assert combo is not None
        assert check.legal
        assert check.chop == engine.chops(state, combo)
        flags.append(check.chop)
    assert flags == [True, False]


# --- ListLegalMoves ----------------------------------------------------------------------------


def list_all(
    stub: Stub, token: bytes, seat: int, page_size: int, **fields: Any
) -> tuple[list[Any], Any]:
    pages: list[Any] = []
    page_token = ""
    first = None
    while True:
        response = stub.ListLegalMoves(
            service_pb2.ListLegalMovesRequest(
                state_token=token, seat=seat, page_size=page_size, page_token=page_token, **fields
            ),
            timeout=TIMEOUT,
        )
        first = first or response
        assert len(response.moves) <= page_size
        pages += list(response.moves)
        page_token = response.next_page_token
        if not page_token:
            return pages, first


def engine_game(hands: tuple[str, ...], moves: tuple[str, ...]) -> engine.GameState:
    """The game NewGame deals from these hands (not a first game, seat 0 leading), played in
    the engine itself: the listing the RPC must hand out."""
    state, _ = engine.new_game(
        engine.build_rules("southern"),
        len(hands),
        hands=[engine.parse_set(h) for h in hands],
        first_game=False,
        leader=0,
    )
    for step in moves:
        seat, _, cards = step.partition(":")
        state, _ = engine.apply(state, engine.play(int(seat), engine.parse_cards(cards.strip())))
    return state


def as_listed(listing: engine.LegalListing) -> list[tuple[str, bool]]:
    return [
        ("pass", False)
        if m.combination is None
        else (engine.format_cards(m.combination.cards), m.chop)
        for m in listing.moves
    ]


def rpc_listed(moves: list[Any]) -> list[tuple[str, bool]]:
    return [
        ("pass", False)
        if m.move.WhichOneof("action") == "pass_turn"
        else (" ".join(texts(m.move.play.cards)), m.chop)
        for m in moves
    ]


LEAD_HANDS = ("3S 3C 4S 4C 5S 5C 6D 7D 2H", "9S", "10S", "JS")


def test_list_legal_moves_hands_out_the_engines_listing_page_by_page(stub: Stub) -> None:
    game = new_game(stub, explicit=hands_of(*LEAD_HANDS), first_game=False, leader=0).game
    listing = engine.legal_listing(engine_game(LEAD_HANDS, ()), 0)
    everything, first = list_all(stub, game.state_token, 0, 1000)
    paged, _ = list_all(stub, game.state_token, 0, 7)
    assert len(listing.moves) > 20
    assert rpc_listed(everything) == as_listed(listing)
    assert paged == everything
    assert first.total_size == len(listing.moves)
    assert [(g.group.type, g.group.length, g.count) for g in first.group_counts] == [
        (kind, length, n) for (kind, length), n in listing.groups.items()
    ]
    assert first.can_pass == listing.can_pass


def test_list_legal_moves_hands_out_the_pass_and_the_chop_flags(stub: Stub) -> None:
    hands = ("2S 9S", "3C 3D 4S 4C 5S 5C 10S", "6S JS", "7S QS")
    game = new_game(stub, explicit=hands_of(*hands), first_game=False, leader=0).game
    game = apply(stub, game.state_token, 0, play("2S")).game
    listing = engine.legal_listing(engine_game(hands, ("0: 2S",)), 1)
    moves, first = list_all(stub, game.state_token, 1, 2)
    assert rpc_listed(moves) == as_listed(listing)
    assert any(chop for _, chop in as_listed(listing))
    assert first.can_pass


def test_list_legal_moves_filters_one_group(stub: Stub) -> None:
    game = new_game(stub, players=4, seed=5, first_game=False, leader=0).game
    _, full = list_all(stub, game.state_token, 0, 1000)
    pairs = {
        g.group.length: g.count
        for g in full.group_counts
        if g.group.type == moves_pb2.COMBINATION_TYPE_PAIR
    }
    only, first = list_all(
        stub,
        game.state_token,
        0,
        3,
        filter=service_pb2.MoveGroup(type=moves_pb2.COMBINATION_TYPE_PAIR),
    )
    assert all(m.combination.type == moves_pb2.COMBINATION_TYPE_PAIR for m in only)
    assert len(only) == first.total_size == sum(pairs.values())


def test_a_seat_that_is_not_to_act_has_no_moves(stub: Stub) -> None:
    game = new_game(stub, explicit=hands_of("3S 9S", "4S 10S", "5S JS", "6S QS")).game
    moves, first = list_all(stub, game.state_token, 2, 10)
    assert moves == []
    assert first.total_size == 0
    assert not first.can_pass


# --- GetView -----------------------------------------------------------------------------------


def cards_in(message: Any, path: str = "") -> list[tuple[str, str]]:
    """Every Card anywhere inside a message, with the field path it sits at."""
    found: list[tuple[str, str]] = []
    if isinstance(message, cards_pb2.Card):
        return [(path, codec.card_to_text(message))]
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        if field.message_type is None:
            continue
        for item in values:
            if field.message_type.GetOptions().map_entry:
                continue
            found += cards_in(item, f"{path}.{field.name}".lstrip("."))
    return found


def test_views_never_show_another_seats_cards(stub: Stub) -> None:
    response = new_game(stub, players=4, seed=3)
    token = response.game.state_token
    spectator = stub.GetView(service_pb2.GetViewRequest(state_token=token), timeout=TIMEOUT).view
    assert not spectator.HasField("seat")
    # Before anyone plays, the only card a spectator sees is the public starting card.
    assert cards_in(spectator) == [("must_include", "3S")]
    assert sorted(cards_in(response.game)) == [
        ("events.game_started.must_include", "3S"),
        ("view.must_include", "3S"),
    ]
    for seat in range(4):
        view = stub.GetView(
            service_pb2.GetViewRequest(state_token=token, seat=seat), timeout=TIMEOUT
        ).view
        assert view.seat == seat
        outside_hand = [(p, c) for p, c in cards_in(view) if p != "hand"]
        assert outside_hand == [("must_include", "3S")]
        assert len(view.hand) == 13


def test_a_view_later_in_the_game_shows_only_public_cards(stub: Stub) -> None:
    game = new_game(stub, explicit=hands_of("3S 9S", "4S 10S", "5S JS", "6S QS")).game
    game = apply(stub, game.state_token, 0, play("3S")).game
    game = apply(stub, game.state_token, 1, play("4S")).game
    public = {"3S", "4S"}
    assert {c for _, c in cards_in(game)} <= public
    view = stub.GetView(
        service_pb2.GetViewRequest(state_token=game.state_token, seat=2), timeout=TIMEOUT
    ).view
    assert texts(view.hand) == ["5S", "JS"]
    assert {c for p, c in cards_in(view) if p != "hand"} <= public
    assert texts(view.played) == ["3S", "4S"]


# --- NextGame ----------------------------------------------------------------------------------


def finished_two_player_game(stub: Stub) -> Any:
    """Seat 0 wins a short 2-player game; seat 1 played a card, so it is not frozen."""
    game = new_game(stub, explicit=hands_of("3S 6S", "4S 5S")).game
    for seat, move in ((0, play("3S")), (1, play("4S")), (0, play("6S"))):
        game = apply(stub, game.state_token, seat, move).game
    assert game.finished
    return game


def test_a_frozen_loser_pays_double(stub: Stub) -> None:
    game = apply(
        stub, new_game(stub, explicit=hands_of("3S", "4S 5S")).game.state_token, 0, play("3S")
    ).game
    assert list(game.settlement.net) == [400, -400]
    assert [t.reason for t in game.settlement.transfers] == [settlement_pb2.TRANSFER_REASON_FROZEN]


def test_next_game_carries_the_match_on(stub: Stub) -> None:
    game = finished_two_player_game(stub)
    assert list(game.settlement.net) == [200, -200]
    assert [t.reason for t in game.settlement.transfers] == [settlement_pb2.TRANSFER_REASON_PLACE]
    nxt = stub.NextGame(
        service_pb2.NextGameRequest(state_token=game.state_token, seed=9), timeout=TIMEOUT
    ).game
    assert not nxt.finished
    assert nxt.view.game_number == 2
    assert nxt.to_act == 0  # the previous winner leads
    assert not nxt.view.first_game
    assert [s.match_total for s in nxt.view.seats] == [200, -200]
    assert nxt.events[0].game_started.game_number == 2


def test_next_game_with_explicit_hands(stub: Stub) -> None:
    game = finished_two_player_game(stub)
    nxt = stub.NextGame(
        service_pb2.NextGameRequest(state_token=game.state_token, explicit=hands_of("6S 7S", "8S")),
        timeout=TIMEOUT,
    ).game
    assert [seat_hand(stub, nxt.state_token, s) for s in range(2)] == [["6S", "7S"], ["8S"]]


# --- DescribeRules -----------------------------------------------------------------------------


def test_describe_rules_lists_every_preset_and_option(stub: Stub) -> None:
    rules = stub.DescribeRules(service_pb2.DescribeRulesRequest(), timeout=TIMEOUT)
    assert [v.name for v in rules.variants] == [
        "southern",
        "northern",
        "hue",
        "da_nang",
        "dau",
        "dem_la",
    ]
    assert all(v.description for v in rules.variants)
    assert [o.name for o in rules.options] == [o.name for o in OPTIONS]
    by_name = {o.name: o for o in rules.options}
    assert by_name["stake"].default_value == "100"
    assert by_name["stake"].type == rules_pb2.OPTION_TYPE_INT
    assert (by_name["stake"].minimum, by_name["stake"].maximum) == (1, 1_000_000_000)
    assert list(by_name["chop_table"].choices) == [
        "southern",
        "hue",
        "da_nang",
        "northern",
        "dau",
        "none",
    ]
    assert by_name["penalty_two_spades"].default_value == "1/2"
    northern = {v.name: v for v in rules.variants}["northern"]
    assert {o.name: o.value for o in northern.overrides}["follow_suit"] == "true"
    assert len(northern.option_values) == len(OPTIONS)


# --- SuggestMove -------------------------------------------------------------------------------


def test_suggest_move_answers_with_a_legal_move_from_every_bot(stub: Stub) -> None:
    game = new_game(stub, players=4, seed=8).game
    bots = list(stub.DescribeRules(service_pb2.DescribeRulesRequest(), timeout=TIMEOUT).bots)
    assert {"greedy", "random"} <= set(bots)
    for bot in bots:
        request = service_pb2.SuggestMoveRequest(
            state_token=game.state_token, seat=game.to_act, bot=bot
        )
        suggestion = stub.SuggestMove(request, timeout=60)
        assert suggestion.bot == bot
        assert suggestion.move.WhichOneof("action") == "play"  # the first lead must play 3S
        assert "3S" in texts(suggestion.combination.cards)
        check = stub.ValidateMove(
            service_pb2.ValidateMoveRequest(
                state_token=game.state_token, seat=game.to_act, move=suggestion.move
            ),
            timeout=TIMEOUT,
        )
        assert check.legal
        # A pure function of the request: asking again gives the same move.
        assert stub.SuggestMove(request, timeout=60) == suggestion


def test_suggest_move_defaults_to_greedy_and_is_empty_when_not_the_seats_turn(stub: Stub) -> None:
    game = new_game(stub, explicit=hands_of("3S 9S", "4S 10S", "5S JS", "6S QS")).game
    default = stub.SuggestMove(
        service_pb2.SuggestMoveRequest(state_token=game.state_token, seat=0), timeout=TIMEOUT
    )
    assert default.bot == "greedy"
    assert texts(default.move.play.cards) == ["3S"]
    idle = stub.SuggestMove(
        service_pb2.SuggestMoveRequest(state_token=game.state_token, seat=2), timeout=TIMEOUT
    )
    assert not idle.HasField("move")


# --- metrics -----------------------------------------------------------------------------------


def scrape(url: str) -> dict[str, float]:
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
        text = response.read().decode()
    samples: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def test_domain_metrics_count_games_moves_and_refusals(running: Any, stub: Stub) -> None:
    game = new_game(stub, explicit=hands_of("3S", "4S 5S")).game
    with pytest.raises(grpc.RpcError):
        apply(stub, game.state_token, 1, PASS)
    apply(stub, game.state_token, 0, play("3S"))
    new_game(stub, explicit=hands_of("2S 2C 2D 2H 3S", "4S"))
    samples = scrape(running.metrics_url)
    assert samples['tienlen_games_started_total{variant="southern"}'] == 2
    assert samples['tienlen_moves_applied_total{variant="southern"}'] == 1
    assert samples['tienlen_moves_rejected_total{reason="NOT_YOUR_TURN"}'] == 1
    assert samples['tienlen_games_finished_total{variant="southern"}'] == 2
    assert samples['tienlen_instant_wins_total{variant="southern"}'] == 1


def test_a_counter_family_is_exposed_as_prometheus_clients_counter_would_be() -> None:
    from prometheus_client import CollectorRegistry, Counter, generate_latest

    from tienlen_service.metrics import CounterFamily

    ours, theirs = CollectorRegistry(), CollectorRegistry()
    family = CounterFamily("tienlen_moves_applied", "Moves applied.", "variant", ours)
    counter = Counter("tienlen_moves_applied", "Moves applied.", ("variant",), registry=theirs)
    for variant, times in (("southern", 3), ("dau", 0), ("hue", 1)):
        series, child = family.labels(variant), counter.labels(variant=variant)
        for _ in range(times):
            series.inc()
            child.inc()
    assert family.labels("southern") is family.labels("southern")
    wanted = [line for line in generate_latest(theirs).splitlines() if b"_created" not in line]
    assert generate_latest(ours).splitlines() == wanted


def test_a_plain_counter_is_exposed_as_prometheus_clients_counter_would_be() -> None:
    from prometheus_client import CollectorRegistry, Counter, generate_latest

    from tienlen_service.metrics import PlainCounter

    ours, theirs = CollectorRegistry(), CollectorRegistry()
    plain = PlainCounter("tienlen_tokens_decoded", "State tokens decoded.", ours)
    counter = Counter("tienlen_tokens_decoded", "State tokens decoded.", registry=theirs)
    for _ in range(3):
        plain.inc()
        counter.inc()
    wanted = [line for line in generate_latest(theirs).splitlines() if b"_created" not in line]
    assert generate_latest(ours).splitlines() == wanted


def test_a_state_token_of_another_replica_is_counted_decoded_and_one_of_its_own_is_not(
    server_factory: Any,
) -> None:
    """`tienlen_tokens_decoded_total` against `tienlen_tokens_verified_total`: the state
    cache's hit rate (deploy/README.md, Affinity)."""
    from tienlen_service.tokens import KeyRing

    keys = KeyRing.generate()
    first, second = server_factory(keyring=keys), server_factory(keyring=keys)
    with grpc.insecure_channel(first.address) as a, grpc.insecure_channel(second.address) as b:
        new = new_game(Stub(a), players=4, seed=3)
        view = service_pb2.GetViewRequest(state_token=new.game.state_token)
        Stub(a).GetView(view, timeout=TIMEOUT)  # its own token: a hit
        Stub(b).GetView(view, timeout=TIMEOUT)  # another replica's: verified and decoded
        Stub(b).GetView(view, timeout=TIMEOUT)  # checked already: a hit
    decoded = [scrape(r.metrics_url)["tienlen_tokens_decoded_total"] for r in (first, second)]
    verified = [
        sum(v for k, v in scrape(r.metrics_url).items() if k.startswith("tienlen_tokens_verified"))
        for r in (first, second)
    ]
    assert (decoded, verified) == ([0, 1], [1, 2])


def bot_series(samples: dict[str, float], bot: str) -> dict[str, float]:
    """A bot's searches by outcome, and its search-time histogram's count as `timed`."""
    outcomes = ("suggested", "no_move", "abandoned", "refused")
    series = {
        o: samples[f'tienlen_bot_searches_total{{bot="{bot}",outcome="{o}"}}'] for o in outcomes
    }
    series["timed"] = samples[f'tienlen_bot_search_seconds_count{{bot="{bot}"}}']
    assert samples[f'tienlen_bot_search_seconds_bucket{{bot="{bot}",le="+Inf"}}'] == series["timed"]
    return series


def test_bot_metrics_time_and_count_each_suggestion_under_its_bot(running: Any, stub: Stub) -> None:
    zero = {"suggested": 0, "no_move": 0, "abandoned": 0, "refused": 0, "timed": 0}
    before = scrape(running.metrics_url)
    # Every bot's series exist at zero before its first call.
    assert {bot: bot_series(before, bot) for bot in ("greedy", "random", "montecarlo")} == {
        "greedy": zero,
        "random": zero,
        "montecarlo": zero,
    }
    token = new_game(stub, explicit=hands_of("3S 9S", "4S 10S", "5S JS", "6S QS")).game.state_token

    def suggest(seat: int, bot: str, state_token: bytes = token) -> service_pb2.SuggestMoveResponse:
        request = service_pb2.SuggestMoveRequest(state_token=state_token, seat=seat, bot=bot)
        response: service_pb2.SuggestMoveResponse = stub.SuggestMove(request, timeout=60)
        return response

    assert texts(suggest(0, "greedy").move.play.cards) == ["3S"]
    assert not suggest(2, "greedy").HasField("move")  # not seat 2's turn: nothing to do
    assert texts(suggest(0, "montecarlo").move.play.cards) == ["3S"]
    with pytest.raises(grpc.RpcError) as unknown:
        suggest(0, "bogus")  # refused before any metric is touched: no "bogus" series
    assert unknown.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finished = new_game(stub, explicit=hands_of("3S", "4S 5S")).game.state_token
    over = apply(stub, finished, 0, play("3S")).game
    assert over.finished
    assert not suggest(1, "greedy", over.state_token).HasField("move")  # a finished game: no bot
    after = scrape(running.metrics_url)
    assert bot_series(after, "greedy") == zero | {"suggested": 1, "no_move": 1, "timed": 2}
    assert bot_series(after, "montecarlo") == zero | {"suggested": 1, "timed": 1}
    assert bot_series(after, "random") == zero
    assert after['tienlen_bot_search_seconds_sum{bot="greedy"}'] > 0
    assert not [name for name in after if 'bot="bogus"' in name]


def test_events_are_tienlen_event_messages(stub: Stub) -> None:
    game = new_game(stub, players=2, seed=1).game
    assert all(isinstance(e, events_pb2.Event) for e in game.events)
