"""Thin Python client of the Tiến Lên engine service (gRPC `tienlen.v1.TienLenEngine`).

from tienlen_client import TienLenClient, MoveRejected

with TienLenClient("127.0.0.1:50051") as client:
game = client.new_game(variant="southern", players=4, seed=7)
game = client.play(game, game.to_act, ["3S"])
"""

from tienlen_client.cards import CardTextError
from tienlen_client.client import TienLenClient, channel_target, service_config
from tienlen_client.errors import (
    InvalidRequest,
    InvalidToken,
    MoveRejected,
    PermissionDenied,
    TienLenError,
    Unavailable,
)
from tienlen_client.follow import CannotFollow, UpdateView
from tienlen_client.models import (
    Combination,
    Game,
    LegalMove,
    RottenPart,
    SeatInfo,
    Settlement,
    Transfer,
    Validation,
    View,
)
from tienlen_client.record import (
    GameRecord,
    MatchRecord,
    RecordedMove,
    RecordMoveRejected,
    RecordParseError,
    RecordResult,
    RecordUnavailable,
)
from tienlen_client.stream import MoveStream

__all__ = [
    "CannotFollow",
    "CardTextError",
    "Combination",
    "Game",
    "GameRecord",
    "InvalidRequest",
    "InvalidToken",
    "LegalMove",
    "MatchRecord",
    "MoveRejected",
    "MoveStream",
    "PermissionDenied",
    "RecordMoveRejected",
    "RecordParseError",
    "RecordResult",
    "RecordUnavailable",
    "RecordedMove",
    "RottenPart",
    "SeatInfo",
    "Settlement",
    "TienLenClient",
    "TienLenError",
    "Transfer",
    "Unavailable",
    "UpdateView",
    "Validation",
    "View",
    "channel_target",
    "service_config",
]
