r"""Self-play simulator (*đánh thử*): bots play many games, the engine's invariants are checked at
every step, and the results are summed up.

    python -m tools.simulate --games 10000 --bots greedy,random,random,random \\
        --variant southern --seed 1 [--option stake=50] [--via-service 127.0.0.1:50051]

Games are chained into matches (`--match-length`, RULES §9: the previous winner leads, a game
after an instant win is a first game again), so later-game rules (*cướp cái*) are exercised too.
Everything is reproducible from `--seed`. Out of turn, every seat holding a chop it may play
out of turn (*chặt không cần vòng*) or a steal (*cướp cái*) is asked after each play, in turn
order from the player who made it.

The engine's invariants (`tienlen_rules.invariants`) are checked at every step: every card is in
exactly one place (hands are disjoint and hands ∪ played = dealt, each play came from its
player's hand); exactly one seat is to act, holding cards and a legal move, unless the game is
over (then places are 1..n); the settlement's nets are its transfers' sums and are zero-sum
unless a non-zero-sum option is on. A broken invariant (or an engine error) stops the run and
writes a JSON file with the seed, the deal and the move list; `--replay FILE` plays it again.

With `--records DIR` every game is also written to DIR as a game record (docs/RECORDS.md), one
file per match (`match-<seed>-<index>.tlr`, its games one after the other), which
`TienLenClient.replay` or the ReplayGame RPC check (needs `tienlen_client`).

With `--via-service ADDRESS` every game is also played through the gRPC client
(`tienlen_client`) with the same deal and moves, and the service's answers (who acts, cards
left, the settlement) must agree with the in-process engine at every step.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import tienlen_rules as engine
from tienlen_rules import (
    Bot,
    ChopSettled,
    Event,
    GameStarted,
    GameState,
    IllegalMove,
    InstantWin,
    InvariantError,
    Match,
    Move,
    Played,
    PlayerFinished,
    PlayersFrozen,
    RuleSet,
    Settlement,
    SetupError,
    build_rules,
    check_cards,
    check_settlement,
    check_turn,
    chop_class,
    format_cards,
    make_bot,
    observe,
    parse_cards,
    parse_set,
    pass_turn,
    play,
    settle,
)

Z95 = 1.959963984540054


# --------------------------------------------------------------------------- tables


class Table(Protocol):
    """Where games are played: the in-process engine, or the service mirrored by the engine."""

    def start(self, state: GameState, leader: int) -> None:
        """A game was dealt in-process (led by `leader`, -1: none); deal the same one."""

    def apply(self, move: Move, state: GameState) -> None:
        """A move was applied in-process (giving `state`); apply it too and compare."""


class LocalTable:
    """Nothing more to do: the in-process engine is the table."""

    def start(self, state: GameState, leader: int) -> None:
        """Nothing to deal."""

    def apply(self, move: Move, state: GameState) -> None:
        """Nothing to apply."""


class ServiceTable:
    """The service, through `tienlen_client`, kept in step with the in-process engine."""

    def __init__(self, address: str, variant: str, options: dict[str, str]) -> None:
        from tienlen_client import TienLenClient  # optional dependency: only for --via-service

        self.client = TienLenClient(address)
        self.variant = variant
        self.options = options
        self.game: Any = None

    def start(self, state: GameState, leader: int) -> None:
        """Deal the engine's deal explicitly on the service, with the same leader (a drawn
        first leader, đếm lá, must be the engine's draw)."""
        hands = [format_cards(h) for h in state.dealt]
        if self.game is None or state.match.game_number == 1:
            self.game = self.client.new_game(
                self.variant,
                state.players,
                hands=hands,
                options=self.options,
                first_game=state.first_game,
                leader=leader if leader >= 0 else None,
                dealer=state.match.dealer,
            )
        else:
            self.game = self.client.next_game(self.game, hands=hands)
        self._compare(state)

    def apply(self, move: Move, state: GameState) -> None:
        """Send the move; the service must reach the same state."""
        if move.is_pass:
            self.game = self.client.pass_turn(self.game, move.seat)
        else:
            self.game = self.client.play(
                self.game, move.seat, format_cards(sum(1 << c for c in move.cards))
            )
        self._compare(state)

    def _compare(self, state: GameState) -> None:
        g = self.game
        to_act = None if state.over else state.to_act
        left = tuple(s.cards_left for s in g.view.seats)
        if (
            g.to_act != to_act
            or g.finished != state.over
            or left != tuple(h.bit_count() for h in state.hands)
        ):
            raise InvariantError(
                f"service disagrees: to_act {g.to_act}, finished {g.finished}, cards {left}"
            )
        if state.over and (g.settlement is None or tuple(g.settlement.net) != settle(state).net):
            raise InvariantError(
                f"service settlement {g.settlement} differs from {settle(state).net}"
            )


