"""A seat's legal-move listing (`tienlen_rules.legal_listing`) -> ListLegalMoves' messages.

An entry becomes a `LegalMove` (the pass as `Move.pass_turn`; a play as its cards, its
combination and its chop flag) and the groups become `MoveGroupCount`s, in the engine's order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tienlen.v1 import moves_pb2, service_pb2
from tienlen_service.codec.cards import cards_to_pb, combination_to_pb

if TYPE_CHECKING:
    from tienlen_rules import GroupKey, LegalMove


def legal_move_to_pb(move: LegalMove) -> service_pb2.LegalMove:
    """One entry of a listing: the pass, or a play with its combination and chop flag."""
    combo = move.combination
    if combo is None:
        return service_pb2.LegalMove(move=moves_pb2.Move(pass_turn=moves_pb2.Pass()))
    return service_pb2.LegalMove(
        move=moves_pb2.Move(play=moves_pb2.Play(cards=cards_to_pb(combo.cards))),
        combination=combination_to_pb(combo),
        chop=move.chop,
    )


def group_counts_to_pb(groups: dict[GroupKey, int]) -> list[service_pb2.MoveGroupCount]:
    """How many plays each (type, length) group has, in the listing's order."""
    return [
        service_pb2.MoveGroupCount(
            group=service_pb2.MoveGroup(type=moves_pb2.CombinationType.ValueType(kind), length=n),
            count=count,
        )
        for (kind, n), count in groups.items()
    ]
