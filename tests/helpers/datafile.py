"""Engine cases kept as plain-text data files beside their topic's tests (like chess perft files).

A data file is read without Python: `#` starts a comment (to the end of the line), blank lines
separate blocks, every other line is data. Each case keeps its file name, line number and text,
and becomes a `pytest.param` whose id is ``relations.txt:12: southern | 4S | 3H | beats``, so a
failure says which line to read.

Two formats live here (tests/README.md describes them):

- relations (``*.txt``), one case a line: ``preset [option=value ...] | play | table | answer``,
  the answer ``beats``, ``chops`` or ``no`` (optionally ``no REASON``, an `IllegalMove` reason
  such as ``no DOES_NOT_BEAT``).
- leads (``*.perft``), one case a block: ``hand <cards>``, ``rules <preset> [option=value ...]``,
  then ``leads <type>/<length> <count>`` for every group of distinct plays the hand can lead,
  and ``total <count>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tienlen_rules import (
    Beat,
    Combination,
    Kind,
    Reason,
    RuleSet,
    beat,
    build_rules,
    classify,
    parse_set,
)


@dataclass(frozen=True)
class Line:
    """One data line of a file: where it is and what it says (comment stripped)."""

    path: Path
    number: int
    text: str

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.number}: {self.text}"


def data_lines(path: Path) -> list[Line]:
    """Every data line of a file; blank lines are kept as empty `Line`s to separate blocks."""
    found: list[Line] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = " ".join(raw.partition("#")[0].split())
        if text or not raw.strip():
            found.append(Line(path, number, text))
    return found


def option_value(text: str) -> object:
    """``true``/``false`` are booleans, digits an integer, anything else the choice's string."""
    if text in {"true", "false"}:
        return text == "true"
    if text.lstrip("-").isdigit():
        return int(text)
    return text


def rule_set(words: list[str], line: Line) -> RuleSet:
    """``preset [option=value ...]`` as a rule set."""
    if not words:
        pytest.fail(f"{line.where}: no preset")
    options: dict[str, object] = {}
    for word in words[1:]:
        name, equals, value = word.partition("=")
        if not equals:
            pytest.fail(f"{line.where}: {word!r} is not option=value")
        options[name] = option_value(value)
    return build_rules(words[0], options)


def combination(text: str, rules: RuleSet, line: Line) -> Combination:
    """The combination these cards form (the case's premise: they form one)."""
    found = classify(parse_set(text), rules)
    if found is None:
        pytest.fail(f"{line.where}: {text!r} is no combination under {rules.variant}")
    return found


# --------------------------------------------------------------------------- relation files


@dataclass(frozen=True)
class Relation:
    """One relation case: under `rules`, `play` on `table` gives `answer` (and `reason`)."""

    line: Line
    rules: str
    play: str
    table: str
    answer: str
    reason: str | None

    def check(self) -> None:
        """Compare the engine's `beat` with the line."""
        ruleset = rule_set(self.rules.split(), self.line)
        new = combination(self.play, ruleset, self.line)
        old = combination(self.table, ruleset, self.line)
        result, why = beat(new, old, ruleset)
        assert result == Beat[self.answer.upper()], self.line.where
        if self.reason is not None:
            assert why == Reason[self.reason], self.line.where


ANSWERS = {"beats", "chops", "no"}


def relation(line: Line) -> Relation:
    """Parse ``preset [option=value ...] | play | table | answer [REASON]``."""
    fields = [f.strip() for f in line.text.split("|")]
    if len(fields) != 4:  # the four fields of the format
        pytest.fail(f"{line.where}: want 'rules | play | table | answer'")
    rules, play, table, answer_text = fields
    answer, _, reason = answer_text.partition(" ")
    if answer not in ANSWERS or (reason and answer != "no"):
        pytest.fail(f"{line.where}: the answer is beats, chops, no or 'no REASON'")
    return Relation(line, rules, play, table, answer, reason or None)


def relation_cases(path: Path) -> list[object]:
    """The relation cases of a file as pytest params, one per data line."""
    return [pytest.param(relation(line), id=line.where) for line in data_lines(path) if line.text]


def options_set(path: Path) -> set[str]:
    """The names of the options the relation lines of a file set (``name=value`` words)."""
    return {
        word.partition("=")[0]
        for line in data_lines(path)
        if line.text
        for word in line.text.partition("|")[0].split()[1:]
    }


# --------------------------------------------------------------------------- leads, perft files


@dataclass(frozen=True)
class Leads:
    """One leads block: the hand, the rules, and the expected count of each group."""

    line: Line
    hand: int
    rules: RuleSet
    counts: dict[tuple[Kind, int], int]
    total: int


def group(text: str, line: Line) -> tuple[Kind, int]:
    """``straight/3`` as (Kind.STRAIGHT, 3)."""
    kind, _, length = text.partition("/")
    try:
        return Kind[kind.upper()], int(length)
    except (KeyError, ValueError):
        pytest.fail(f"{line.where}: {text!r} is not <type>/<length>")


def leads_block(block: list[Line]) -> Leads:
    """Parse one block: ``hand``, ``rules``, ``leads <type>/<length> <count>``, ``total``."""
    first = block[0]
    hand: int | None = None
    ruleset: RuleSet | None = None
    counts: dict[tuple[Kind, int], int] = {}
    total: int | None = None
    for line in block:
        word, _, rest = line.text.partition(" ")
        if word == "hand":
            hand = parse_set(rest)
        elif word == "rules":
            ruleset = rule_set(rest.split(), line)
        elif word == "leads":
            key, _, count = rest.partition(" ")
            counts[group(key, line)] = int(count)
        elif word == "total":
            total = int(rest)
        else:
            pytest.fail(f"{line.where}: a block holds hand, rules, leads and total lines")
    if hand is None or ruleset is None or total is None:
        pytest.fail(f"{first.where}: a block needs a hand, a rules and a total line")
    return Leads(first, hand, ruleset, counts, total)


def leads_cases(path: Path) -> list[object]:
    """The leads blocks of a perft file as pytest params, one per block."""
    blocks: list[list[Line]] = [[]]
    for line in data_lines(path):
        if line.text:
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return [pytest.param(leads_block(block), id=block[0].where) for block in blocks if block]
