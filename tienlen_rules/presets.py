"""The named presets (RULES §4-§10): each a set of option values that differ from the Southern
defaults, with its one-line description, and the penalty values the points and đếm lá schemes
are made of. The options themselves are declared in `options`."""

from __future__ import annotations

from fractions import Fraction

from tienlen_rules.choices import (
    ChopOnLastCard,
    ChopTableName,
    FinishOnFourOfAKind,
    FinishOnTwo,
    FirstGameLeader,
    InstantWinList,
    Scoring,
    StartingCard,
)
from tienlen_rules.options import BOMB_PENALTY_OPTIONS, LAST_PLACE

#: The penalty values the points scheme is made of (RULES §8, sources 000/001/002): ♠2 = 1,
#: ♣2 = 2, ♦2 = 3, ♥2 = 4, any bomb = 4, each point one stake. With `scoring` = points they are
#: derived values (constraint `points_penalty_values`): every penalty option the table does not
#: give takes its points value, whatever the preset's. Which combinations are bombs (paid, rotten,
#: charged to the frozen) is decided by what the table can play, never by a value (`ruleset`).
POINTS_PENALTIES: dict[str, Fraction] = {
    "penalty_two_spades": Fraction(1),
    "penalty_two_clubs": Fraction(2),
    "penalty_two_diamonds": Fraction(3),
    "penalty_two_hearts": Fraction(4),
    **{name: Fraction(4) for name in BOMB_PENALTY_OPTIONS},
}

#: The đếm lá conversions (RULES §8, §10, source 004): black 2 = 2 cards, red 2 = 4, four of a
#: kind = 4, 3 or 4 consecutive pairs = 2. They are the dem_la preset's own penalty values, not
#: values `scoring` = card_count derives: another preset played by card count keeps its own.
CARD_COUNT_PENALTIES: dict[str, Fraction] = {
    "penalty_two_spades": Fraction(2),
    "penalty_two_clubs": Fraction(2),
    "penalty_two_diamonds": Fraction(4),
    "penalty_two_hearts": Fraction(4),
    "penalty_three_pairs": Fraction(2),
    "penalty_four_of_a_kind": Fraction(4),
    "penalty_four_pairs": Fraction(2),
}

_HUE_DA_NANG: dict[str, bool | int | Fraction | str] = {
    "lead_stealing": True,
    "blind_three_stakes": LAST_PLACE,
    "rotten_three_stakes": Fraction(3),
    "penalty_three_pairs": Fraction(0),
}

#: The named presets: option values that differ from the Southern defaults.
PRESETS: dict[str, dict[str, bool | int | Fraction | str]] = {
    "southern": {},
    "northern": {
        "same_colour_pairs": True,
        "consecutive_pairs": False,
        "single_suit_straights": True,
        "follow_suit": True,
        "chop_table": ChopTableName.NORTHERN,
        "finish_on_two": FinishOnTwo.RANKS_LAST,
        "finish_on_four_of_a_kind": FinishOnFourOfAKind.RANKS_LAST,
        "instant_wins": InstantWinList.NONE,
        "freezing": False,
        "compensation": False,
        "penalty_three_pairs": Fraction(0),
        "penalty_four_pairs": Fraction(0),
        "rotten_two_flat": Fraction(13),
    },
    "hue": {
        **_HUE_DA_NANG,
        "starting_card": StartingCard.THREE_OF_CLUBS,
        "chop_table": ChopTableName.HUE,
        "chop_on_last_card": ChopOnLastCard.CHOPPER_ONLY,
        "finish_on_two": FinishOnTwo.RANKS_LAST,
        "first_game_instant_wins": False,
    },
    "da_nang": {
        **_HUE_DA_NANG,
        "chop_table": ChopTableName.DA_NANG,
        "freeze_exempt_unplayed": 2,
    },
    "dau": {
        "deal_all_cards": True,
        "consecutive_triples": True,
        "chop_table": ChopTableName.DAU,
        "instant_wins": InstantWinList.DAU,
        "penalty_three_pairs": Fraction(0),
        "penalty_four_of_a_kind": Fraction(0),
        "penalty_four_pairs": Fraction(3, 2),
        "penalty_five_pairs": Fraction(2),
        "penalty_three_triples": Fraction(5, 2),
        "penalty_six_pairs": Fraction(3),
    },
    "dem_la": {
        "first_game_leader": FirstGameLeader.RANDOM,
        "scoring": Scoring.CARD_COUNT,
        "instant_wins": InstantWinList.DEM_LA,
        "instant_win_stakes": Fraction(13),
        "count_pigs": True,
        "compensation": False,
        "min_bankroll_stakes": 20,
        **CARD_COUNT_PENALTIES,
    },
}

PRESET_DESCRIPTIONS: dict[str, str] = {
    "southern": "Miền Nam, the default: any suits, consecutive pairs chop 2s, instant wins, cóng, thối.",
    "northern": "Miền Bắc: pairs of one colour, follow suit and colour, single-suit straights, no consecutive pairs, no instant wins, no cóng, thối hai = 13 stakes.",
    "hue": "Huế: ♣3 leads the first game, 3 consecutive pairs only steal the lead, four of a kind chops a single 2, ba mù and rotten ♠3, no finishing on a 2.",
    "da_nang": "Đà Nẵng: 3 consecutive pairs only steal the lead, 4 consecutive pairs chop a pair of 2s or a four of a kind out of turn, ba mù, no cóng while two have not played.",
    "dau": "Tiến lên Đấu: 3 players, 17/17/18 cards, consecutive triples, bombs from 4 consecutive pairs up, its own instant wins and penalty values.",
    "dem_la": "Đếm lá (card count): random first leader, the game ends at the first finish, losers pay per card left plus rotten conversions.",
}
