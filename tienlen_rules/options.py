"""Every rule option (*luật*), its type and its meaning.

Tiến Lên is played by house rules, so every choice that differs between the sources is an option
here, and the six regional presets are just sets of option values (RULES §4-§10; `presets`).
This table is the single place an option is declared: `RuleSet` reads its fields from it and
`DescribeRules` serves it to frontends.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

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
    LeaveMidGame,
    LongPairsChop,
    LossCap,
    MissingStartingCard,
    RottenPayee,
    Scoring,
    StartingCard,
    TimeoutAction,
)


class OptionType(StrEnum):
    """How an option's value is written."""

    BOOL = "bool"
    INT = "int"
    STAKES = "stakes"  # an exact non-negative fraction of a stake, written "3/2", "1.5" or "2"
    CHOICE = "choice"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One rule option: name, type, Southern default, allowed choices and a sentence for a UI."""

    name: str
    type: OptionType
    default: bool | int | Fraction | str
    description: str
    choices: tuple[StrEnum, ...] = ()
    minimum: int = 0
    maximum: int = 0


def _b(name: str, default: bool, description: str) -> OptionSpec:
    return OptionSpec(name, OptionType.BOOL, default, description)


#: The value of a stakes option that follows `place_last_to_first`: what the last player pays
#: the winner, called L in RULES §8 ("every other player pays the winner L").
LAST_PLACE = "L"
#: The stakes options that may be (and by default are) L.
FOLLOWS_LAST_PLACE = frozenset({"instant_win_stakes", "blind_three_stakes"})


def _s(name: str, default: int | str, description: str) -> OptionSpec:
    value = default if default == LAST_PLACE else Fraction(default)
    return OptionSpec(name, OptionType.STAKES, value, description)


def _c(name: str, default: StrEnum, description: str) -> OptionSpec:
    """A choice option: its values are the members of its enum, `default` one of them."""
    return OptionSpec(name, OptionType.CHOICE, default, description, tuple(type(default)))


def _i(name: str, default: int, lo: int, hi: int, description: str) -> OptionSpec:
    return OptionSpec(name, OptionType.INT, default, description, (), lo, hi)


OPTIONS: tuple[OptionSpec, ...] = (
    # --- the deal ---
    _i(
        "cards_per_hand",
        13,
        9,
        13,
        "Cards dealt to each player: Northern tables may play with fewer, 9 at least (sources 000/001/002).",
    ),
    _b(
        "deal_all_cards",
        False,
        "Tiến lên Đấu: deal all 52 cards to 3 players, 17/17/18, the dealer (cái) gets 18.",
    ),
    _c(
        "four_twos",
        FourTwos.INSTANT_WIN,
        "A hand dealt all four 2s: an instant win (Southern) or a redeal (sources 000/001).",
    ),
    _b(
        "four_threes_lay_down_twos",
        False,
        "Northern option: when a hand is dealt four 3s, every player lays down (removes from play) all their 2s.",
    ),
    # --- combinations ---
    _b("same_colour_pairs", False, "Northern: a pair must be two cards of the same colour."),
    _b(
        "consecutive_pairs",
        True,
        "Consecutive pairs (đôi thông) are a combination (not in the North).",
    ),
    _b("consecutive_triples", False, "Consecutive triples (sám cô thông) are a combination (Đấu)."),
    _b("single_suit_straights", False, "Northern: a straight must be all one suit."),
    _b(
        "follow_suit",
        False,
        "Northern: follow suit and colour (singles by suit, pairs by colour, triples by suit make-up, straights by suit).",
    ),
    _b(
        "pair_of_twos_beats_pair_of_twos",
        False,
        "Northern (follow_suit): a higher pair of 2s beats a lower one (RULES §6, source 000); off: only a chop beats a pair of 2s (RULES §10).",
    ),
    # --- chops ---
    _c(
        "chop_table",
        ChopTableName.SOUTHERN,
        "Which bombs chop what (RULES §5): the regional chop table.",
    ),
    _b(
        "suited_straight_chops",
        False,
        "Northern option: a same-suit straight of 5+ cards chops a single 2, of 6+ cards a pair of 2s.",
    ),
    _c(
        "long_pairs_chop",
        LongPairsChop.LADDER,
        "Consecutive pairs longer than any the chop table lists (5+ pairs; Đấu: 7+; dealt only when the instant win for 5 consecutive pairs is off): each run chops what the run one pair shorter chops, any run one pair shorter, and a lower run of its own length, out of turn when that shorter run may (RULES §3: every run of 3+ pairs is a bomb; source 003: 5 and 6 consecutive pairs win 'as 3 consecutive pairs do'; source 000's Đấu table grows the same way), and a chop of one is paid at its penalty value or, where none is set, at the run one pair shorter's [ours]; or they chop nothing and only a higher run of the same length beats them.",
    ),
    _b(
        "out_of_turn_chops",
        True,
        "The chop table's largest bombs may chop out of turn (không cần vòng), even after passing.",
    ),
    _c(
        "chop_on_last_card",
        ChopOnLastCard.VOID,
        "A chop of a player's last card(s): nobody pays (Southern), paid as usual, or the chopper is paid but the chopped player pays nothing (Huế, not zero-sum).",
    ),
    _c(
        "chop_chain_out_link",
        ChopChainOutLink.PAID,
        "Chặt chồng: an earlier link of a chop chain that its player went out with, the chain going on: the last chopped player pays it with the rest (RULES §5 [ours]: only the last link decides), or nobody pays for it and the last chopped pays only the rest (sources 000/001/002's void chop of a last card, applied to every link).",
    ),
    # --- leading ---
    _c(
        "starting_card",
        StartingCard.THREE_OF_SPADES,
        "The card that leads a first game: ♠3 (South), ♣3 (Huế).",
    ),
    _b(
        "starting_card_every_game",
        False,
        "Northern góp 3: the starting card's holder leads every game, not only first games.",
    ),
    _c(
        "first_game_leader",
        FirstGameLeader.STARTING_CARD,
        "Who leads a first game: the starting card's holder, or a fair random draw (đếm lá).",
    ),
    _c(
        "missing_starting_card",
        MissingStartingCard.LOWEST_CARD,
        "A first game where nobody holds the starting card (2-3 players): the lowest dealt card's holder leads and must include it (RULES §4 [ours]), leads with anything, or a fair random draw leads.",
    ),
    _b(
        "pass_lockout",
        True,
        "A player who passes is out of the round until a new round starts (qua tay).",
    ),
    _b(
        "lead_stealing",
        False,
        "Cướp cái (Huế, Đà Nẵng): at the start of a non-first game 3 consecutive pairs steal the lead; a higher one steals it back.",
    ),
    _b(
        "steal_winner_pairs_lead",
        True,
        "Cướp cái: when the previous winner leads 3 consecutive pairs themselves, a higher 3 consecutive pairs may take the lead from them out of turn, as a steal (the winner's lead is open to stealing like a steal); off: the winner's own opening 3 consecutive pairs are an ordinary lead, beaten in turn and never stolen ('người không về nhất', sources 000/002: a steal is made by a player who did not win), so only a steal keeps the lead open — stealing itself is unchanged: any player, the previous winner included, may still steal back a steal with a higher 3 consecutive pairs.",
    ),
    # --- finishing ---
    _c(
        "finish_on_two",
        FinishOnTwo.ALLOWED,
        "Going out with a play containing a 2: allowed, or it ranks you last (North, Huế); the card count prices no place: there the first player out wins whatever it goes out on (source 004).",
    ),
    _c(
        "finish_on_four_of_a_kind",
        FinishOnFourOfAKind.ALLOWED,
        "Going out with a four of a kind: allowed, or it ranks you last (North); not under the card count, whose first player out wins.",
    ),
    # --- instant wins ---
    _c(
        "instant_wins",
        InstantWinList.STANDARD,
        "Instant-win list (tới trắng, RULES §7): none, standard (Wikipedia), extended (sources 000/001), dau, dem_la.",
    ),
    _b(
        "first_game_instant_wins",
        True,
        "The first-game part of the list applies (Huế: no first-game instant wins).",
    ),
    _b(
        "any_game_instant_wins_in_first_game",
        True,
        "The any-game part of the list applies in first games too (RULES §7 [ours]); off: a first game checks only the first-game part.",
    ),
    _c(
        "instant_win_tie",
        InstantWinTie.SEAT_ORDER,
        "Several hands win at once: the first in seat order from the would-be leader wins (RULES §7 [ours]), or the cards are dealt again (an explicit deal is refused).",
    ),
    _b(
        "triple_counts_as_pair",
        False,
        "Six pairs (Đấu: eight pairs): a triple counts as one pair; off: as none (RULES §7 [ours], source 000 lists '5 pairs + 1 triple' apart). A four of a kind always counts as two.",
    ),
    _b(
        "instant_wins_on_short_hands",
        True,
        "Instant wins are checked on hands of fewer than 13 cards too (short explicit deals, cards_per_hand; RULES §7 [ours]); off: only when every hand holds 13 or more.",
    ),
    _b(
        "count_pigs",
        False,
        "Đếm heo: on an instant win the losers also pay for their 2s and bombs.",
    ),
    _s(
        "instant_win_stakes",
        "L",
        "What each loser pays an instant winner, in stakes; L (the default): the last-place amount, place_last_to_first.",
    ),
    _b(
        "first_game_after_instant_win",
        True,
        "The game after an instant win is a first game again (RULES §7 [ours]); off: the instant winner leads it with anything (source 004).",
    ),
    # --- frozen ---
    _b(
        "freezing",
        True,
        "Cóng: players who have not played a card when a player takes 1st (and at the finishes freeze_at adds) are frozen; under the card count, a loser who never played pays its whole payment times freeze_multiplier.",
    ),
    _c(
        "freeze_at",
        FreezeAt.FIRST_FINISH,
        "When cóng is judged: only when a player takes 1st place (RULES §10 [ours]); or at every finish that is not ranked last, so a player spared by freeze_exempt_unplayed at the win is frozen if still unplayed when another goes out; or at every finish until someone takes 1st, so a first player out ranked last (going out on a 2) freezes the players who have not played (freeze_exempt_unplayed, the rule of the win, spares nobody there), who take the places above them and pay the eventual winner — unless fewer than two players would be left to play for 1st, or frozen_pays is whole_table: then the win judges (sources 000/001/002: 'while another player has played all their cards').",
    ),
    _s(
        "freeze_multiplier",
        2,
        "A frozen player pays this many times L (places) or this multiple of their whole payment (card count).",
    ),
    _c(
        "frozen_pays",
        FrozenPays.WINNER,
        "Cóng (places and points schemes): each frozen player pays the winner freeze_multiplier × L plus its 2s and bombs and the others play on (RULES §7-§8), or the game ends at once and each frozen player pays the instant-win amount (instant_win_stakes; its 2s and bombs too with count_pigs) to the winner and to every other player not frozen (still holding cards, or gone out before a freeze at a later finish), with no place transfers but a player ranked last for going out paying as last (sources 000/001/002: 'cóng 1 nhà cũng như cả làng').",
    ),
    _i(
        "freeze_exempt_unplayed",
        0,
        0,
        3,
        "Đà Nẵng: when exactly this many players have not played at the win (the finish that takes 1st: 'về nhất'), nobody is frozen and they play on — under the card count, which ends there, they pay as the other losers; only the win spares, so a later finish that judges cóng (freeze_at) freezes whoever has still not played (0: off).",
    ),
    _b(
        "alone_with_frozen_pays_place",
        False,
        "The one player left alone with frozen players (2nd) pays or receives the usual place transfer; off: neither (RULES §8 [ours]).",
    ),
    _b(
        "chops_paid_on_freeze",
        True,
        "Chops made in a game that ends with frozen players are paid as usual (RULES §8 [ours]); off: cóng cancels them.",
    ),
    _b(
        "compensation",
        True,
        "Đền bài: when every opponent is frozen, the one who passed while only they could beat pays for all (places and points schemes; the card count has none).",
    ),
    # --- specials ---
    _s(
        "blind_three_stakes",
        0,
        "Ba mù: winning with ♠3 as the very last card; every other player pays this many stakes instead of their place transfer (L: the last-place amount; source 003: 3; 0: off).",
    ),
    _b(
        "blind_three_in_first_game",
        True,
        "Ba mù is paid in a first game too (RULES §7 and sources 000/002 name no exception, unlike cướp cái; in Huế ♣3 leads the first game, so ♠3 can be kept to the end); off: never in a first game, as some other engines play it.",
    ),
    _s(
        "rotten_three_stakes",
        0,
        "Thối 3 bích: the last player left holding only ♠3 pays the winner this many stakes (0: off).",
    ),
    # --- settlement ---
    _c(
        "scoring",
        Scoring.PLACES,
        "Settlement scheme: places (source 003), points (2s by suit 1-4, bombs 4), card count (đếm lá, source 004).",
    ),
    _i(
        "stake",
        100,
        1,
        1_000_000_000,
        "Chips per stake; every amount is stake × a multiplier and must be a whole number of chips.",
    ),
    _s(
        "card_count_per_card",
        1,
        "Card count (đếm lá): what a loser pays the winner per card left, in stakes.",
    ),
    _c(
        "card_count_rotten",
        CardCountRotten.IN_ADDITION,
        "Card count (đếm lá): rotten 2s and bombs are paid at their conversions in addition to the cards themselves (black 2 = 1 + 2, RULES §10 [ours]), or instead of them (black 2 = 2).",
    ),
    _c(
        "rotten_payee",
        RottenPayee.ABOVE,
        "Who collects thối (and thối hai): the player who finished just above the one left holding cards (RULES §8), or the winner (source 003's check by the winner).",
    ),
    _c(
        "dealer_rotation",
        DealerRotation.WINNER,
        "Who deals a match's next game (Đấu: the dealer gets 18 cards): the previous winner (RULES §10) or the next seat.",
    ),
    _s("place_last_to_first", 2, "Places: the last player pays the winner this many stakes (L)."),
    _s("place_third_to_second", 1, "Places, 4 players: 3rd pays 2nd this many stakes."),
    _s("place_second_to_first", 1, "Places, 3 players: 2nd pays 1st this many stakes."),
    _s("penalty_two_spades", "1/2", "Penalty value of ♠2 when chopped or rotten, in stakes."),
    _s("penalty_two_clubs", "1/2", "Penalty value of ♣2."),
    _s("penalty_two_diamonds", 1, "Penalty value of ♦2."),
    _s("penalty_two_hearts", 1, "Penalty value of ♥2."),
    _s(
        "penalty_three_pairs",
        "3/2",
        "Penalty value of 3 consecutive pairs, where the chop table makes them a bomb (0: a chop or rot of them is worth nothing).",
    ),
    _s(
        "penalty_four_of_a_kind",
        2,
        "Penalty value of a four of a kind, where the chop table makes it a bomb (not in Đấu).",
    ),
    _s("penalty_four_pairs", "5/2", "Penalty value of 4 consecutive pairs."),
    _s(
        "penalty_five_pairs",
        0,
        "Penalty value of 5 consecutive pairs (Đấu); 0 where long_pairs_chop=ladder makes them bombs: the value of 4 consecutive pairs [ours].",
    ),
    _s(
        "penalty_six_pairs",
        0,
        "Penalty value of 6 consecutive pairs (Đấu); 0 where long_pairs_chop=ladder makes them bombs: the value of 5 consecutive pairs [ours].",
    ),
    _s("penalty_three_triples", 0, "Penalty value of 3 consecutive triples (Đấu)."),
    _s(
        "rotten_two_flat",
        0,
        "Northern thối hai: a last player holding any 2 pays this many stakes once, instead of per 2 (0: off).",
    ),
    _i(
        "match_bankroll",
        0,
        0,
        1_000_000_000,
        "Northern option: each player starts the match with this many chips; a player whose total drops below 0 loses the match (0: off).",
    ),
    # --- the table: seats, bankrolls, time-outs, leavers (RULES §9) ---
    _b(
        "first_game_when_winner_leaves",
        True,
        "When the previous winner left the table, or nobody but the previous winner stayed, the next game is a first game with every first-game rule (source 004); off: the next occupied seat after the departed winner's leads with any combination.",
    ),
    _i(
        "min_bankroll_stakes",
        0,
        0,
        1_000_000,
        "A deal is refused when a seat's bankroll is below this many stakes, checked before every game (source 004: 20); 0: off.",
    ),
    _c(
        "loss_cap",
        LossCap.BANKROLL,
        "Where the host gives bankrolls: nobody pays more than its bankroll, the cut shared in proportion to what it owed (bankroll); or no cap (none).",
    ),
    _c(
        "timeout_action",
        TimeoutAction.LOWEST,
        "A seat whose time ran out passes, or leads its lowest single that is a legal lead (lowest); or plays the greedy bot's move (bot).",
    ),
    _i(
        "auto_after_timeouts",
        2,
        0,
        100,
        "After this many time-outs in a row (over rounds and games) a seat is on auto until it moves itself; 0: never.",
    ),
    _c(
        "leave_mid_game",
        LeaveMidGame.PLAY_OUT,
        "A player who leaves during a game: its seat is played out on auto and settled (play_out), the leave is refused (refuse), or the seat stops at once, placed below everyone still playing (forfeit).",
    ),
)

OPTIONS_BY_NAME: dict[str, OptionSpec] = {o.name: o for o in OPTIONS}

BOMB_PENALTY_OPTIONS = (
    "penalty_three_pairs",
    "penalty_four_of_a_kind",
    "penalty_four_pairs",
    "penalty_five_pairs",
    "penalty_six_pairs",
    "penalty_three_triples",
)
#: The penalty values of 2s and bombs (chops and thối), in stakes.
PENALTY_OPTIONS = (
    "penalty_two_spades",
    "penalty_two_clubs",
    "penalty_two_diamonds",
    "penalty_two_hearts",
    *BOMB_PENALTY_OPTIONS,
)
