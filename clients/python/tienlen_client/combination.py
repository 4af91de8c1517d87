"""`Combination`: a classified play, as the service names it (``"PAIR"``, ``"STRAIGHT"``, ...)."""

from __future__ import annotations

from dataclasses import dataclass

from tienlen.v1 import moves_pb2
from tienlen_client.cards import texts


@dataclass(frozen=True, slots=True)
class Combination:
    """A classified play: `type` (``"SINGLE"``, ``"PAIR"``, ..., ``"CONSECUTIVE_PAIRS"``), its
    `length`, its `cards` weakest first."""

    type: str
    length: int
    cards: tuple[str, ...]

    @classmethod
    def from_pb(cls, msg: moves_pb2.Combination) -> Combination:
        """From the wire message."""
        name = moves_pb2.CombinationType.Name(msg.type)
        return cls(name.removeprefix("COMBINATION_TYPE_"), msg.length, texts(msg.cards))

    def __str__(self) -> str:
        """``"3S 4S 5S (straight)"``."""
        return f"{' '.join(self.cards)} ({self.label})"

    @property
    def label(self) -> str:
        """The type in words: ``"pair"``, ``"3 consecutive pairs"``, ``"straight of 5"``."""
        words = self.type.lower().replace("_", " ")
        if self.type in {"CONSECUTIVE_PAIRS", "CONSECUTIVE_TRIPLES"}:
            return f"{self.length} {words}"
        if self.type == "STRAIGHT":
            return f"straight of {self.length}"
        return words
