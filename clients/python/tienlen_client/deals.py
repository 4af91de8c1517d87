"""The requests that deal a game: NewGame (a match's first game) and NextGame (the next one).

A deal is random, seeded or explicit (hands of card text per seat); a seeded or explicit deal
carries the host's deal key (only the host chooses a deal, docs/SECURITY.md). The rules are a
preset and options by name. At a table of people (RULES §9, `tienlen_client.table`) NewGame
takes each seat's player id and bankroll, and NextGame the seat changes and the bankrolls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tienlen.v1 import cards_pb2, rules_pb2, service_pb2
from tienlen_client.cards import CardsLike, cards
from tienlen_client.models import Game
from tienlen_client.table import Newcomer, seating


def new_game_request(
    variant: str,
    players: int | None,
    *,
    seed: int | None,
    hands: Sequence[CardsLike] | None,
    options: Mapping[str, object] | None,
    first_game: bool,
    leader: int | None,
    dealer: int,
    player_ids: Sequence[str] | None,
    bankrolls: Sequence[int] | None,
    deal_key: str,
) -> service_pb2.NewGameRequest:
    """NewGame's request (see `TienLenClient.new_game`)."""
    request = service_pb2.NewGameRequest(
        rules=rules_pb2.RuleSetSpec(
            variant=variant, options={k: option_text(v) for k, v in (options or {}).items()}
        ),
        players=players or 0,
        first_game=first_game,
        leader=leader,
        dealer=dealer,
        player_ids=player_ids or (),
        bankrolls=bankrolls or (),
    )
    set_deal(request, seed, hands, deal_key)
    return request


def next_game_request(
    game: Game,
    *,
    seed: int | None,
    hands: Sequence[CardsLike] | None,
    leaving: Iterable[int],
    joining: Sequence[Newcomer],
    bankrolls: Sequence[int] | None,
    deal_key: str,
) -> service_pb2.NextGameRequest:
    """NextGame's request (see `TienLenClient.next_game`): with `seating` only when someone
    leaves or sits down."""
    leaving = tuple(leaving)
    request = service_pb2.NextGameRequest(state_token=game.state, bankrolls=bankrolls or ())
    if leaving or joining:
        request.seating.CopyFrom(seating(game, leaving, joining))
    set_deal(request, seed, hands, deal_key)
    return request


def option_text(value: object) -> str:
    """A rule option's value as the contract's text (``True`` is ``"true"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def set_deal(
    request: service_pb2.NewGameRequest | service_pb2.NextGameRequest,
    seed: int | None,
    hands: Sequence[CardsLike] | None,
    deal_key: str,
) -> None:
    """The deal of `request`: a seed, explicit hands, or none (random)."""
    if seed is not None and hands is not None:
        raise ValueError("give a seed or explicit hands, not both")
    if seed is not None:
        request.seed = seed
    elif hands is not None:
        request.explicit.hands.extend(cards_pb2.Hand(cards=cards(hand)) for hand in hands)
    if seed is not None or hands is not None:
        request.deal_key = deal_key  # only the host chooses a deal