# --------------------------------------------------------------------------- playing


@dataclass
class GameRecord:
    """Enough to replay a game: its start, who led it, and every move."""

    start: GameState
    leader: int = -1
    moves: list[Move] = field(default_factory=list)


@dataclass
class Tally:
    """Results summed over the run."""

    seats: int
    games: int = 0
    moves: int = 0
    wins: list[int] = field(default_factory=list)
    net: list[int] = field(default_factory=list)
    places: list[int] = field(default_factory=list)
    special: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.wins = [0] * self.seats
        self.net = [0] * self.seats
        self.places = [0] * self.seats


def play_game(
    state: GameState, bots: Sequence[Bot], rng: random.Random, table: Table, record: GameRecord
) -> tuple[GameState, list[Event]]:
    """Play one dealt game to the end, checking invariants after every move."""
    check_cards(state, None, ())
    table.start(state, record.leader)
    events: list[Event] = []
    targets = out_of_turn_targets(state.rules)
    fresh = True  # the table changed (or the game began): others may interject
    while True:
        plays, can_pass = check_turn(state)
        if state.over:
            return state, events
        move = None
        if fresh and (
            state.steal_open or (state.table is not None and chop_class(state.table) in targets)
        ):
            move = _interjection(state, bots, rng)
        if move is None:
            seat = state.to_act
            move = bots[seat].choose(observe(state, seat, plays, can_pass), rng)
        record.moves.append(move)
        before = state
        state, step = engine.apply(state, move)
        check_cards(state, before, step)
        table.apply(move, state)
        events += step
        fresh = not move.is_pass


def out_of_turn_targets(rules: RuleSet) -> frozenset[str]:
    """The chop classes some bomb may chop out of turn (*chặt không cần vòng*)."""
    found: set[str] = set()
    for bomb in rules.out_of_turn:
        found |= rules.chop_targets.get(bomb, frozenset())
    return frozenset(found)


def _interjection(state: GameState, bots: Sequence[Bot], rng: random.Random) -> Move | None:
    """Offer out-of-turn chops and steals, in turn order from the last player. A seat that let
    the chance go is asked again after the next play only."""
    n = state.players
    start = state.table_seat if state.table_seat >= 0 else state.to_act
    for step in range(1, n + 1):
        seat = (start + step) % n
        if seat == state.to_act or state.places[seat]:
            continue
        plays, _ = engine.legal_plays(state, seat)
        if plays:
            move = bots[seat].choose(observe(state, seat, plays), rng)
            if not move.is_pass:
                return move
    return None


def count_special(tally: Tally, events: Sequence[Event], settlement: Settlement) -> None:
    """Count the rare cases a run should exercise."""
    c = tally.special
    for e in events:
        if isinstance(e, Played):
            c["chops"] += e.chop
            c["out-of-turn chops"] += e.chop and e.out_of_turn
            c["lead steals (cướp cái)"] += e.steal
        elif isinstance(e, ChopSettled):
            c["stacked chops (chặt chồng)"] += e.links >= 2
            c["chops voided on a last card"] += e.amount == 0
        elif isinstance(e, PlayersFrozen):
            c["frozen players (cóng)"] += len(e.seats)
        elif isinstance(e, InstantWin):
            c[f"instant wins (tới trắng): {e.pattern}"] += 1
        elif isinstance(e, PlayerFinished):
            c["ranked last for the finishing play"] += e.ranked_last
    c["rotten cards (thối), parts"] += len(settlement.rotten)
    for t in settlement.transfers:
        c[f"transfers: {t.reason.value.lower()}"] += 1
    c["games not zero-sum"] += not settlement.zero_sum


