"""A finished game's settlement (engine `Settlement`) -> `tienlen.v1.Settlement`.

Every chip that moves is a `Transfer` with its reason (place, chop, rotten cards, frozen, …,
the engine's `TransferReason`, one for one) and the cards it is for; `net` is each seat's sum,
`rotten` the parts of the rotten-card (*thối*) payments, `zero_sum` whether the nets add up to
0 (they do unless an option, Huế's chop of a last card, pays a chopper from no one's pocket).
"""

from __future__ import annotations

from typing import Final

from tienlen.v1 import settlement_pb2
from tienlen_rules import Settlement, TransferReason
from tienlen_service.codec.cards import cards_to_pb

_TRANSFER_REASONS: Final = {
    TransferReason.PLACE: settlement_pb2.TRANSFER_REASON_PLACE,
    TransferReason.CHOP: settlement_pb2.TRANSFER_REASON_CHOP,
    TransferReason.ROTTEN: settlement_pb2.TRANSFER_REASON_ROTTEN,
    TransferReason.FROZEN: settlement_pb2.TRANSFER_REASON_FROZEN,
    TransferReason.INSTANT_WIN: settlement_pb2.TRANSFER_REASON_INSTANT_WIN,
    TransferReason.BLIND_THREE: settlement_pb2.TRANSFER_REASON_BLIND_THREE,
    TransferReason.ROTTEN_THREE: settlement_pb2.TRANSFER_REASON_ROTTEN_THREE,
    TransferReason.COMPENSATION: settlement_pb2.TRANSFER_REASON_COMPENSATION,
    TransferReason.CARD_COUNT: settlement_pb2.TRANSFER_REASON_CARD_COUNT,
}


def settlement_to_pb(
    settlement: Settlement, *, replayed: bool = False
) -> settlement_pb2.Settlement:
    """The wire settlement of a finished game; `replayed`: its match was replayed from a record
    (`Match.replayed`)."""
    return settlement_pb2.Settlement(
        transfers=[
            settlement_pb2.Transfer(
                payer=t.payer,
                payee=t.payee,
                amount=t.amount,
                reason=_TRANSFER_REASONS[t.reason],
                cards=cards_to_pb(t.cards),
                owed=t.owed,
            )
            for t in settlement.transfers
        ],
        net=settlement.net,
        places=[max(p, 0) for p in settlement.places],  # an empty seat (RULES §9.1): 0
        rotten=[
            settlement_pb2.RottenPart(
                seat=r.seat, label=r.label, cards=cards_to_pb(r.cards), amount=r.amount
            )
            for r in settlement.rotten
        ],
        zero_sum=settlement.zero_sum,
        replayed=replayed,
    )
