"""Four simple bots play one full game of Tiến Lên through the Python client (`make demo`).

Start the service first (`make run`, in another terminal), then:

    python scripts/demo.py [--address 127.0.0.1:50051] [--seed 7] [--variant southern]

Each bot asks the service for its legal moves and plays the one whose highest card is the
weakest (more cards first on a tie), passing only when it can't play: the service decides
every rule. The script prints each move, then the settlement.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tienlen_client import TienLenClient, TienLenError

if TYPE_CHECKING:
    from tienlen_client import Game, LegalMove

RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUITS = ("S", "C", "D", "H")
MAX_MOVES = 1000
"""A game of four takes well under 200 moves; the bound only stops a runaway loop."""


def strength(card: str) -> int:
    """Order of a card in Tiến Lên: rank 3 (lowest) .. 2 (highest), then suit ♠ ♣ ♦ ♥."""
    rank, suit = card[:-1].upper(), card[-1].upper()
    rank = "10" if rank == "T" else rank
    return RANKS.index(rank) * 4 + SUITS.index(suit)


def choose(moves: list[LegalMove]) -> LegalMove:
    """The simple bot: the play with the weakest top card, more cards first; else pass."""
    plays = [m for m in moves if not m.is_pass]
    if not plays:
        return next(m for m in moves if m.is_pass)
    return min(plays, key=lambda m: (max(strength(c) for c in m.cards), -len(m.cards)))


def describe(move: LegalMove) -> str:
    """`3S 4S 5S (straight)` or `passes`."""
    if move.is_pass:
        return "passes"
    kind = move.combination.type.lower().replace("_", " ") if move.combination else "play"
    return f"plays {' '.join(move.cards)}  ({kind}{' — chop!' if move.chop else ''})"


def play_one_game(client: TienLenClient, game: Game) -> Game:
    """Let the bots move until the game is over; print every move."""
    for number in range(1, MAX_MOVES + 1):
        if game.finished or game.to_act is None:
            return game
        seat = game.to_act
        move = choose(client.legal_moves(game, seat))
        left = len(client.view(game, seat).hand)
        held = f"{left:2d} card{'s' if left != 1 else ' '}"
        print(f"{number:3d}. seat {seat} ({held}) {describe(move)}")
        game = client.pass_turn(game, seat) if move.is_pass else client.play(game, seat, move.cards)
    raise RuntimeError(f"no end after {MAX_MOVES} moves")


def print_settlement(game: Game) -> None:
    """Places, each seat's net, and every transfer with its reason."""
    settlement = game.settlement
    if settlement is None:
        print("the game ended without a settlement")
        return
    print("\nSettlement")
    # places[seat] is the seat's finishing place, 1 = first out.
    order = sorted(range(len(settlement.places)), key=lambda seat: settlement.places[seat])
    print("  finishing order: " + ", ".join(f"seat {seat}" for seat in order))
    for transfer in settlement.transfers:
        payer = "nobody" if transfer.payer < 0 else f"seat {transfer.payer}"
        cards = f" [{' '.join(transfer.cards)}]" if transfer.cards else ""
        print(
            f"  {payer} pays seat {transfer.payee} {transfer.amount:>4} "
            f"for {transfer.reason.lower()}{cards}"
        )
    for part in settlement.rotten:
        print(
            f"  rotten: seat {part.seat} held {part.label} {' '.join(part.cards)} ({part.amount})"
        )
    print("  net: " + ", ".join(f"seat {s}: {n:+d}" for s, n in enumerate(settlement.net)))
    print(f"  zero-sum: {'yes' if settlement.zero_sum else 'no'}")


def main(argv: list[str] | None = None) -> int:
    """Deal, play to the end, settle; exit 1 if the service can't be reached."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--address", default="127.0.0.1:50051", help="the service (host:port)")
    parser.add_argument("--seed", type=int, default=7, help="the deal (same seed, same game)")
    parser.add_argument("--variant", default="southern", help="a rule preset (DescribeRules)")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)

    try:
        with TienLenClient(args.address, timeout=5.0) as client:
            game = client.new_game(variant=args.variant, players=args.players, seed=args.seed)
            print(
                f"{args.variant}, {args.players} players, seed {args.seed}: seat {game.to_act} leads\n"
            )
            game = play_one_game(client, game)
            print_settlement(game)
    except TienLenError as exc:
        print(f"demo: {exc} (is the service running? `make run`)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
