"""The layers hold at run time too, and where import-linter can't look.

The static side (who may import whom among the packages) is `make lint-imports`
(.importlinter). Here: what a bare `import tienlen_rules` pulls in, in a fresh interpreter (so
that nothing loaded by the test session itself can hide an import), and the engine imports of
the bench and the scripts, which are not packages.
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent


def _modules_loaded_by(statement: str) -> set[str]:
    probe = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def _loaded(loaded: set[str], top: str) -> bool:
    return any(m == top or m.startswith(top + ".") for m in loaded)


def test_the_engine_loads_without_grpc_protobuf_or_the_service() -> None:
    loaded = _modules_loaded_by("import tienlen_rules")
    assert "tienlen_rules.game" in loaded  # the probe saw the engine load
    for top in ("grpc", "google.protobuf", "tienlen.v1", "tienlen_service", "tienlen_client"):
        assert not _loaded(loaded, top), top


def test_the_probe_sees_protobuf_when_the_codec_loads_it() -> None:
    # The counter-check: the same probe does see protobuf come in with the service's codec.
    loaded = _modules_loaded_by("import tienlen_service.codec")
    assert _loaded(loaded, "google.protobuf")
    assert _loaded(loaded, "tienlen_rules")


def _engine_submodule_imports(path: Path) -> list[str]:
    """The imports in `path` that reach behind the engine's public face: `tienlen_rules.x`,
    or a submodule taken from the package (`from tienlen_rules import game`)."""
    submodules = {m.name for m in pkgutil.iter_modules([str(ROOT / "tienlen_rules")])}
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("tienlen_rules.")]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("tienlen_rules."):
                found.append(node.module)
            elif node.module == "tienlen_rules":
                found += [f"tienlen_rules.{a.name}" for a in node.names if a.name in submodules]
    return [f"{path.relative_to(ROOT)}: {name}" for name in found]


# The bot research the bench measures (docs/BOTS.md, issue #40): each extends the expert's own
# search (its deals, its decision, its playout, the previous expert's copy of it), which no
# public face offers. They may look behind it; the harness that runs them (bench/bots.py) and
# every other script may not.
BOT_RESEARCH: Final = frozenset(
    {
        "evaluation.py",
        "expert_census.py",
        "previous_expert.py",
        "reading.py",
        "research_bots.py",
        "train_value.py",
    }
)


def test_the_bench_and_the_scripts_use_only_the_engines_public_face() -> None:
    # They are not packages, so import-linter's facade contract can't see them; the tests may
    # look behind the face (and do: the counter-check that this finder finds such imports).
    scripts = [*(ROOT / "bench").glob("*.py"), *(ROOT / "scripts").glob("*.py")]
    assert scripts
    research = [p for p in scripts if p.parent.name == "bench" and p.name in BOT_RESEARCH]
    assert sorted(p.name for p in research) == sorted(BOT_RESEARCH)  # no stale exemption
    assert [
        hit for path in scripts if path not in research for hit in _engine_submodule_imports(path)
    ] == []
    assert _engine_submodule_imports(
        ROOT / "tests" / "engine" / "properties" / "test_invariants.py"
    )


MOST_LINES = 500


def test_no_module_of_the_engine_the_service_or_the_python_client_is_over_500_lines() -> None:
    # One concept per module: a module past this size holds two, and should be split by them.
    root = Path(__file__).resolve().parent.parent
    sizes = {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for package in ("tienlen_rules", "tienlen_service", "clients/python/tienlen_client")
        for path in (root / package).rglob("*.py")
    }
    assert sizes, "no modules found"
    too_long = {name: n for name, n in sizes.items() if n > MOST_LINES}
    assert not too_long, f"modules over {MOST_LINES} lines: {too_long}"


#: The engine's rule questions a layer above it must not ask for itself: whether a play beats or
#: chops the table, which plays a hand or a seat has. The service asks `legal_listing`,
#: `validate`, `chops` and `apply` instead (docs/ARCHITECTURE.md: the servicer decides no rule).
RULE_QUESTIONS = frozenset(
    {
        "Beat",
        "beat",
        "is_out_of_turn_chop",
        "has_beat",
        "plays_beating",
        "combination_list",
        "legal_plays",
        "legal_moves",
    }
)


def _engine_names_used(path: Path) -> set[str]:
    """The engine names a module imports from `tienlen_rules` or reads off it (`engine.x`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "tienlen_rules"
    }
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tienlen_rules":
            used |= {alias.name for alias in node.names}
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            used.add(node.attr)
    return used


def test_the_service_asks_the_engine_no_rule_question_of_its_own() -> None:
    service = sorted((ROOT / "tienlen_service").rglob("*.py"))
    asked = {
        str(path.relative_to(ROOT)): sorted(_engine_names_used(path) & RULE_QUESTIONS)
        for path in service
    }
    assert {path: names for path, names in asked.items() if names} == {}
    # The counter-check: the scan does see the servicer's questions to the engine.
    assert {"legal_listing", "chops", "validate"} <= _engine_names_used(
        ROOT / "tienlen_service" / "servicer.py"
    )