@dataclass(frozen=True)
class Config:
    """One simulation run."""

    games: int
    bots: tuple[str, ...]
    variant: str
    options: dict[str, str]
    seed: int
    match_length: int
    dump_dir: Path
    progress: bool
    records_dir: Path | None = None


def run(config: Config, table: Table, out: Callable[[str], None] = print) -> Tally:
    """Play the run; on a broken invariant, dump the failing game and re-raise."""
    rules = build_rules(config.variant, config.options)
    bots = [make_bot(name) for name in config.bots]
    tally = Tally(len(bots))
    progress = Progress(config.games, enabled=config.progress)
    match_index = 0
    while tally.games < config.games:
        _play_match(config, rules, bots, table, tally, match_index, progress)
        match_index += 1
    progress.done()
    out(report(config, tally, progress.elapsed()))
    return tally


def _play_match(
    config: Config,
    rules: RuleSet,
    bots: list[Bot],
    table: Table,
    tally: Tally,
    index: int,
    progress: Progress,
) -> None:
    seed = config.seed * 1_000_003 + index
    rng = random.Random(seed)  # noqa: S311 - reproducible self-play, not cryptography
    state, dealt = engine.new_game(rules, len(bots), seed=seed)
    for number in range(min(config.match_length, config.games - tally.games)):
        if number:
            try:
                state, dealt = engine.next_game(state)
            except SetupError:  # a bankroll match ended (Northern option)
                return
        leader = next((e.leader for e in dealt if isinstance(e, GameStarted)), state.to_act)
        record = GameRecord(state, leader)
        try:
            state, events = play_game(state, bots, rng, table, record)
            settlement = settle(state)
            check_settlement(state, settlement)
        except (InvariantError, IllegalMove, SetupError, AssertionError) as exc:
            path = dump_failure(config, record, exc, index)
            raise InvariantError(f"{exc} — replay with --replay {path}") from exc
        _tally_game(tally, state, [*dealt, *events], settlement)
        if config.records_dir is not None:
            write_record(config.records_dir / f"match-{config.seed}-{index}.tlr", record, state)
        progress.tick()


def _tally_game(
    tally: Tally, state: GameState, events: list[Event], settlement: Settlement
) -> None:
    tally.games += 1
    tally.moves += state.move_count
    for seat, place in enumerate(state.places):
        tally.wins[seat] += place == 1
        tally.places[seat] += place
        tally.net[seat] += settlement.net[seat]
    count_special(tally, events, settlement)


# --------------------------------------------------------------------------- game records


def game_record(record: GameRecord, end: GameState) -> Any:
    """The `tienlen_client.GameRecord` (docs/RECORDS.md) of a game played here: its deal, its
    moves and, once `end` is over, its settlement."""
    from tienlen_client.models import Transfer
    from tienlen_client.record import GameRecord as TextRecord
    from tienlen_client.record import RecordedMove, RecordResult

    start = record.start
    result = None
    if end.over:
        settlement = settle(end)
        result = RecordResult(
            settlement.places,
            tuple(
                Transfer(t.payer, t.payee, t.amount, t.reason.value, _texts(t.cards))
                for t in settlement.transfers
            ),
            settlement.net,
        )
    return TextRecord(
        variant=start.rules.variant,
        players=start.players,
        dealer=start.match.dealer,
        leader=record.leader,
        first_game=start.first_game,
        game_number=start.match.game_number,
        match_totals=start.match.totals,
        hands=tuple(_texts(h) for h in start.dealt),
        moves=tuple(
            RecordedMove(m.seat, () if m.is_pass else _texts(sum(1 << c for c in m.cards)))
            for m in record.moves
        ),
        result=result,
        options=tuple(sorted(dict(start.rules.overrides).items())),
    )


def _texts(mask: int) -> tuple[str, ...]:
    return tuple(format_cards(mask).split())


