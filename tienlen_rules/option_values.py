"""An option's value as text and back: what a host writes (``true``, ``3/2``, ``southern``) and
what the engine keeps (bool, int, Fraction, choice). `options` declares the options; this module
only reads and writes their values.
"""

from __future__ import annotations

from fractions import Fraction

from tienlen_rules.options import FOLLOWS_LAST_PLACE, LAST_PLACE, OptionSpec, OptionType


def parse_option_value(spec: OptionSpec, raw: object) -> bool | int | Fraction | str:
    """Read one option value from a Python value or its text form; ValueError says why not."""
    if spec.type is OptionType.BOOL:
        return _parse_bool(raw)
    if spec.type is OptionType.INT:
        value = _parse_int(raw)
        if not spec.minimum <= value <= spec.maximum:
            raise ValueError(f"must be between {spec.minimum} and {spec.maximum}")
        return value
    if spec.type is OptionType.STAKES:
        if spec.name in FOLLOWS_LAST_PLACE and str(raw).strip().upper() == LAST_PLACE:
            return LAST_PLACE
        return _parse_stakes(raw)
    text = str(raw).strip()
    matched = [c for c in spec.choices if c.lower() == text.lower()]
    if not matched:
        raise ValueError(f"must be one of {', '.join(spec.choices)}")
    return matched[0]


def format_option_value(value: bool | int | Fraction | str) -> str:
    """The canonical text form of an option value (``true``, ``3/2``, ``southern``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_bool(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in {"true", "1", "yes", "on"}:
        return True
    if text in {"false", "0", "no", "off"}:
        return False
    raise ValueError("must be true or false")


def _parse_int(raw: object) -> int:
    if isinstance(raw, bool):
        raise ValueError("must be a whole number")
    if isinstance(raw, int):
        return raw
    text = str(raw).strip()
    if not text.lstrip("-").isdigit():
        raise ValueError("must be a whole number")
    return int(text)


def _parse_stakes(raw: object) -> Fraction:
    if isinstance(raw, bool):
        raise ValueError("must be a number of stakes such as 2, 1.5 or 3/2")
    try:
        value = Fraction(raw) if isinstance(raw, int | Fraction) else Fraction(str(raw).strip())
    except (ValueError, ZeroDivisionError):
        raise ValueError("must be a number of stakes such as 2, 1.5 or 3/2") from None
    if value < 0:
        raise ValueError("must not be negative")
    return value
