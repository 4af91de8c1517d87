"""`tienlen`: the command-line tool of the Tiến Lên engine service (no grpcurl needed).

    tienlen rules [PRESET]          the presets, the rule options and their defaults
    tienlen deal --seed 7           a deal, every hand shown
    tienlen watch --seed 7          bots play a whole game, told move by move, then settled
    tienlen play --seat 0           you play one seat against bots (moves read from stdin)
    tienlen replay game.tlr         a record file played again by the service, move by move

``watch`` and ``play`` take ``--save FILE``: the game's record (docs/RECORDS.md) is written
there, to be replayed with ``tienlen replay FILE``.

Common flags: ``--address`` (default 127.0.0.1:50051), ``--preset``, ``--players``,
``--seed``, ``--option NAME=VALUE``, ``--bots greedy,montecarlo`` (the service's bots, one per
seat, repeated around the table), ``--color auto|always|never``.

Bad input (an unknown preset or bot, bad card text, a service that can't be reached) is one
line on stderr and exit status 1 (2 for bad arguments); never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from tienlen_client.cli.narrate import Narrator
from tienlen_client.cli.person import HELP, LeftTheTable, Person
from tienlen_client.cli.replay import RecordRefused, Replayer, read_match
from tienlen_client.cli.style import Style, wants_color
from tienlen_client.cli.table import Table, parse_options, seat_bots
from tienlen_client.client import TienLenClient
from tienlen_client.errors import TienLenError, Unavailable
from tienlen_client.models import Game
from tienlen_client.rules import Rules

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_BOTS = "greedy,montecarlo"
TERMINAL_DELAY = 0.6
"""Seconds between bot moves on a terminal (``watch``): a pace a person can follow."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line (the subcommands' parsers are of this class
    too: add_subparsers makes them so)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    from tienlen_client import __version__

    common = _Parser(add_help=False)
    common.add_argument(
        "--address",
        default=DEFAULT_ADDRESS,
        help=f"the service, host:port or a target URI (default {DEFAULT_ADDRESS})",
    )
    common.add_argument("--timeout", type=float, default=10.0, help="seconds per call (default 10)")
    common.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colours: auto (on a terminal, unless NO_COLOR is set), always, never",
    )
    game = _Parser(add_help=False)
    game.add_argument("--preset", default="southern", help="the rule preset (default southern)")
    game.add_argument(
        "--players", type=int, default=None, help="seats at the table (default: the preset's)"
    )
    game.add_argument(
        "--seed", type=int, default=None, help="the deal: same seed, same cards (default: random)"
    )
    game.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option overriding the preset (repeatable; `tienlen rules` lists them)",
    )
    save = _Parser(add_help=False)
    save.add_argument(
        "--save",
        metavar="FILE",
        default=None,
        help="write the game's record there (docs/RECORDS.md; replay it: tienlen replay FILE)",
    )
    bots = _Parser(add_help=False)
    bots.add_argument(
        "--bots",
        default=DEFAULT_BOTS,
        help=f"the service's bots by seat, comma-separated, repeated around the table "
        f"(default {DEFAULT_BOTS}; `tienlen rules` lists them)",
    )

    parser = _Parser(
        prog="tienlen",
        description="Deal, watch and play Tiến Lên against a running engine service.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    rules = commands.add_parser(
        "rules", parents=[common], help="the presets, the rule options and their defaults"
    )
    rules.add_argument("preset", nargs="?", help="one preset: every option's value under it")
    commands.add_parser("deal", parents=[common, game], help="a deal, every hand shown")
    watch = commands.add_parser(
        "watch", parents=[common, game, bots, save], help="bots play a whole game, move by move"
    )
    watch.add_argument(
        "--delay",
        type=float,
        default=None,
        help=f"seconds between moves (default {TERMINAL_DELAY} on a terminal, else 0)",
    )
    play = commands.add_parser(
        "play", parents=[common, game, bots, save], help="play one seat against bots (stdin)"
    )
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    replay = commands.add_parser(
        "replay",
        parents=[common],
        help="a record file played again by the service, move by move, then its settlement",
    )
    replay.add_argument("file", help="a record (.tlr, docs/RECORDS.md): one game or a match")
    replay.add_argument(
        "--delay",
        type=float,
        default=None,
        help=f"seconds between moves (default {TERMINAL_DELAY} on a terminal, else 0)",
    )
    replay.add_argument(
        "--step", action="store_true", help="on a terminal, wait for Enter between moves"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit status (0 ok, 1 refused or unreachable, 2 bad arguments)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error (already printed)
        return done.code if isinstance(done.code, int) else 1
    style = Style(color=wants_color(args.color, sys.stdout))
    # A saved record needs the dealt hands: the client asks each seat's view at the deal.
    record_hands = getattr(args, "save", None) is not None
    try:
        with TienLenClient(args.address, timeout=args.timeout, record_hands=record_hands) as client:
            return COMMANDS[args.command](client, args, style)
    except Unavailable as exc:
        print(
            f"tienlen: no answer from the service at {args.address} ({exc.message}); "
            "is it running? (make run)",
            file=sys.stderr,
        )
    except TienLenError as exc:
        print(f"tienlen: {exc.message} ({exc.reason or exc.code.name})", file=sys.stderr)
    except (LeftTheTable, RecordRefused) as stopped:
        print(f"tienlen: {stopped}", file=sys.stderr)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:  # `tienlen rules | head`
        sys.stderr.close()
        return 0
    except OSError as exc:  # --save to a file that can't be written
        print(f"tienlen: {exc}", file=sys.stderr)
    return 1


# --- commands --------------------------------------------------------------------------------


def rules_command(client: TienLenClient, args: argparse.Namespace, style: Style) -> int:
    """``tienlen rules``: every preset and option; with a preset, its value of each option."""
    rules = client.describe_rules()
    out = (
        rules_lines(rules, style)
        if args.preset is None
        else preset_lines(rules, args.preset, style)
    )
    print("\n".join(out))
    return 0


def rules_lines(rules: Rules, style: Style) -> list[str]:
    """The presets, the bots, then every option with its type, default and allowed values."""
    width = max(len(v.name) for v in rules.variants)
    out = [style.paint("Presets", "bold") + " (tienlen rules PRESET shows one)"]
    out += [f"  {v.name:<{width}}  {v.description}" for v in rules.variants]
    out += ["", style.paint("Bots", "bold") + f" (--bots): {', '.join(rules.bots)}", ""]
    out.append(
        style.paint("Options", "bold") + " (--option NAME=VALUE; default: the southern value)"
    )
    out += _option_rows(rules, {o.name: o.default for o in rules.options}, set(), style)
    return out


def preset_lines(rules: Rules, name: str, style: Style) -> list[str]:
    """One preset: its description and every option's value under it (* differs from the
    southern default)."""
    variant = rules.variant(name)
    out = [style.paint(variant.name, "bold") + f" — {variant.description}", ""]
    out.append(style.paint("Options", "bold") + " (* differs from southern)")
    out += _option_rows(rules, variant.values, set(variant.overrides), style)
    return out


def _option_rows(rules: Rules, values: dict[str, str], marked: set[str], style: Style) -> list[str]:
    width = max(len(o.name) for o in rules.options)
    rows = []
    for option in rules.options:
        mark = "*" if option.name in marked else " "
        value = values.get(option.name, option.default)
        shown = style.paint(f"{value:<14}", "yellow" if option.name in marked else "bold")
        rows.append(f" {mark}{option.name:<{width}}  {shown} {option.allowed}")
        rows.append(style.paint(f"   {'':<{width}}  {option.description}", "dim"))
    return rows


def deal_command(client: TienLenClient, args: argparse.Namespace, style: Style) -> int:
    """``tienlen deal``: a (seeded) deal, every seat's hand."""
    table = _table(client, args, style)
    game = table.deal()
    table.names = [f"seat {seat}" for seat in range(game.players)]
    table.say(style.paint(table.heading(game), "bold"))
    narrator = Narrator(table.names, style)
    table.say(*narrator.lines(game.events))
    for seat in range(game.players):
        hand = client.view(game, seat).hand
        table.say(f"  seat {seat} ({len(hand):2d}): {style.cards(hand)}")
    return 0


def watch_command(client: TienLenClient, args: argparse.Namespace, style: Style) -> int:
    """``tienlen watch``: bots play one whole game, told move by move, then settled."""
    rules = client.describe_rules()
    rules.variant(args.preset)  # an unknown preset, in words, before dealing
    table = _table(client, args, style)
    if args.delay is not None:
        table.delay = max(0.0, args.delay)
    elif sys.stdout.isatty():
        table.delay = TERMINAL_DELAY
    game = table.deal()
    bots = seat_bots(args.bots, game.players, rules)
    table.names = list(bots)
    table.say(style.paint(table.heading(game), "bold"))
    table.say("  " + ", ".join(f"seat {seat}: {bot}" for seat, bot in enumerate(bots)), "")
    game = table.play_out(game, bots, None)
    _save(client, game, table, args.save)
    return 0


def play_command(client: TienLenClient, args: argparse.Namespace, style: Style) -> int:
    """``tienlen play``: one seat is yours (moves from stdin), the others are bots."""
    rules = client.describe_rules()
    rules.variant(args.preset)
    table = _table(client, args, style)
    game = table.deal()
    if not 0 <= args.seat < game.players:
        print(
            f"tienlen: --seat {args.seat}: the seats are 0 to {game.players - 1}",
            file=sys.stderr,
        )
        return 2
    bots: list[str | None] = list(seat_bots(args.bots, game.players, rules))
    bots[args.seat] = None
    table.names = [bot or "you" for bot in bots]
    table.say(style.paint(table.heading(game), "bold") + f" — you are seat {args.seat}")
    table.say("  " + ", ".join(f"seat {s}: {name}" for s, name in enumerate(table.names)))
    person = Person(client, sys.stdin, sys.stdout, style)
    table.say(f"  moves: {HELP}", "")
    try:
        table.play_out(game, bots, person)
    finally:  # a person who leaves mid-game still gets the record so far ("unfinished")
        _save(client, table.game or game, table, args.save)
    return 0


def replay_command(client: TienLenClient, args: argparse.Namespace, style: Style) -> int:
    """``tienlen replay FILE``: the record checked by the service (ReplayGame) and drawn move by
    move as ``watch`` draws a game; a refused record is one line naming the move, status 1."""
    match = read_match(args.file)
    replayer = Replayer(client, sys.stdout, style, step=args.step)
    if args.delay is not None:
        replayer.delay = max(0.0, args.delay)
    elif sys.stdout.isatty() and not args.step:
        replayer.delay = TERMINAL_DELAY
    replayer.replay_match(match, args.file)
    return 0


def _save(client: TienLenClient, game: Game, table: Table, path: str | None) -> None:
    """Write `game`'s record (text form) to `path`, if one was given."""
    if path is None:
        return
    text = client.record(game, table.names).to_text()
    Path(path).write_text(text, encoding="utf-8")
    table.say("", f"record saved to {path} (tienlen replay {path})")


def _table(client: TienLenClient, args: argparse.Namespace, style: Style) -> Table:
    return Table(
        client=client,
        out=sys.stdout,
        style=style,
        variant=args.preset,
        players=args.players,
        seed=args.seed,
        options=parse_options(args.option),
    )


COMMANDS = {
    "rules": rules_command,
    "deal": deal_command,
    "watch": watch_command,
    "play": play_command,
    "replay": replay_command,
}
