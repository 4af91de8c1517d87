"""The research bots `bench/bots.py` measures beside the engine's (docs/BOTS.md, issue #40):
the previous expert, the cheating ceiling, the expert on deals read from the game's passes, the
expert cutting its playouts with a learned evaluation, and the expert keeping its margin on
listed deals. They extend the expert's own search (its deals, its decision, its playout), so
they reach behind the engine's public face, as the rest of the bench does not
(tests/test_layers.py names these modules)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from evaluation import LearnedLeafExpert
from previous_expert import PreviousExpertBot
from reading import Passes, merged, round_passes, weighted_deal

from tienlen_rules import Bot, GameState, Move, Observation, make_bot
from tienlen_rules.bots.deals import deal_count, enumerated_deals
from tienlen_rules.bots.expert import ENUMERATE_DEALS, ExpertBot, Search
from tienlen_rules.combinations import Combination
from tools.simulate import LocalTable


class TruthTable(LocalTable):
    """The in-process table, remembering the true state for the cheating expert, and every
    seat's passes of the game for the reading one."""

    def __init__(self) -> None:
        self.state: GameState | None = None
        self.passes = Passes.none(4)

    def start(self, state: GameState, leader: int) -> None:  # noqa: ARG002 - the table's API
        """The deal."""
        self.state = state
        self.passes = Passes.none(state.players)

    def apply(self, move: Move, state: GameState) -> None:
        """The state after each move."""
        before = self.state
        if (
            before is not None
            and move.is_pass
            and move.seat == before.to_act
            and before.table is not None
        ):
            self.passes = self.passes.add(move.seat, before.table, before.rules)
        self.state = state


@dataclass(frozen=True, slots=True)
class CheatingExpert(ExpertBot):
    """The expert searching the true deal, once (the cheating ceiling)."""

    name: str = "cheat"
    table: TruthTable = field(default_factory=TruthTable, compare=False, repr=False)

    def deals(self, obs: Observation, rng: random.Random) -> Iterator[GameState]:  # noqa: ARG002
        """The true deal, once: the search's means are then exact."""
        truth = self.table.state
        assert truth is not None
        assert truth.move_count == obs.public.move_count
        yield truth


@dataclass(frozen=True, slots=True)
class ReadingExpert(ExpertBot):
    """The expert on deals weighted by every pass of the game (`inference.weighted_deal`)."""

    name: str = "reading"
    tries: int = 8
    surprise: float = 0.3
    history: int = 1
    """1: every pass of the game (the table's record); 0: this round's only (the state's)."""
    table: TruthTable = field(default_factory=TruthTable, compare=False, repr=False)

    def deals(self, obs: Observation, rng: random.Random) -> Iterator[GameState]:
        """Weighted deals (or every deal, when few)."""
        if deal_count(obs) <= ENUMERATE_DEALS:
            yield from enumerated_deals(obs)
            return
        passes = round_passes(obs)
        if self.history:
            passes = merged(passes, self.table.passes, obs.rules)
        while True:
            yield weighted_deal(obs, passes, rng, self.tries, self.surprise)[0]


@dataclass(frozen=True, slots=True)
class MarginedExpert(ExpertBot):
    """The expert asking `min_gain` of a challenger even when every deal was listed."""

    name: str = "exactmargin"

    def _decide(
        self,
        candidates: list[Combination | None],
        values: list[list[float]],
        nodes: int,
        *,
        exact: bool,
    ) -> Search:
        found = ExpertBot._decide(self, candidates, values, nodes, exact=exact)  # noqa: SLF001
        if exact and found.chosen != found.base and found.gain < self.min_gain:
            return found._replace(chosen=found.base, gain=0.0)
        return found


def bench_bot(spec: str, table: TruthTable) -> Bot:
    """A bot from its spec: the engine's (`make_bot`), or `previous`/`cheat` (see above)."""
    name, _, params = spec.partition(":")
    if name not in {"previous", "cheat", "reading", "learned", "exactmargin"}:
        return make_bot(spec)
    kwargs: dict[str, int | float] = {}
    for item in filter(None, params.split(":")):
        key, _, value = item.partition("=")
        kwargs[key] = float(value) if "." in value else int(value)
    if name == "previous":
        return PreviousExpertBot(**kwargs)  # type: ignore[arg-type]
    if name == "exactmargin":
        return MarginedExpert(**kwargs)  # type: ignore[arg-type]
    if name == "learned":
        return LearnedLeafExpert(**kwargs)  # type: ignore[arg-type]
    if name == "reading":
        return ReadingExpert(table=table, **kwargs)  # type: ignore[arg-type]
    return CheatingExpert(table=table, **kwargs)  # type: ignore[arg-type]
