"""Print docs/PRESETS.md's table of rule presets side by side, from the option data itself.

`python scripts/presets_table.py` prints it; tests/test_readme.py checks docs/PRESETS.md holds the
current table, so the documentation can't drift from `tienlen_rules/options.py`.
"""

from __future__ import annotations

from tienlen_rules import OPTIONS, PRESET_DESCRIPTIONS, PRESETS, build_rules, format_option_value


def presets_table() -> str:
    """Markdown: one row per option that some preset changes, one column per preset."""
    names = list(PRESETS)
    values = {name: build_rules(name).option_values() for name in names}
    lines = [
        "| option | " + " | ".join(f"`{n}`" for n in names) + " |",
        "| --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for spec in OPTIONS:
        row = [format_option_value(values[n][spec.name]) for n in names]
        if len(set(row)) > 1:
            lines.append(f"| `{spec.name}` | " + " | ".join(row) + " |")
    return "\n".join(lines)


def presets_list() -> str:
    """Markdown: one line per preset with its description."""
    return "\n".join(f"- `{name}` — {PRESET_DESCRIPTIONS[name]}" for name in PRESETS)


def main() -> None:
    """Print the list and the table."""
    print(presets_list())
    print()
    print(presets_table())


if __name__ == "__main__":
    main()