def write_record(path: Path, record: GameRecord, end: GameState) -> None:
    """Append the game's record to the match's file (a new file at a match's first game)."""
    text = game_record(record, end).to_text()
    path.parent.mkdir(parents=True, exist_ok=True)
    first = record.start.match.game_number == 1
    with path.open("w" if first else "a", encoding="utf-8") as out:
        out.write(text if first else "\n" + text)


# --------------------------------------------------------------------------- failures and replay


def dump_failure(
    config: Config, record: GameRecord, error: BaseException, match_index: int
) -> Path:
    """Write the failing game as JSON (seed, deal, moves) and return its path."""
    start = record.start
    data = {
        "error": f"{type(error).__name__}: {error}",
        "seed": config.seed,
        "match_index": match_index,
        "game_number": start.match.game_number,
        "variant": config.variant,
        "options": config.options,
        "bots": list(config.bots),
        "players": start.players,
        "hands": [format_cards(h) for h in start.dealt],
        "first_game": start.first_game,
        "leader": record.leader,
        "dealer": start.match.dealer,
        "totals": list(start.match.totals),
        "moves": [
            {"seat": m.seat, "pass": True}
            if m.is_pass
            else {"seat": m.seat, "cards": format_cards(sum(1 << c for c in m.cards))}
            for m in record.moves
        ],
    }
    config.dump_dir.mkdir(parents=True, exist_ok=True)
    path = (
        config.dump_dir
        / f"tienlen-failure-seed{config.seed}-match{match_index}-game{start.match.game_number}.json"
    )
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def replay(path: Path, out: Callable[[str], None] = print) -> bool:
    """Play a dumped game again, checking every step; True when it now runs clean."""
    data = json.loads(path.read_text(encoding="utf-8"))
    rules = build_rules(data["variant"], data["options"])
    hands = [parse_set(h) for h in data["hands"]]
    match = Match(data["game_number"], tuple(data["totals"]), -1, data["dealer"])
    first = data["first_game"]
    state, _ = engine.new_game(
        rules,
        data["players"],
        hands=hands,
        first_game=first,
        leader=data["leader"] if data["leader"] >= 0 else None,  # the game's own leader
        dealer=data["dealer"],
        match=match,
    )
    try:
        check_cards(state, None, ())
        for i, m in enumerate(data["moves"]):
            check_turn(state)
            move = (
                pass_turn(m["seat"]) if m.get("pass") else play(m["seat"], parse_cards(m["cards"]))
            )
            before = state
            state, events = engine.apply(state, move)
            check_cards(state, before, events)
            out(f"{i:4d} seat {move.seat}: {'pass' if move.is_pass else m['cards']}")
        if state.over:
            check_settlement(state, settle(state))
    except (InvariantError, IllegalMove, AssertionError) as exc:
        out(f"broken: {type(exc).__name__}: {exc}")
        return False
    out("replayed clean" + ("" if state.over else " (the game was cut short by the failure)"))
    return True


# --------------------------------------------------------------------------- reporting


