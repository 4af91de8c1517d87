"""Python client of the Tiến Lên engine service (gRPC `tienlen.v1.TienLenEngine`).

    from tienlen_client import TienLenClient

    with TienLenClient("127.0.0.1:50051") as client:
        game = client.new_game(variant="southern", players=4, seed=7)
        move = client.suggest(game, game.to_act, bot="greedy")
        game = client.play(game, game.to_act, move.cards)

The `tienlen` command-line tool (`tienlen_client.cli`) comes with it.
"""

from importlib import metadata

from tienlen_client.cards import CardTextError
from tienlen_client.channel import channel_target, service_config
from tienlen_client.client import TienLenClient
from tienlen_client.combination import Combination
from tienlen_client.errors import (
    InvalidRequest,
    InvalidToken,
    MoveRejected,
    PermissionDenied,
    TienLenError,
    Unavailable,
)
from tienlen_client.events import (
    AutoPlay,
    ChopSettled,
    Event,
    GameOver,
    GameStarted,
    InstantWin,
    Passed,
    Played,
    PlayerFinished,
    PlayerLeft,
    PlayersFrozen,
    RoundWon,
    SeatTaken,
    SeatVacated,
    TimedOut,
    TurnPassed,
    UnknownEvent,
)
from tienlen_client.follow import CannotFollow, UpdateView
from tienlen_client.models import (
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
    RecordParseError,
    RecordResult,
)
from tienlen_client.record_log import RecordMoveRejected, RecordUnavailable
from tienlen_client.rules import RuleOption, Rules, Variant
from tienlen_client.stream import MoveStream
from tienlen_client.table import Newcomer

try:
    __version__ = metadata.version("tienlen-client")
except metadata.PackageNotFoundError:  # imported from a checkout without installing it
    __version__ = "0+unknown"

__all__ = [
    "AutoPlay",
    "CannotFollow",
    "CardTextError",
    "ChopSettled",
    "Combination",
    "Event",
    "Game",
    "GameOver",
    "GameRecord",
    "GameStarted",
    "InstantWin",
    "InvalidRequest",
    "InvalidToken",
    "LegalMove",
    "MatchRecord",
    "MoveRejected",
    "MoveStream",
    "Newcomer",
    "Passed",
    "PermissionDenied",
    "Played",
    "PlayerFinished",
    "PlayerLeft",
    "PlayersFrozen",
    "RecordMoveRejected",
    "RecordParseError",
    "RecordResult",
    "RecordUnavailable",
    "RecordedMove",
    "RottenPart",
    "RoundWon",
    "RuleOption",
    "Rules",
    "SeatInfo",
    "SeatTaken",
    "SeatVacated",
    "Settlement",
    "TienLenClient",
    "TienLenError",
    "TimedOut",
    "Transfer",
    "TurnPassed",
    "Unavailable",
    "UnknownEvent",
    "UpdateView",
    "Validation",
    "Variant",
    "View",
    "__version__",
    "channel_target",
    "service_config",
]
