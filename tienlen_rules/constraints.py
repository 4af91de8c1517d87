"""Constraints between rule options, as data (issue #25): which options matter only when
others have some value, which values are derived from others, and what a table is refused;
the order `ruleset.build_rules` resolves a table's rules in; and the readings the combination
check settled. DescribeRules serves the constraints; docs/RULE-OPTIONS.md lists all three.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tienlen_rules.choices import FrozenPays, InstantWinList, Scoring
from tienlen_rules.option_values import format_option_value
from tienlen_rules.options import FOLLOWS_LAST_PLACE, OPTIONS, OptionType
from tienlen_rules.presets import POINTS_PENALTIES


class ConstraintKind(StrEnum):
    """How options bear on each other (DescribeRules' `OptionConstraint.kind`)."""

    #: `options` change nothing unless every condition in `when` holds: a settings screen may
    #: grey them out otherwise.
    APPLIES_WHEN = "applies_when"
    #: When every condition holds, each of `options` the table does not give takes a value
    #: derived from other options (`values`, or the value of `source`), after the overrides.
    DERIVED_VALUE = "derived_value"
    #: Rules that break it are refused by NewGame with `refusal` (ErrorInfo reason), the
    #: constraint's name in the ErrorInfo metadata (`constraint`).
    REFUSED_UNLESS = "refused_unless"


@dataclass(frozen=True, slots=True)
class OptionCondition:
    """Holds when option `option`'s canonical value is one of `values` (`negated`: none of them)."""

    option: str
    values: tuple[str, ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Constraint:
    """One constraint between options, as data (DescribeRules serves it; docs/RULE-OPTIONS.md
    lists it; `ruleset` applies the derived values and the refusals from it)."""

    name: str
    kind: ConstraintKind
    options: tuple[str, ...]
    description: str
    when: tuple[OptionCondition, ...] = ()
    values: tuple[tuple[str, str], ...] = ()  # DERIVED_VALUE: option -> canonical value
    source: str = ""  # DERIVED_VALUE: the option whose value is taken
    refusal: str = ""  # REFUSED_UNLESS: the ErrorInfo reason


def _on(option: str, *values: str) -> OptionCondition:
    return OptionCondition(option, values)


def _off(option: str, *values: str) -> OptionCondition:
    return OptionCondition(option, values, negated=True)


_PAIR_PENALTIES = (
    "penalty_three_pairs",
    "penalty_four_pairs",
    "penalty_five_pairs",
    "penalty_six_pairs",
)

#: Every constraint between options. Two things are refused: stakes that make a fraction of a
#: chip, and following suit with pairs or straights of mixed colours or suits (issue #38).
CONSTRAINTS: tuple[Constraint, ...] = (
    Constraint(
        "points_penalty_values",
        ConstraintKind.DERIVED_VALUE,
        tuple(POINTS_PENALTIES),
        "The points scheme is its values (RULES §8): with scoring = points, every penalty option"
        " the table does not give is ♠2 = 1, ♣2 = 2, ♦2 = 3, ♥2 = 4, any bomb = 4, whatever the"
        " preset's. No other scheme changes a penalty value: card count plays the preset's"
        " (dem_la's are the đếm lá conversions).",
        when=(_on("scoring", Scoring.POINTS),),
        values=tuple((k, format_option_value(v)) for k, v in POINTS_PENALTIES.items()),
    ),
    Constraint(
        "last_place_amount",
        ConstraintKind.DERIVED_VALUE,
        tuple(sorted(FOLLOWS_LAST_PLACE)),
        "An amount given as L (instant_win_stakes, blind_three_stakes) is the value of"
        " place_last_to_first, whatever it is set to.",
        when=(),
        source="place_last_to_first",
    ),
    Constraint(
        "whole_chips",
        ConstraintKind.REFUSED_UNLESS,
        ("stake", *(o.name for o in OPTIONS if o.type is OptionType.STAKES)),
        "Every amount must be whole chips: stake × each stakes option, and × freeze_multiplier"
        " where cóng multiplies it (L; with card count, each penalty value and the stake per"
        " card).",
        refusal="FRACTIONAL_AMOUNT",
    ),
    Constraint(
        "follow_suit_needs_one_colour_and_suit",
        ConstraintKind.REFUSED_UNLESS,
        ("follow_suit", "same_colour_pairs", "single_suit_straights"),
        "Following suit and colour (RULES §6: 'đồng chất, đồng màu') follows a pair's colour and a"
        " straight's suit, so it needs pairs of one colour (same_colour_pairs) and straights of"
        " one suit (single_suit_straights), as the Northern game has them: with follow_suit on,"
        " either off is refused — no source says what follows a pair or straight of mixed"
        " colours or suits.",
        when=(_on("follow_suit", "true"),),
        refusal="INCOMPATIBLE_OPTIONS",
    ),
    Constraint(
        "bankrolls_without_match_bankroll",
        ConstraintKind.REFUSED_UNLESS,
        ("match_bankroll",),
        "Northern match_bankroll gives every player its chips for the whole match: a table with"
        " it takes no per-game bankrolls (RULES §9.1, §9.2), and NewGame or NextGame given"
        " bankrolls is refused (field bankrolls).",
        when=(_off("match_bankroll", "0"),),
        refusal="BANKROLLS_WITH_MATCH_BANKROLL",
    ),
    Constraint(
        "needs_bankrolls",
        ConstraintKind.APPLIES_WHEN,
        ("min_bankroll_stakes", "loss_cap"),
        "The table's minimum and the loss cap read the bankrolls the host gives NewGame or"
        " NextGame (RULES §9.2): a table without bankrolls has neither.",
        when=(_on("match_bankroll", "0"),),
    ),
    Constraint(
        "needs_consecutive_pairs",
        ConstraintKind.APPLIES_WHEN,
        ("lead_stealing", "steal_winner_pairs_lead", "long_pairs_chop", *_PAIR_PENALTIES),
        "Without consecutive pairs nobody can play them: they never steal the lead, chop, rot or"
        " cost a frozen player anything.",
        when=(_on("consecutive_pairs", "true"),),
    ),
    Constraint(
        "needs_consecutive_triples",
        ConstraintKind.APPLIES_WHEN,
        ("penalty_three_triples",),
        "Without consecutive triples nobody can play them: they never chop or rot.",
        when=(_on("consecutive_triples", "true"),),
    ),
    Constraint(
        "needs_lead_stealing",
        ConstraintKind.APPLIES_WHEN,
        ("steal_winner_pairs_lead",),
        "Who may steal over the winner's own 3 consecutive pairs matters only where the lead"
        " can be stolen.",
        when=(_on("lead_stealing", "true"),),
    ),
    Constraint(
        "needs_follow_suit",
        ConstraintKind.APPLIES_WHEN,
        ("pair_of_twos_beats_pair_of_twos",),
        "A pair of 2s on a pair of 2s is a Northern follow-suit rule.",
        when=(_on("follow_suit", "true"),),
    ),
    Constraint(
        "needs_freezing",
        ConstraintKind.APPLIES_WHEN,
        (
            "freeze_at",
            "freeze_multiplier",
            "frozen_pays",
            "freeze_exempt_unplayed",
            "alone_with_frozen_pays_place",
            "chops_paid_on_freeze",
            "compensation",
        ),
        "The cóng options matter only where players freeze.",
        when=(_on("freezing", "true"),),
    ),
    Constraint(
        "needs_places",
        ConstraintKind.APPLIES_WHEN,
        (
            "place_third_to_second",
            "place_second_to_first",
            "finish_on_two",
            "finish_on_four_of_a_kind",
            "freeze_at",
            "frozen_pays",
            "alone_with_frozen_pays_place",
            "chops_paid_on_freeze",
            "compensation",
            "blind_three_stakes",
            "blind_three_in_first_game",
            "rotten_three_stakes",
            "rotten_payee",
        ),
        "The card count ends at the first finish and pays the winner per card: no places, ba mù,"
        " thối ♠3 or đền bài, its chops and frozen hands are paid as the card count says, its"
        " first player out wins whatever it goes out on (source 004), and the win is the one"
        " finish that judges cóng (freeze_at changes nothing).",
        when=(_off("scoring", Scoring.CARD_COUNT),),
    ),
    Constraint(
        "needs_frozen_paying_the_winner",
        ConstraintKind.APPLIES_WHEN,
        ("alone_with_frozen_pays_place",),
        "Where the frozen pay the whole table the game ends at the freeze, with no place"
        " transfers for those still holding cards: nobody is left alone with the frozen to pay"
        " or be paid a place.",
        when=(_on("frozen_pays", FrozenPays.WINNER),),
    ),
    Constraint(
        "needs_card_count",
        ConstraintKind.APPLIES_WHEN,
        ("card_count_per_card", "card_count_rotten"),
        "The stake per card left is the card count's.",
        when=(_on("scoring", Scoring.CARD_COUNT),),
    ),
    Constraint(
        "needs_blind_three",
        ConstraintKind.APPLIES_WHEN,
        ("blind_three_in_first_game",),
        "Whether ba mù is paid in a first game matters only where ba mù is paid.",
        when=(_off("blind_three_stakes", "0"),),
    ),
    Constraint(
        "needs_instant_wins",
        ConstraintKind.APPLIES_WHEN,
        (
            "first_game_instant_wins",
            "any_game_instant_wins_in_first_game",
            "instant_win_tie",
            "triple_counts_as_pair",
            "instant_wins_on_short_hands",
            "first_game_after_instant_win",
        ),
        "The instant-win options matter only where a list of instant wins applies.",
        when=(_off("instant_wins", InstantWinList.NONE),),
    ),
    Constraint(
        "dealt_by_count",
        ConstraintKind.APPLIES_WHEN,
        ("cards_per_hand",),
        "Đấu deals every card (17/17/18), whatever cards_per_hand says.",
        when=(_on("deal_all_cards", "false"),),
    ),
)

CONSTRAINTS_BY_NAME: dict[str, Constraint] = {c.name: c for c in CONSTRAINTS}


def condition_holds(condition: OptionCondition, values: dict[str, object]) -> bool:
    """Whether `condition` holds for these option values (canonical text compared)."""
    raw = values[condition.option]
    text = format_option_value(raw)  # type: ignore[arg-type]
    return (text in condition.values) != condition.negated


#: How `ruleset.build_rules` resolves a table's rules, in this order (docs/RULE-OPTIONS.md).
RESOLUTION_ORDER: tuple[str, ...] = (
    (
        "The preset: every option's Southern default, then the preset's values (for a game dealt"
        " under an older rules revision, the defaults it keeps). Every default comes from the"
        " preset alone."
    ),
    "The table's overrides, by name.",
    (
        "The values derived from other options (constraints of kind `derived_value`, below): an"
        " amount given as `L` takes place_last_to_first; with scoring = points, every penalty option"
        " the table did not give takes its points value. No other option changes another's value."
    ),
    (
        "What the table can play decides its bombs: a class of its chop table (with the ladder of"
        " longer runs and suited straights, where on) is a bomb only when its plays are"
        " combinations at this table (runs of pairs need consecutive_pairs, runs of triples"
        " consecutive_triples). Only bombs chop, rot (thối) or cost a frozen (cóng) or instant-win"
        " loser anything; a penalty value prices a bomb and never makes one, so a value given for a"
        " combination that is no bomb at the table changes nothing."
    ),
    (
        "The refusals (constraints of kind `refused_unless`): a stake that makes any amount a"
        " fraction of a chip is refused (FRACTIONAL_AMOUNT, metadata constraint = whole_chips), and"
        " so is following suit with pairs or straights that need not be of one colour or suit"
        " (INCOMPATIBLE_OPTIONS, metadata constraint = follow_suit_needs_one_colour_and_suit; a"
        " game dealt before rules revision 2 is played as it was dealt). No other combination of"
        " option values is refused."
    ),
)

#: Readings the combination check (tests/engine/settlement/test_reference_model.py, random
#: tables drawn from every value of every option) had to settle: rules, in the project's words.
READINGS: tuple[str, ...] = (
    (
        "A scoring scheme is how money is counted, not a set of prices: card count played on a"
        " preset other than dem_la charges that preset's penalty values per 2 and bomb (dem_la's"
        " own values are the đếm lá conversions), and dem_la played by places keeps its"
        " conversions. Only the points scheme, which is its values, sets the penalties not given."
    ),
    (
        "A combination that is not a combination at the table is never a bomb: without"
        " consecutive pairs no run of pairs chops, rots or is charged to a frozen player, whatever"
        " penalty_*_pairs says; likewise consecutive triples without consecutive_triples, 3"
        " consecutive pairs in the Huế and Đà Nẵng tables, a four of a kind in the Đấu table, and"
        " every bomb with chop_table = none (only 2s rot there)."
    ),
    (
        "The Đấu chop table without consecutive pairs is played: its consecutive triples are its"
        " bombs (out of turn as in Đấu); nothing in the rule book ties the table to pairs."
    ),
    (
        "With card_count_rotten = instead, the split of a hand left is the one of the largest"
        " payment (RULES §8: the largest total): a card the split leaves out is still paid as a"
        " card, so a 2 or bomb worth less as a conversion than its cards stay cards, and of two"
        " bombs of one value the one of fewer cards is taken."
    ),
    (
        "A pair must be one colour where same_colour_pairs is on, but the pairs of a run of"
        " consecutive pairs may be of either colour, as the table plays them; they rot by the same"
        " reading."
    ),
    # Issue #38: the readings the option docs still left open.
    (
        "Cóng is decided once at each finish, under every scheme: the win (the finish that takes"
        " 1st) judges it, and freeze_at adds the finishes it names. freeze_exempt_unplayed is the"
        " Đà Nẵng rule of the win ('nếu 1 người về nhất nhưng vẫn còn 2 nhà chưa ra bài thì vẫn"
        " đánh tiếp', sources 000/001/002): when exactly that many players have not played at the"
        " win, nobody is frozen and play goes on; every other finish that judges cóng — a later"
        " one with freeze_at = every_finish, one ranked last before the win with until_win —"
        " freezes whoever has still not played, however many. The card count ends at the win:"
        " exactly freeze_exempt_unplayed losers who never played pay as the other losers there"
        " too, and a frozen loser is shown frozen (PlayersFrozen, the view's flag) wherever it is"
        " charged FROZEN and takes the last places as in every scheme (the other losers are"
        " placed by cards left); freeze_at changes nothing there."
    ),
    (
        "Góp 3 (starting_card_every_game) names the leader of every game: in a game that is not a"
        " first game the starting card's holder leads with any combination (source 000: 'được ưu"
        " tiên đánh trước', priority to lead; only a first game's lead must contain the card,"
        " RULES §4), after an instant win and after đền bài too, whoever won or compensated."
        " first_game_after_instant_win then decides only whether that game is a first game (the"
        " must-include lead, the first-game instant wins, no cướp cái), and first_game_leader ="
        " random still draws a first game's leader."
    ),
    (
        "Góp 3 with the starting card out of play (2-3 players): the lowest dealt card's holder"
        " leads a game that is not a first game, with any combination, whatever"
        " missing_starting_card says (its random draw is for first games)."
    ),
    (
        "Góp 3 with cướp cái: the lead is stolen from whoever would make the game's first lead,"
        " the starting card's holder; 'the previous winner' of the stealing rules"
        " (steal_winner_pairs_lead) reads as that leader."
    ),
    (
        "The four 3s lay the 2s down (four_threes_lay_down_twos) as part of the deal: a game"
        " starts from the hands after the lay-down. A laid-down 2 is out of play: laying it down"
        " is no play (a player who has played nothing else is unplayed, and frozen where the"
        " table freezes), it never rots and is never charged to a frozen or instant-win loser."
        " Tới trắng, judged right after the deal, is judged on the hands after the lay-down: four"
        " 2s laid down win nothing."
    ),
    (
        "A same-suit straight bomb (suited_straight_chops) chops 2s only, as sources 000/002 list"
        " ('chặn được hai ... đôi hai'): a higher same-suit straight on one is the ordinary beat of"
        " a higher straight of its length, no chop, and no bomb chops one; a chop by one is paid"
        " the 2s' value; one left in a hand never rots nor costs a frozen or instant-win loser"
        " anything (no source values one: it is no hàng). The option adds these rows to whichever"
        " chop table the table plays, none included: a straight of one suit is told apart under"
        " every table."
    ),
    (
        "four_twos = redeal is a rule of the deal (sources 000/001: 'nếu có 4 cây heo trong bộ thì"
        " chia lại bài'): every deal that gives a hand all four 2s is dealt again (an explicit one"
        " is refused, REDEAL_REQUIRED), whatever the instant-win list, also where four 2s would"
        " win nothing (instant_wins = none, the Đấu list, hands too short to be checked)."
    ),
    (
        "The dealer of the next game (dealer_rotation = winner) is the player who came 1st, after"
        " đền bài too (source 000: 'người chia bài thường là người đã thắng nhất ở ván liền"
        " trước'); the compensating player only leads it ('người đền bài sẽ được đi trước')."
    ),
    (
        "frozen_pays = whole_table with every opponent frozen: each frozen player owes the"
        " instant-win amount to every player not frozen, the winner alone ('cóng 3 nhà: cả ba nhà"
        " đền tới trắng'); where the table plays đền bài (compensation) the compensating player"
        " pays the winner all of it, as under frozen_pays = winner — the sources define đền bài"
        " for every opponent frozen, and this reading changes only what each frozen player owes."
    ),
    (
        "alone_with_frozen_pays_place changes nothing at 4 players: the one left alone with two"
        " frozen players takes 2nd, whose place transfer (3rd to 2nd) the frozen 3rd pays its"
        " frozen amount instead of; it matters at 3 players (2nd pays 1st), and only where the"
        " frozen pay the winner (frozen_pays = winner)."
    ),
    (
        "The player left holding cards who takes 1st (every other player went out ranked last)"
        " is the winner: it pays no thối for the 2s and bombs it holds (nobody is placed above"
        " it) and leads the next game."
    ),
    (
        "rotten_two_flat prices a hand's 2s wherever the rule book charges them as for thối: the"
        " last player's thối hai, a frozen player's hand, an instant-win loser's with count_pigs,"
        " a card-count loser's rotten cards — once for any 2s. A chop of a 2 is paid at the 2's"
        " penalty value (RULES §10, Northern)."
    ),
    (
        "A steal where 3 consecutive pairs are a bomb (the Southern chop table): the first steal,"
        " on an empty table, chops nothing; a steal-back, or a steal over the winner's own"
        " opening 3 consecutive pairs, is a higher 3 consecutive pairs on 3 consecutive pairs, so"
        " a paid chop (RULES §5) and a link of a chain like any other; where they are no bomb"
        " (Huế, Đà Nẵng) it is an unpaid beat. A steal is a play: its player is no longer"
        " unplayed."
    ),
    (
        "An explicit hand holds 1 to 13 cards whatever cards_per_hand says, and up to 18 only"
        " where the table deals every card (deal_all_cards, on any preset): a hand of 14 or more"
        " is refused (INVALID_DEAL) elsewhere, Đấu with deal_all_cards off included."
    ),
    (
        "The card count's first player out wins and ends the game, whatever it goes out on"
        " (source 004: 'ván chơi sẽ kết thúc ngay khi có người đánh hết ... người đó cũng là"
        " người chiến thắng'): finish_on_two and finish_on_four_of_a_kind = ranks_last change"
        " nothing there (Northern or Huế played by the card count), since the card count prices"
        " no place — a player ranked last there went on to pay nothing, holding no card."
    ),
    (
        "No combination above is refused: each has its reading, closest to the sources, and"
        " none makes another meaningless; where an option then changes nothing, a constraint of"
        " kind applies_when says so (freeze_at, finish_on_two and finish_on_four_of_a_kind under"
        " the card count; alone_with_frozen_pays_place where the frozen pay the whole table)."
        " One other combination makes no sense and is refused"
        " (follow_suit_needs_one_colour_and_suit): following the colour of a pair, or the suit"
        " of a straight, whose cards have none — the engine had followed a mixed pair as a black"
        " one and a mixed straight by its top card's suit."
    ),
)

#: Readings of RULES §9 ("Matches and tables") the rule book leaves to the engine: rules, in the
#: project's words (docs/RULE-OPTIONS.md, docs/HOSTS.md; tested in tests/engine/tables/).
TABLE_READINGS: tuple[str, ...] = (
    (
        "An explicit deal at a table with an empty seat lists one hand per seat of the table"
        " (index = seat), the empty seat's hand empty; a seeded deal deals the occupied seats in"
        " seat order, as a deal of that many players would."
    ),
    (
        "The table grows when a newcomer sits in a seat beyond the match's first players (a match"
        " dealt for 2 players seats a third in seat 3: seat 2 is then empty); it never shrinks:"
        " a seat left empty stays listed, empty."
    ),
    (
        "The dealer with dealer_rotation = next_seat rotates on from the previous dealer's seat"
        " to the next occupied seat, in a first game a seat change made too; the lowest occupied"
        " seat deals such a first game only with dealer_rotation = winner."
    ),
    (
        "A newcomer's seat token is new: NextGame with newcomers answers tokens no other answer"
        " gives (like NewGame's, they are the one part of its answer not fixed by its request), so"
        " that a token a player got from a forked NextGame opens no seat of the host's match."
    ),
    (
        "A time-out under timeout_action = bot plays the greedy bot's move, except a steal of the"
        " lead (a time-out never steals): then the seat passes."
    ),
    (
        "A seat whose player left under play_out is not listed among the seats that could chop out"
        " of turn (its token may no longer act, so it can't claim); a seat on auto whose player is"
        " still there is listed. The seat to act is not listed either: its chop is a play in turn."
    ),
    (
        "The loss cap cuts the settlement, not the game's events: a ChopSettled event says what the"
        " chain is worth; the settlement's CHOP transfer says what was paid (owed beside it). A"
        " payment cut to nothing stays listed, with amount 0 and what was owed."
    ),
    (
        "When a forfeiter held the starting card of a first game's first lead, the lead goes by"
        " missing_starting_card over the cards still in play: lowest_card, the holder of the"
        " lowest of them leads and must play it; lowest_card_free, with anything; random, a seat"
        " still holding cards, drawn from the game's deal (no player knows it whole) so that a"
        " record replays it."
    ),
    (
        "A forfeiter holding cards is a payee where the frozen pay the whole table"
        " (frozen_pays = whole_table), as a player still holding cards is."
    ),
)
