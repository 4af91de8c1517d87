"""The values of the choice options (`options.OPTIONS` of type choice), one StrEnum per option.

A rule set holds its choices as these members and the engine compares members, which mypy
checks. A member equals its text (`FrozenPays.WHOLE_TABLE == "whole_table"`) and formats as it,
so DescribeRules, the state tokens and the docs write each choice as its text.
"""

from __future__ import annotations

from enum import StrEnum


class FourTwos(StrEnum):
    """`four_twos`: what a hand dealt all four 2s does."""

    INSTANT_WIN = "instant_win"
    REDEAL = "redeal"


class ChopTableName(StrEnum):
    """`chop_table`: which regional chop table (`chop_tables.CHOP_TABLES`) is in force."""

    SOUTHERN = "southern"
    HUE = "hue"
    DA_NANG = "da_nang"
    NORTHERN = "northern"
    DAU = "dau"
    NONE = "none"


class LongPairsChop(StrEnum):
    """`long_pairs_chop`: runs of pairs longer than the chop table lists."""

    LADDER = "ladder"
    NOTHING = "nothing"


class ChopOnLastCard(StrEnum):
    """`chop_on_last_card`: who pays for a chop of a player's last card(s)."""

    VOID = "void"
    PAID = "paid"
    CHOPPER_ONLY = "chopper_only"


class ChopChainOutLink(StrEnum):
    """`chop_chain_out_link`: an earlier link of a chop chain its player went out with."""

    PAID = "paid"
    VOID = "void"


class StartingCard(StrEnum):
    """`starting_card`: the card that leads a first game."""

    THREE_OF_SPADES = "3S"
    THREE_OF_CLUBS = "3C"


class FirstGameLeader(StrEnum):
    """`first_game_leader`: who leads a first game."""

    STARTING_CARD = "starting_card"
    RANDOM = "random"


class MissingStartingCard(StrEnum):
    """`missing_starting_card`: who leads a first game nobody holds the starting card in."""

    LOWEST_CARD = "lowest_card"
    LOWEST_CARD_FREE = "lowest_card_free"
    RANDOM = "random"


class FinishOnTwo(StrEnum):
    """`finish_on_two`: going out with a play that holds a 2."""

    ALLOWED = "allowed"
    RANKS_LAST = "ranks_last"


class FinishOnFourOfAKind(StrEnum):
    """`finish_on_four_of_a_kind`: going out with a four of a kind."""

    ALLOWED = "allowed"
    RANKS_LAST = "ranks_last"


class InstantWinList(StrEnum):
    """`instant_wins`: which list of instant wins (`instant_wins.INSTANT_WIN_LISTS`) applies."""

    NONE = "none"
    STANDARD = "standard"
    EXTENDED = "extended"
    DAU = "dau"
    DEM_LA = "dem_la"


class InstantWinTie(StrEnum):
    """`instant_win_tie`: several hands win on the deal."""

    SEAT_ORDER = "seat_order"
    REDEAL = "redeal"


class FreezeAt(StrEnum):
    """`freeze_at`: when cóng is judged."""

    FIRST_FINISH = "first_finish"
    EVERY_FINISH = "every_finish"
    UNTIL_WIN = "until_win"


class FrozenPays(StrEnum):
    """`frozen_pays`: whom a frozen player pays."""

    WINNER = "winner"
    WHOLE_TABLE = "whole_table"


class Scoring(StrEnum):
    """`scoring`: the settlement scheme."""

    PLACES = "places"
    POINTS = "points"
    CARD_COUNT = "card_count"


class CardCountRotten(StrEnum):
    """`card_count_rotten`: card count's rotten 2s and bombs, with or instead of the cards."""

    IN_ADDITION = "in_addition"
    INSTEAD = "instead"


class RottenPayee(StrEnum):
    """`rotten_payee`: who collects thối."""

    ABOVE = "above"
    WINNER = "winner"


class DealerRotation(StrEnum):
    """`dealer_rotation`: who deals a match's next game."""

    WINNER = "winner"
    NEXT_SEAT = "next_seat"


class LossCap(StrEnum):
    """`loss_cap`: whether a seat's payments are cut to its bankroll (RULES §9.2)."""

    BANKROLL = "bankroll"
    NONE = "none"


class TimeoutAction(StrEnum):
    """`timeout_action`: what a seat whose time ran out plays (RULES §9.3)."""

    LOWEST = "lowest"
    BOT = "bot"


class LeaveMidGame(StrEnum):
    """`leave_mid_game`: what a player's leaving during a game does (RULES §9.4)."""

    PLAY_OUT = "play_out"
    REFUSE = "refuse"
    FORFEIT = "forfeit"