class Progress:
    """A progress line on stderr: redrawn in place on a terminal, a line per 10% otherwise."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self.total = total
        self.count = 0
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.started = time.perf_counter()
        self.cpu_started = time.process_time()
        self.shown = 0.0
        self.decile = 0

    def elapsed(self) -> tuple[float, float]:
        """Wall-clock and CPU seconds since the start."""
        return time.perf_counter() - self.started, time.process_time() - self.cpu_started

    def tick(self) -> None:
        """One more game."""
        self.count += 1
        if not self.enabled:
            return
        wall, _ = self.elapsed()
        decile = 10 * self.count // self.total
        if self.tty and (wall - self.shown > 0.25 or self.count == self.total):
            self.shown = wall
            sys.stderr.write("\r" + self._line(wall))
        elif not self.tty and decile > self.decile:
            self.decile = decile
            sys.stderr.write(self._line(wall) + "\n")
        sys.stderr.flush()

    def _line(self, wall: float) -> str:
        rate = self.count / wall if wall else 0.0
        eta = (self.total - self.count) / rate if rate else 0.0
        filled = 30 * self.count // self.total
        return f"[{'#' * filled}{'.' * (30 - filled)}] {self.count}/{self.total} games  {rate:.0f}/s  ETA {eta:.0f}s "

    def done(self) -> None:
        """End the progress line."""
        if self.enabled and self.tty:
            sys.stderr.write("\n")


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The Wilson score 95% confidence interval of a proportion."""
    if not trials:
        return 0.0, 1.0
    p = successes / trials
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def report(config: Config, tally: Tally, seconds: tuple[float, float]) -> str:
    """The summary: win rates with 95% intervals, nets, places, length, special cases."""
    n = tally.games
    lines = [
        (
            f"{n} games, variant {config.variant}{' ' + str(config.options) if config.options else ''}, "
            f"seed {config.seed}, {len(config.bots)} players, matches of {config.match_length}"
        ),
        f"{'seat':<5}{'bot':<28}{'win rate':>9}  {'95% CI':<15}{'avg net':>9}{'avg place':>10}",
    ]
    for seat, name in enumerate(config.bots):
        lo, hi = wilson(tally.wins[seat], n)
        lines.append(
            f"{seat:<5}{name:<28}{tally.wins[seat] / n:>9.3f}  [{lo:.3f}, {hi:.3f}]"
            f"{tally.net[seat] / n:>9.1f}{tally.places[seat] / n:>10.2f}"
        )
    lines += _by_bot(config, tally)
    lines.append(f"average game length: {tally.moves / n:.1f} moves")
    wall, cpu = seconds
    lines.append(
        f"{n / max(wall, 1e-9):.0f} games/s wall ({wall:.1f} s), {n / max(cpu, 1e-9):.0f} games/s per CPU second ({cpu:.1f} s)"
    )
    lines.append("special cases:")
    lines += [f"  {name:<56}{count:>8}" for name, count in sorted(tally.special.items()) if count]
    return "\n".join(lines)


def _by_bot(config: Config, tally: Tally) -> list[str]:
    names = sorted(set(config.bots))
    if len(names) == len(config.bots):
        return []
    lines = ["by bot (all its seats together):"]
    for name in names:
        seats = [s for s, b in enumerate(config.bots) if b == name]
        wins = sum(tally.wins[s] for s in seats)
        trials = tally.games * len(seats)
        lo, hi = wilson(wins, trials)
        net = sum(tally.net[s] for s in seats) / trials
        lines.append(f"  {name:<31}{wins / trials:>9.3f}  [{lo:.3f}, {hi:.3f}]{net:>9.1f}")
    return lines


# --------------------------------------------------------------------------- command line


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.simulate", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    parser.add_argument(
        "--bots",
        default="greedy,random,random,random",
        help="one bot per seat, comma separated; e.g. montecarlo:samples=16:max_candidates=4",
    )
    parser.add_argument("--variant", default="southern", help="rule preset (default southern)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="rule option override, repeatable",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="base seed: deals and bot choices (default 1)"
    )
    parser.add_argument("--match-length", type=int, default=10, help="games per match (default 10)")
    parser.add_argument(
        "--via-service",
        metavar="ADDRESS",
        help="also play every game through the service at ADDRESS",
    )
    parser.add_argument(
        "--dump-dir", type=Path, default=Path(), help="where a failing game is written (default .)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    parser.add_argument(
        "--records",
        type=Path,
        metavar="DIR",
        help="write every game's record (docs/RECORDS.md) to DIR, one file per match",
    )
    parser.add_argument(
        "--replay", type=Path, metavar="FILE", help="replay a dumped failing game and exit"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the simulator; exit status 1 on a broken invariant."""
    args = parse_args(argv)
    if args.replay:
        return 0 if replay(args.replay) else 1
    options = dict(o.split("=", 1) for o in args.option)
    bots = tuple(b.strip() for b in args.bots.split(","))
    config = Config(
        args.games,
        bots,
        args.variant,
        options,
        args.seed,
        max(1, args.match_length),
        args.dump_dir,
        not args.no_progress,
        args.records,
    )
    table: Table = (
        ServiceTable(args.via_service, args.variant, options) if args.via_service else LocalTable()
    )
    try:
        run(config, table)
    except SetupError as exc:
        sys.stderr.write(f"simulate: {exc.message} ({exc.field or 'rules'})\n")
        return 2
    except InvariantError as exc:
        sys.stderr.write(f"\ninvariant broken: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
