"""Differential test of the round flow: an independent reference model of RULES §4-§5 (turns,
passing and *qua tay*, the end of a round, *hưởng sái*, out-of-turn chops, finishing and the
places of a finish ranked last), written from the rule book, compared with the engine move by
move over seeded random games under every preset that plays rounds the same way.

The model decides only *who may act and what happens next*; whether one combination beats
another is `beat`'s (proved against its own reference model in test_differential_beating.py).
Instant wins, freezing and lead stealing (§7) are switched off so that the games are pure §4-§5.
Hands are seeded with runs of pairs and 2s so that chops, and out-of-turn chops, happen.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest
from helpers.option_tables import mend_following

from tienlen_rules import apply, legal_moves, movegen, new_game
from tienlen_rules.beating import Beat, beat
from tienlen_rules.cards import TWOS, CardSet, cards_of
from tienlen_rules.combinations import Combination, Kind, chop_class, classify
from tienlen_rules.options import OPTIONS_BY_NAME, OptionType
from tienlen_rules.ruleset import RuleSet, build_rules
from tienlen_rules.state import GameState, Move, play

# §5: the bombs that chop out of turn (không cần vòng), by preset. Runs of pairs longer than a
# table lists follow the run one pair shorter (option long_pairs_chop, default "ladder").
LONG_PAIRS = {f"{n}pairs" for n in range(5, 10)}
OUT_OF_TURN = {
    "southern": {"4pairs"} | LONG_PAIRS,
    "hue": {"4pairs"} | LONG_PAIRS,
    "da_nang": {"4pairs"} | LONG_PAIRS,
    "northern": set(),
    "dau": {"3triples", "6pairs"} | {f"{n}pairs" for n in range(7, 10)},
}
# §4/§6/§10: going out on a play holding a 2 (North, Huế) or on a four of a kind (North) ranks
# you last.
RANKS_LAST_ON_TWO = {"northern", "hue"}
RANKS_LAST_ON_FOUR = {"northern"}
# §5 by chop table (option chop_table): its bombs that chop out of turn, and its longest run of
# pairs (the ladder of option long_pairs_chop grows from it).
OUT_OF_TURN_BY_TABLE = {
    "southern": ({"4pairs"}, 4),
    "hue": ({"4pairs"}, 4),
    "da_nang": ({"4pairs"}, 4),
    "northern": (set(), 0),
    "dau": ({"3triples", "6pairs"}, 6),
    "none": (set(), 0),
}


def out_of_turn_bombs(chop_table: str, long_pairs: str, allowed: bool) -> set[str]:
    """§5: the bombs that may chop out of turn: the table's, the longer runs of pairs the ladder
    adds after an out-of-turn run, none where out_of_turn_chops is off."""
    if not allowed:
        return set()
    bombs, longest = OUT_OF_TURN_BY_TABLE[chop_table]
    bombs = set(bombs)
    if long_pairs == "ladder" and f"{longest}pairs" in bombs:
        bombs |= {f"{n}pairs" for n in range(longest + 1, 10)}
    return bombs


@dataclass
class Model:
    """The rule book's view of a game in progress. `out_of_turn` names the bombs that may chop
    out of turn; `last_on_two` / `last_on_four`: going out on a 2 / a four of a kind ranks last;
    `lockout`: a pass keeps the passer out of the round (qua tay, option pass_lockout)."""

    variant: str
    rules: RuleSet
    hands: list[CardSet]
    to_act: int = 0
    table: Combination | None = None
    table_seat: int = -1
    passed: set[int] = field(default_factory=set)
    places: list[int] = field(default_factory=list)
    over: bool = False
    out_of_turn: set[str] = field(default_factory=set)
    last_on_two: bool = False
    last_on_four: bool = False
    lockout: bool = True

    @classmethod
    def of_preset(cls, variant: str, rules: RuleSet, hands: list[CardSet]) -> Model:
        """The model of a preset's table, from the rule book's preset tables above."""
        return cls(
            variant,
            rules,
            hands,
            places=[0] * len(hands),
            out_of_turn=OUT_OF_TURN[variant],
            last_on_two=variant in RANKS_LAST_ON_TWO,
            last_on_four=variant in RANKS_LAST_ON_FOUR,
        )

    @property
    def players(self) -> int:
        return len(self.hands)

    def active(self) -> set[int]:
        return {s for s in range(self.players) if not self.places[s]}

    def next_of(self, after: int, seats: set[int]) -> int:
        """The first of `seats` after `after` in seat order (§2: turn order is the next seat)."""
        return next(
            (after + k) % self.players
            for k in range(1, self.players + 1)
            if (after + k) % self.players in seats
        )

    def legal(self, move: Move) -> bool:
        seat = move.seat
        if self.over or self.places[seat]:
            return False
        if move.is_pass:  # §4: in turn, and never by the leader of a round
            return seat == self.to_act and self.table is not None
        mask = sum(1 << c for c in move.cards)
        combo = classify(mask, self.rules)
        if combo is None or mask & ~self.hands[seat]:
            return False
        if seat == self.to_act:  # §4: the leader plays anything; the others beat or chop
            return self.table is None or beat(combo, self.table, self.rules)[0] != Beat.NO
        # §5: out of turn only a bomb of the table's out-of-turn list, chopping the table, and
        # never on one's own play — even after passing.
        return (
            self.table is not None
            and seat != self.table_seat
            and chop_class(combo) in self.out_of_turn
            and beat(combo, self.table, self.rules)[0] == Beat.CHOPS
        )

    def apply(self, move: Move) -> None:
        seat = move.seat
        if move.is_pass:  # §4: out of the round (qua tay) until a new round starts
            self.passed.add(seat)
            self._next_turn(seat)
            return
        mask = sum(1 << c for c in move.cards)
        combo = classify(mask, self.rules)
        assert combo is not None
        self.hands[seat] &= ~mask
        self.table, self.table_seat = combo, seat
        self.passed.discard(seat)  # §5: an out-of-turn chopper is back in the round
        if not self.lockout:  # pass_lockout off: a play brings every passer back in
            self.passed.clear()
        if not self.hands[seat]:
            self._finish(seat, combo, mask)
            if self.over:
                return
        self._next_turn(seat)  # §5: play continues from the (out-of-turn) chopper

    def _finish(self, seat: int, combo: Combination, mask: CardSet) -> None:
        """§4: the next place, or the last place free for a finish that ranks last; the game
        ends when only one player still holds cards."""
        last = (self.last_on_two and mask & TWOS) or (
            self.last_on_four and combo.kind == Kind.FOUR_OF_A_KIND
        )
        free = [p for p in range(1, self.players + 1) if p not in self.places]
        self.places[seat] = free[-1] if last else free[0]
        left = sorted(self.active())
        if len(left) <= 1:
            free = [p for p in range(1, self.players + 1) if p not in self.places]
            for s in left:
                self.places[s] = free[0]
            self.over = True

    def _next_turn(self, after: int) -> None:
        """§4: the next player still in the round; when every other player still in it has
        passed, the last player leads a new round — or, gone out, the next seat with cards."""
        still_in = self.active() - self.passed - {self.table_seat, after}
        if still_in:
            self.to_act = self.next_of(after, still_in)
            return
        last = self.table_seat
        self.to_act = last if last in self.active() else self.next_of(last, self.active())
        self.table, self.table_seat, self.passed = None, -1, set()


def _hands(rnd: random.Random, players: int, size: int) -> list[CardSet]:
    """Random disjoint hands, some seeded with a run of pairs (or triples) and some 2s."""
    pool = set(range(52))
    hands = []
    for _ in range(players):
        hand: set[int] = set()
        if rnd.random() < 0.6:
            low, per_rank = rnd.randrange(8), rnd.choice([2, 2, 2, 3])
            for rank in range(low, low + rnd.choice([3, 4, 4])):
                suits = [c for c in range(rank * 4, rank * 4 + 4) if c in pool]
                rnd.shuffle(suits)
                hand |= set(suits[:per_rank])
        if rnd.random() < 0.5:
            hand |= set([c for c in range(48, 52) if c in pool][: rnd.randint(0, 2)])
        hand = set(sorted(hand)[:13])
        pool -= hand
        rest = sorted(pool)
        rnd.shuffle(rest)
        extra = set(rest[: max(0 if hand else 1, size - len(hand))])
        pool -= extra
        hands.append(sum(1 << c for c in hand | extra))
    return hands


def _engine_moves(state: GameState, seat: int) -> set[tuple[bool, tuple[int, ...]]]:
    return {(m.is_pass, tuple(sorted(m.cards))) for m in legal_moves(state, seat)}


#: §4-§5 only: no instant wins, no freezing, no stealing of the lead.
PURE_ROUNDS = {
    "instant_wins": "none",
    "freezing": False,
    "compensation": False,
    "lead_stealing": False,
}


def _play_one(variant: str, seed: int, options: Mapping[str, object] | None = None) -> int:
    """Play one seeded random game in the engine and the model; return its out-of-turn plays.
    With `options`, the table's round-flow options override the preset's, as each says."""
    rnd = random.Random(seed)
    rules = build_rules(variant, {**PURE_ROUNDS, **(options or {})})
    players = 3 if rules.deal_all_cards else rnd.choice([2, 3, 4])
    hands = _hands(rnd, players, rnd.choice([6, 8, 11]))
    state, _ = new_game(rules, players, hands=hands, first_game=False, leader=0)
    model = Model.of_preset(variant, rules, list(hands))
    if options is not None:
        values = rules.option_values()
        model.out_of_turn = out_of_turn_bombs(
            str(values["chop_table"]),
            str(values["long_pairs_chop"]),
            bool(values["out_of_turn_chops"]),
        )
        model.last_on_two = values["finish_on_two"] == "ranks_last"
        model.last_on_four = values["finish_on_four_of_a_kind"] == "ranks_last"
        model.lockout = bool(values["pass_lockout"])
    out_of_turn = 0
    while not state.over:
        moves: list[Move] = []
        for seat in range(players):
            engine = _engine_moves(state, seat)
            for move in legal_moves(state, seat):
                assert model.legal(move), (seed, "the engine allows", move)
            if not model.places[seat]:  # every play the model allows, the engine lists
                for combo in movegen.combination_list(model.hands[seat], rules):
                    move = play(seat, tuple(cards_of(combo.cards)))
                    if model.legal(move):
                        assert (False, tuple(sorted(move.cards))) in engine, (seed, move)
            moves += legal_moves(state, seat)
        others = [m for m in moves if m.seat != state.to_act]
        twos = [m for m in moves if any(c >= 48 for c in m.cards)]  # put 2s up to be chopped
        if others and rnd.random() < 0.7:
            move = rnd.choice(others)
        elif twos and rnd.random() < 0.5:
            move = rnd.choice(twos)
        else:
            move = rnd.choice(moves)
        out_of_turn += move.seat != state.to_act
        state, _ = apply(state, move)
        model.apply(move)
        assert state.over == model.over, (seed, move)
        assert list(state.places) == model.places, (seed, move)
        if not state.over:
            assert state.to_act == model.to_act, (seed, move)
            assert state.table == model.table, (seed, move)
            assert state.passed == sum(1 << s for s in model.passed), (seed, move)  # qua tay
    return out_of_turn


@pytest.mark.parametrize("variant", sorted(OUT_OF_TURN))
def test_round_flow_agrees_with_the_rule_book_model(variant: str) -> None:
    out_of_turn = sum(_play_one(variant, seed) for seed in range(200))
    if OUT_OF_TURN[variant]:
        assert out_of_turn > 0  # the deals do exercise out-of-turn chops


#: The options that bear on the round flow (§4-§6) and on who may play what, each drawn at
#: every documented value (issue #38).
ROUND_OPTIONS = (
    "chop_table",
    "long_pairs_chop",
    "out_of_turn_chops",
    "suited_straight_chops",
    "pass_lockout",
    "finish_on_two",
    "finish_on_four_of_a_kind",
    "consecutive_pairs",
    "consecutive_triples",
    "same_colour_pairs",
    "single_suit_straights",
    "follow_suit",
    "pair_of_twos_beats_pair_of_twos",
    "deal_all_cards",
)
ROUND_TABLES = 90


def test_round_flow_agrees_with_the_rule_book_model_under_random_option_combinations() -> None:
    """Random tables: a preset, each round-flow option overridden at a documented value with a
    probability (and one value of one option in turn), one game each."""
    rnd = random.Random(38)
    cells = [
        (name, value)
        for name in ROUND_OPTIONS
        for value in (
            ("true", "false")
            if OPTIONS_BY_NAME[name].type is OptionType.BOOL
            else tuple(str(c) for c in OPTIONS_BY_NAME[name].choices)
        )
    ]
    drawn: set[tuple[str, str]] = set()
    out_of_turn = 0
    for index in range(ROUND_TABLES):
        variant = rnd.choice(sorted(OUT_OF_TURN))
        options = {
            name: rnd.choice([v for n, v in cells if n == name])
            for name in ROUND_OPTIONS
            if rnd.random() < 0.3
        }
        name, value = cells[index % len(cells)]
        options[name] = value
        options = mend_following(variant, options, keep=name)
        drawn |= set(options.items())
        out_of_turn += _play_one(variant, index, options)
    assert not set(cells) - drawn, f"never drawn: {sorted(set(cells) - drawn)}"
    assert out_of_turn > 0
