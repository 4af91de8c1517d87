"""The Tiến Lên rules engine: pure Python, no grpc or protobuf, one public face.

Everything a caller needs is importable from here; the modules behind it hold one concept
each: cards and sets of cards (`cards`), combinations and chop classes (`combinations`),
beating and chopping (`beating`, `chop_tables`), rule options, their choices and presets
(`options`, `choices`, `ruleset`, `revisions`), the game (`state`, `game`, `rounds`,
`finishing`, `deal`, `instant_wins`), legal moves (`movegen` for a hand, `listing` for a seat
now: the ordered, grouped, chop-flagged list), settlement (`settlement`,
`rotten`), what a seat sees (`seat_view`), the events a move produces (`events`), the engine's
invariants (`invariants`) and the bots (`bots`).

    >>> from tienlen_rules import build_rules, new_game, apply, play, parse_cards
    >>> state, events = new_game(build_rules("southern"), 4, seed=7)

The service, the bench, the scripts and the tools import only this module: an import-linter
contract (`.importlinter`) keeps them off the modules behind it.
"""

from __future__ import annotations

from tienlen_rules.beating import Beat, beat, is_out_of_turn_chop

# The bots build on the engine above, so they come last.
from tienlen_rules.bots import BOTS, Bot, make_bot, observe, suggest_move
from tienlen_rules.cards import (
    RANK_ACE,
    RANK_TWO,
    RANKS,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    CardSet,
    card_name,
    cards_of,
    count,
    format_cards,
    parse_card,
    parse_cards,
    parse_set,
    rank_of,
    suit_of,
    to_set,
)
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
    LongPairsChop,
    MissingStartingCard,
    RottenPayee,
    Scoring,
    StartingCard,
)
from tienlen_rules.combinations import ChopClass, Combination, Kind, chop_class, classify
from tienlen_rules.errors import Abandoned, CardParseError, IllegalMove, Reason, SetupError
from tienlen_rules.events import (
    ChopSettled,
    Event,
    GameOver,
    GameStarted,
    InstantWin,
    Passed,
    Played,
    PlayerFinished,
    PlayersFrozen,
    RoundWon,
    TurnPassed,
)
from tienlen_rules.game import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    apply,
    can_apply,
    legal_moves,
    legal_plays,
    new_game,
    next_game,
    validate,
)
from tienlen_rules.instant_wins import INSTANT_WIN_LISTS as INSTANT_WIN_PATTERNS
from tienlen_rules.invariants import (
    InvariantError,
    check_cards,
    check_settlement,
    check_turn,
)
from tienlen_rules.listing import LegalListing, LegalMove, chops, legal_listing
from tienlen_rules.movegen import (
    GroupKey,
    combination_list,
    count_combinations,
    has_beat,
    plays_beating,
)
from tienlen_rules.options import (
    FOLLOWS_LAST_PLACE,
    LAST_PLACE,
    OPTIONS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    OptionSpec,
    OptionType,
    format_option_value,
)
from tienlen_rules.revisions import DEFAULT_CHANGES, DefaultChange, pinned_defaults
from tienlen_rules.ruleset import RuleSet, build_rules
from tienlen_rules.seat_view import SPECTATOR, SeatView, view
from tienlen_rules.settlement import (
    RottenEntry,
    Settlement,
    Transfer,
    TransferReason,
    settle,
)
from tienlen_rules.state import ChopPayment, GameState, Match, Move, pass_turn, play

__all__ = [
    "BOTS",
    "DEFAULT_CHANGES",
    "FOLLOWS_LAST_PLACE",
    "INSTANT_WIN_PATTERNS",
    "LAST_PLACE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OPTIONS",
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "RANKS",
    "RANK_ACE",
    "RANK_TWO",
    "SPECTATOR",
    "SUITS",
    "SUIT_SYMBOLS",
    "Abandoned",
    "Beat",
    "Bot",
    "Card",
    "CardCountRotten",
    "CardParseError",
    "CardSet",
    "ChopChainOutLink",
    "ChopClass",
    "ChopOnLastCard",
    "ChopPayment",
    "ChopSettled",
    "ChopTableName",
    "Combination",
    "DealerRotation",
    "DefaultChange",
    "Event",
    "FinishOnFourOfAKind",
    "FinishOnTwo",
    "FirstGameLeader",
    "FourTwos",
    "FreezeAt",
    "FrozenPays",
    "GameOver",
    "GameStarted",
    "GameState",
    "GroupKey",
    "IllegalMove",
    "InstantWin",
    "InstantWinList",
    "InstantWinTie",
    "InvariantError",
    "Kind",
    "LegalListing",
    "LegalMove",
    "LongPairsChop",
    "Match",
    "MissingStartingCard",
    "Move",
    "OptionSpec",
    "OptionType",
    "Passed",
    "Played",
    "PlayerFinished",
    "PlayersFrozen",
    "Reason",
    "RottenEntry",
    "RottenPayee",
    "RoundWon",
    "RuleSet",
    "Scoring",
    "SeatView",
    "Settlement",
    "SetupError",
    "StartingCard",
    "Transfer",
    "TransferReason",
    "TurnPassed",
    "apply",
    "beat",
    "build_rules",
    "can_apply",
    "card_name",
    "cards_of",
    "check_cards",
    "check_settlement",
    "check_turn",
    "chop_class",
    "chops",
    "classify",
    "combination_list",
    "count",
    "count_combinations",
    "format_cards",
    "format_option_value",
    "has_beat",
    "is_out_of_turn_chop",
    "legal_listing",
    "legal_moves",
    "legal_plays",
    "make_bot",
    "new_game",
    "next_game",
    "observe",
    "parse_card",
    "parse_cards",
    "parse_set",
    "pass_turn",
    "pinned_defaults",
    "play",
    "plays_beating",
    "rank_of",
    "settle",
    "suggest_move",
    "suit_of",
    "to_set",
    "validate",
    "view",
]
