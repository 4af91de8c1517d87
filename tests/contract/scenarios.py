"""The golden conversations as scripts (see generate.py). Deals are explicit and written in card
notation; `must=` states what RULES.md says the answer must hold, derived by hand.

Amounts: the default stake is 100 chips; L (last pays first) = 2 stakes = 200.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from .golden import Script

SCENARIOS: dict[str, tuple[Callable[[Script], Any], str, tuple[str, ...]]] = {}


def scenario(
    name: str, title: str, *rules: str
) -> Callable[[Callable[[Script], Any]], Callable[[Script], Any]]:
    """Register a scenario under its file name."""

    def register(fn: Callable[[Script], Any]) -> Callable[[Script], Any]:
        SCENARIOS[name] = (fn, title, rules)
        return fn

    return register


def played(
    seat: int, kind: str, length: int, top: str, cards: str, left: int, **flags: bool
) -> dict[str, Any]:
    """The `played` event the rules predict."""
    return {
        "played": {
            "seat": seat,
            "combination": {
                "type": f"COMBINATION_TYPE_{kind}",
                "length": length,
                "top": {"$card": top},
                "cards": {"$cards": cards},
            },
            "chop": flags.get("chop", False),
            "outOfTurn": flags.get("out_of_turn", False),
            "steal": flags.get("steal", False),
            "cardsLeft": left,
        }
    }


def turn(seat: int) -> dict[str, Any]:
    return {"turnPassed": {"seat": seat}}


def passed(seat: int) -> dict[str, Any]:
    return {"passed": {"seat": seat}}


def transfer(payer: int, payee: int, amount: int, reason: str, cards: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {
        "payer": payer,
        "payee": payee,
        "amount": str(amount),
        "reason": f"TRANSFER_REASON_{reason}",
    }
    out["cards"] = {"$cards": cards} if cards else []
    return out


def settlement(
    net: list[int], places: list[int], transfers: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"net": [str(n) for n in net], "places": places}
    if transfers is not None:
        out["transfers"] = transfers
    out.update(extra)
    return out


def over(
    net: list[int], places: list[int], transfers: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    """The game ended with this settlement."""
    return {
        "game": {
            "finished": True,
            "toAct": None,
            "settlement": settlement(net, places, transfers, **extra),
        }
    }


def acts(seat: int, events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The game goes on with `seat` to act (and exactly these events, when given)."""
    game: dict[str, Any] = {"toAct": seat, "finished": False}
    if events is not None:
        game["events"] = events
    return {"game": game}


# ============================================================================================
# Every RPC on the Southern game


@scenario(
    "describe_rules",
    "DescribeRules lists the six presets (Southern first), their overrides and every rule option",
    "RULES §10",
    "service.proto DescribeRules",
)
def describe_rules(s: Script) -> None:
    s.call(
        "DescribeRules",
        {},
        note="Presets in order, southern first with no overrides; option names, types and defaults are part of the contract.",
        must={
            "variants": [
                {"name": "southern", "overrides": []},
                {"name": "northern"},
                {
                    "name": "hue",
                    "overrides": {"$contains": [{"name": "starting_card", "value": "3C"}]},
                },
                {"name": "da_nang"},
                {
                    "name": "dau",
                    "overrides": {"$contains": [{"name": "deal_all_cards", "value": "true"}]},
                },
                {
                    "name": "dem_la",
                    "overrides": {"$contains": [{"name": "scoring", "value": "card_count"}]},
                },
            ],
            "options": {
                "$contains": [
                    {"name": "stake", "type": "OPTION_TYPE_INT", "defaultValue": "100"},
                    {"name": "pass_lockout", "type": "OPTION_TYPE_BOOL", "defaultValue": "true"},
                    {
                        "name": "penalty_two_spades",
                        "type": "OPTION_TYPE_STAKES",
                        "defaultValue": "1/2",
                    },
                    {
                        "name": "chop_table",
                        "type": "OPTION_TYPE_CHOICE",
                        "defaultValue": "southern",
                    },
                ]
            },
        },
    )


@scenario(
    "southern_basics",
    "A short Southern game through every RPC: the ♠3 lead, beating, passing, a round won by a player who has gone out (hưởng sái), places and settlement, refusals once a seat has finished and once the game is over",
    "RULES §4",
    "RULES §8",
)
def southern_basics(s: Script) -> None:
    s.new_game(
        ["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"],
        note="Explicit deal, 4 players, Southern defaults: the holder of ♠3 (seat 0) leads and must include it.",
        must={
            "game": {
                "toAct": 0,
                "finished": False,
                "events": [
                    {
                        "gameStarted": {
                            "gameNumber": 1,
                            "leader": 0,
                            "mustInclude": {"$card": "3S"},
                            "firstGame": True,
                            "dealer": 0,
                        }
                    }
                ],
            }
        },
    )
    s.view(
        None,
        note="The spectator view: no seat, no hand. follow_rules: the values of the options a host following the table from the events needs (Southern: pass lockout, no stealing the lead).",
        must={
            "view": {
                "seat": None,
                "hand": [],
                "players": 4,
                "toAct": 0,
                "followRules": {"passLockout": True, "leadStealing": False},
            }
        },
    )
    s.view(
        0,
        note="Seat 0's own view holds its hand, weakest first.",
        must={"view": {"seat": 0, "hand": {"$cards": "3S 9H KS"}}},
    )
    s.validate(
        0,
        "3S",
        note="A legal lead: a single.",
        must={
            "legal": True,
            "combination": {"type": "COMBINATION_TYPE_SINGLE", "length": 1, "top": {"$card": "3S"}},
            "reason": "",
        },
    )
    s.validate(
        0,
        "9H",
        note="Not legal: the first lead must contain ♠3. ValidateMove answers, it does not refuse.",
        must={"legal": False, "reason": "MUST_INCLUDE_STARTING_CARD"},
    )
    s.legal(
        0,
        note="Seat 0 leads the first round: its only legal play contains ♠3, and it may not pass.",
        must={"totalSize": 1, "canPass": False},
    )
    s.play(0, "3S", must=acts(1, [played(0, "SINGLE", 1, "3S", "3S", 2), turn(1)]))
    s.play(1, "4C", must=acts(2))
    s.play(
        2,
        "5D",
        view="UPDATE_VIEW_BASIC",
        note="UPDATE_VIEW_BASIC: the same answer without the spectator view (for hosts that follow the table from the events).",
        must={"game": {"view": None, **acts(3)["game"]}},
    )
    s.play(3, "6H", must=acts(0))
    s.play(0, "9H", must=acts(1))
    s.play(1, "10D", must=acts(2))
    s.play(2, "JS", must=acts(3))
    s.play(3, "QC", must=acts(0))
    s.play(
        0,
        "KS",
        note="Seat 0 plays its last card: 1st place. Every seat has played a card, so nobody is frozen.",
        must=acts(
            1,
            [
                played(0, "SINGLE", 1, "KS", "KS", 0),
                {"playerFinished": {"seat": 0, "place": 1, "rankedLast": False}},
                turn(1),
            ],
        ),
    )
    s.play(0, "KS", note="A seat that has gone out takes no more turns.", error="SEAT_FINISHED")
    s.pass_(1, must=acts(2, [passed(1), turn(2)]))
    s.pass_(2, must=acts(3))
    s.pass_(
        3,
        note="Everyone else passed on seat 0's last card: seat 0 won the round but has gone out, so the next seat holding cards leads (hưởng sái).",
        must=acts(1, [passed(3), {"roundWon": {"seat": 0, "leader": 1}}, turn(1)]),
    )
    s.pass_(1, note="The leader of a round must play.", error="LEADER_CANNOT_PASS")
    s.play(
        1,
        "5S",
        must=acts(
            2,
            [
                played(1, "SINGLE", 1, "5S", "5S", 0),
                {"playerFinished": {"seat": 1, "place": 2, "rankedLast": False}},
                turn(2),
            ],
        ),
    )
    s.play(
        2,
        "6C",
        note="Seat 2 goes out 3rd; seat 3 is the only one left holding cards: last, and the game is over.",
        must=over(
            [200, 100, -100, -200],
            [1, 2, 3, 4],
            [transfer(3, 0, 200, "PLACE"), transfer(2, 1, 100, "PLACE")],
            zeroSum=True,
            rotten=[],
        ),
    )
    s.play(3, "7D", note="No move once the game is over.", error="GAME_OVER")
    s.validate(
        3,
        "7D",
        note="ValidateMove says so as an answer.",
        must={"legal": False, "reason": "GAME_OVER"},
    )
    s.legal(
        3,
        note="No legal moves once the game is over.",
        must={"moves": [], "totalSize": 0, "canPass": False},
    )
    s.view(
        3,
        note="The final view of the last seat: its card is still in its hand.",
        must={"view": {"finished": True, "toAct": None, "hand": {"$cards": "7D"}}},
    )


@scenario(
    "southern_refusals",
    "Every way the engine refuses a move in the Southern game (FAILED_PRECONDITION with the rule's reason) and the same questions asked through ValidateMove",
    "RULES §3",
    "RULES §4",
)
def southern_refusals(s: Script) -> None:
    s.new_game(
        ["3S 4S 5S 7C 8C", "3C 6D 9D 9S QH", "4D 6C 10H JH 2S", "5H 7H 8S KC KD"],
        must={"game": {"toAct": 0}},
    )
    s.play(2, "4D", note="Seat 0 is to act.", error="NOT_YOUR_TURN")
    s.play(0, "4S", error="MUST_INCLUDE_STARTING_CARD")
    s.play(0, "3S 3S", error="DUPLICATE_CARD")
    s.play(0, "3S 9D", note="9♦ is seat 1's.", error="CARD_NOT_IN_HAND")
    s.call(
        "ApplyMove",
        {
            "stateToken": {"$stateFrom": 1},
            "seat": 0,
            "seatToken": {"$seatToken": [1, 0]},
            "move": {"play": {}},
        },
        note="A play with no cards.",
        error="EMPTY_PLAY",
    )
    s.play(0, "3S 7C", error="NOT_A_COMBINATION")
    s.play(0, "7C 8C", note="Two cards of different ranks are no pair.", error="NOT_A_COMBINATION")
    s.pass_(0, error="LEADER_CANNOT_PASS")
    s.call(
        "ApplyMove",
        {
            "stateToken": {"$stateFrom": 1},
            "seat": 7,
            "seatToken": {"$seatToken": [1, 0]},
            "move": {"passTurn": {}},
        },
        note="There is no seat 7 at a table of 4.",
        error="INVALID_SEAT",
    )
    s.validate(
        0,
        "3S 4S 5S",
        must={
            "legal": True,
            "combination": {
                "type": "COMBINATION_TYPE_STRAIGHT",
                "length": 3,
                "top": {"$card": "5S"},
            },
            "chop": False,
        },
    )
    s.validate(2, "4D", must={"legal": False, "reason": "NOT_YOUR_TURN"})
    s.validate(0, None, must={"legal": False, "reason": "LEADER_CANNOT_PASS"})
    s.play(0, "3S", must=acts(1))
    s.play(1, "9S 9D", note="A pair can't follow a single.", error="WRONG_TYPE_OR_LENGTH")
    s.validate(
        1,
        None,
        note="Passing is legal while a play is on the table.",
        must={"legal": True, "reason": ""},
    )
    s.play(1, "6D", must=acts(2))
    s.play(2, "4D", note="4♦ is lower than 6♦.", error="DOES_NOT_BEAT")
    s.validate(2, "4D", must={"legal": False, "reason": "DOES_NOT_BEAT"})
    s.pass_(2, must=acts(3))
    s.play(3, "7H", must=acts(0))
    s.play(
        2,
        "10H",
        note="Seat 2 passed in this round (qua tay): locked out until a new round.",
        error="LOCKED_OUT_OF_ROUND",
    )
    s.validate(2, "10H", must={"legal": False, "reason": "LOCKED_OUT_OF_ROUND"})
    s.play(0, "8C", must=acts(1))
    s.pass_(1, must=acts(3, [passed(1), turn(3)]))
    s.pass_(3, must=acts(0, [passed(3), {"roundWon": {"seat": 0, "leader": 0}}, turn(0)]))
    s.play(
        0,
        "4S 5S",
        note="A new round: no starting card needed any more, but 4♠5♠ is still no combination.",
        error="NOT_A_COMBINATION",
    )
    s.play(0, "4S", note="Any single leads a new round.", must=acts(1))


# ============================================================================================
# Tokens, seat tokens and malformed requests


def _codec(deployment: str = "tienlen-contract", *, seal: bool, key: str | None = None) -> Any:
    """A token codec with the contract server's key (tests/contract/server.json), or `key`."""
    from tienlen_service.tokens import KeyRing, TokenCodec

    from .runner import server_args

    args = server_args()
    spec = key or args[args.index("--keys") + 1]
    return TokenCodec(KeyRing.from_spec(spec), seal=seal, deployment=deployment)


def _b64(raw: bytes) -> str:
    import base64

    return base64.b64encode(raw).decode("ascii")


@scenario(
    "state_tokens",
    "State tokens are opaque and tamper-proof: every malformed, altered, foreign or unsealed token is refused with INVALID_ARGUMENT and its TOKEN_* reason, by every RPC that takes one",
    "service.proto",
    "tienlen_service/tokens.py",
)
def state_tokens(s: Script) -> None:
    s.new_game(["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"], must={"game": {"toAct": 0}})
    spectator = {"stateToken": {"$stateFrom": 1}}
    s.call("GetView", spectator, note="The genuine token works.", must={"view": {"toAct": 0}})
    s.call(
        "GetView",
        {"stateToken": ""},
        note="An empty token.",
        error="TOKEN_MALFORMED",
        fields=["state_token"],
    )
    s.call(
        "GetView",
        {"stateToken": "AAAA"},
        note="Not a token of this service (unknown format version).",
        error="TOKEN_MALFORMED",
        fields=["state_token"],
    )
    s.call(
        "GetView",
        {"stateToken": "AQ=="},
        note="A truncated token.",
        error="TOKEN_MALFORMED",
        fields=["state_token"],
    )
    s.call(
        "GetView",
        {"stateToken": {"$stateFrom": 1, "$tamper": "flip-last-byte"}},
        note="One bit of the signature changed.",
        error="TOKEN_BAD_SIGNATURE",
        fields=["state_token"],
    )
    s.call(
        "GetView",
        {"stateToken": {"$stateFrom": 1, "$tamper": "drop-last-byte"}},
        note="The last byte cut off.",
        error="TOKEN_BAD_SIGNATURE",
        fields=["state_token"],
    )
    s.call(
        "GetView",
        {"stateToken": {"$stateFrom": 1, "$tamper": "flip-first-byte"}},
        note="The format version byte changed.",
        error="TOKEN_MALFORMED",
        fields=["state_token"],
    )
    retired = _codec(seal=False, key="retired-1:" + _b64(bytes(range(32)))).encode(b"a state")
    s.call(
        "GetView",
        {"stateToken": _b64(retired)},
        note="Signed by a key this server does not have (key id retired-1).",
        error="TOKEN_UNKNOWN_KEY",
        fields=["state_token"],
    )
    foreign = _codec("another-deployment", seal=False).encode(b"a state")
    s.call(
        "GetView",
        {"stateToken": _b64(foreign)},
        note="Signed with this server's key but by another deployment.",
        error="TOKEN_WRONG_DEPLOYMENT",
        fields=["state_token"],
    )
    unsealed = _codec(seal=False).encode(b"a state")
    s.call(
        "GetView",
        {"stateToken": _b64(unsealed)},
        note="A genuine but unsealed token: this server requires sealed ones.",
        error="TOKEN_UNSEALED_REQUIRED",
        fields=["state_token"],
    )
    garbage = _codec(seal=True).encode(b"\xff\xff not a game state")
    s.call(
        "GetView",
        {"stateToken": _b64(garbage)},
        note="Genuine, sealed, but holding no game this server can read.",
        error="TOKEN_MALFORMED",
        fields=["state_token"],
    )
    bad = {"$stateFrom": 1, "$tamper": "flip-last-byte"}
    play = {"play": {"cards": {"$cards": "3S"}}}
    s.call(
        "ApplyMove",
        {"stateToken": bad, "seat": 0, "seatToken": {"$seatToken": [1, 0]}, "move": play},
        error="TOKEN_BAD_SIGNATURE",
        fields=["state_token"],
    )
    s.call(
        "ValidateMove",
        {"stateToken": bad, "seat": 0, "seatToken": {"$seatToken": [1, 0]}, "move": play},
        error="TOKEN_BAD_SIGNATURE",
        fields=["state_token"],
    )
    s.call(
        "ListLegalMoves",
        {"stateToken": bad, "seat": 0, "seatToken": {"$seatToken": [1, 0]}},
        error="TOKEN_BAD_SIGNATURE",
        fields=["state_token"],
    )
    s.call("NextGame", {"stateToken": bad}, error="TOKEN_BAD_SIGNATURE", fields=["state_token"])
    # Only the host chooses a deal: a seeded or explicit deal without the deal key is refused.
    s.call(
        "NewGame",
        {"seed": "7"},
        error="DEAL_NOT_ALLOWED",
        code="PERMISSION_DENIED",
        fields=["deal_key"],
        note="A seeded deal without the host's deal key: refused (PERMISSION_DENIED).",
    )
    s.call(
        "SuggestMove",
        {"stateToken": bad, "seat": 0, "seatToken": {"$seatToken": [1, 0]}},
        error="TOKEN_BAD_SIGNATURE",
        fields=["state_token"],
    )
    s.play(
        0,
        "3S",
        note="The genuine token still works after all that: a refused call changes nothing.",
        must=acts(1),
    )


@scenario(
    "seat_tokens",
    "With seat tokens required, every call made for a seat must carry that seat's token from NewGame (PERMISSION_DENIED, SEAT_TOKEN_INVALID otherwise); spectator views need none; the tokens stay valid for the whole match",
    "service.proto",
)
def seat_tokens(s: Script) -> None:
    s.new_game(
        ["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"],
        must={"game": {"toAct": 0}, "seatTokens": {"$len": 4}},
    )
    s.new_game(
        ["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"],
        note="A second game with the same deal: its own seat tokens.",
    )
    s.game_step = s.state_step = 1
    state = {"$stateFrom": 1}
    play = {"play": {"cards": {"$cards": "3S"}}}
    s.call(
        "ApplyMove",
        {"stateToken": state, "seat": 0, "move": play},
        note="No seat token.",
        code="PERMISSION_DENIED",
        error="SEAT_TOKEN_INVALID",
    )
    s.call(
        "ApplyMove",
        {"stateToken": state, "seat": 0, "seatToken": {"$seatToken": [1, 1]}, "move": play},
        note="Seat 1's token used for seat 0.",
        code="PERMISSION_DENIED",
        error="SEAT_TOKEN_INVALID",
    )
    s.call(
        "ApplyMove",
        {"stateToken": state, "seat": 0, "seatToken": {"$seatToken": [2, 0]}, "move": play},
        note="Seat 0's token of another game.",
        code="PERMISSION_DENIED",
        error="SEAT_TOKEN_INVALID",
    )
    s.call(
        "ApplyMove",
        {"stateToken": state, "seat": 0, "seatToken": "not-a-seat-token", "move": play},
        note="Garbage.",
        code="PERMISSION_DENIED",
        error="SEAT_TOKEN_INVALID",
    )
    s.call(
        "ValidateMove",
        {"stateToken": state, "seat": 0, "seatToken": {"$seatToken": [1, 1]}, "move": play},
        code="PERMISSION_DENIED",
        error="SEAT_TOKEN_INVALID",
    )
    s.call(
        "ListLegalMoves",
        {"stateToken": state, "seat": 0, "seatToken": {"$seatToken": [1, 1]}},
        code="PERMISSION_DENIED",
        error="SEAT_TOKEN_INVALID",
    )
    s.call(
        "GetView",
        {"stateToken": state, "seat": 2, "seatToken": {"$seatToken": [1, 0]}},
        note="Seeing seat 2's hand needs seat 2's token.",
        code="PERMISSION_DENIED",
        error="SEAT_TOKEN_INVALID",
    )
    s.call(
        "GetView",
        {"stateToken": state, "seat": 2},
        code="PERMISSION_DENIED",
        error="SEAT_TOKEN_INVALID",
    )
    s.call(
        "SuggestMove",
        {"stateToken": state, "seat": 0, "seatToken": {"$seatToken": [1, 3]}},
        code="PERMISSION_DENIED",
        error="SEAT_TOKEN_INVALID",
    )
    s.view(
        2,
        note="With its own token, seat 2 sees its own hand and nobody else's.",
        must={"view": {"seat": 2, "hand": {"$cards": "5D 6C JS"}}},
    )
    s.view(
        None,
        note="The spectator view needs no seat token.",
        must={"view": {"seat": None, "hand": []}},
    )
    s.play(0, "3S", must=acts(1))
    for seat, card in (
        (1, "4C"),
        (2, "5D"),
        (3, "6H"),
        (0, "9H"),
        (1, "10D"),
        (2, "JS"),
        (3, "QC"),
        (0, "KS"),
    ):
        s.play(seat, card)
    s.pass_(1)
    s.pass_(2)
    s.pass_(3)
    s.play(1, "5S")
    s.play(2, "6C", must={"game": {"finished": True}})
    s.next_game(
        ["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"],
        note="The next game of the match: the same seat tokens stay valid.",
        must={"game": {"toAct": 0}},
    )
    s.view(
        0,
        note="Seat 0's token from the first game still opens seat 0's view.",
        must={"view": {"seat": 0, "gameNumber": 2}},
    )


@scenario(
    "bad_requests",
    "Malformed requests are refused with INVALID_ARGUMENT, a stable reason and a BadRequest naming the field: bad cards, an unset move, bad paging, unknown variants and options, impossible tables and deals; an oversized request is refused with RESOURCE_EXHAUSTED",
    "service.proto",
    "RULES §2",
    "RULES §8",
)
def bad_requests(s: Script) -> None:
    s.new_game(["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"], must={"game": {"toAct": 0}})

    def apply(move: dict[str, Any], **kw: Any) -> None:
        s.call(
            "ApplyMove",
            {
                "stateToken": {"$stateFrom": 1},
                "seat": 0,
                "seatToken": {"$seatToken": [1, 0]},
                "move": move,
            },
            **kw,
        )

    apply(
        {"play": {"cards": [{"rank": "RANK_THREE"}]}},
        note="A card without a suit.",
        error="INVALID_CARD",
    )
    apply(
        {"play": {"cards": [{"suit": "SUIT_SPADES"}]}},
        note="A card without a rank.",
        error="INVALID_CARD",
    )
    apply(
        {"play": {"cards": [{"rank": 99, "suit": "SUIT_SPADES"}]}},
        note="A rank number that does not exist.",
        error="INVALID_CARD",
    )
    apply({}, note="Neither play nor pass.", error="INVALID_ARGUMENT")
    seat0 = {"stateToken": {"$stateFrom": 1}, "seat": 0, "seatToken": {"$seatToken": [1, 0]}}
    s.call("ListLegalMoves", {**seat0, "pageSize": -1}, error="INVALID_ARGUMENT")
    s.call(
        "ListLegalMoves",
        {**seat0, "pageToken": "bm90LWEtdG9rZW4"},
        note="A page token not made for this listing.",
        error="INVALID_ARGUMENT",
    )
    s.call("ListLegalMoves", {**seat0, "filter": {"type": 99}}, error="INVALID_ARGUMENT")
    s.call("ListLegalMoves", {**seat0, "filter": {"length": -2}}, error="INVALID_ARGUMENT")
    hands = ["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"]
    s.new_game(hands, variant="western", error="UNKNOWN_VARIANT")
    s.new_game(hands, options={"jokers": "true"}, error="UNKNOWN_OPTION")
    s.new_game(hands, options={"stake": "lots"}, error="INVALID_OPTION_VALUE")
    s.new_game(hands, options={"pass_lockout": "maybe"}, error="INVALID_OPTION_VALUE")
    s.new_game(hands, options={"chop_table": "martian"}, error="INVALID_OPTION_VALUE")
    s.new_game(
        hands,
        options={"stake": "1"},
        note="½ stake for a black 2 of a 1-chip stake is half a chip.",
        error="FRACTIONAL_AMOUNT",
    )
    s.new_game(
        hands,
        options={"stake": "1000000000", "instant_win_stakes": "1000000000"},
        error="AMOUNT_TOO_LARGE",
    )
    s.new_game(hands, players=5, error="INVALID_PLAYER_COUNT")
    s.new_game(
        None,
        variant="dau",
        players=4,
        seed=1,
        note="Tiến lên Đấu is for exactly 3 players.",
        error="INVALID_PLAYER_COUNT",
    )
    s.new_game(hands, players=3, note="Four hands for three players.", error="INVALID_DEAL")
    s.new_game(
        ["3S 9H KS", "4C 10D 5S", "5D JS 3S", "6H QC 7D"],
        note="♠3 dealt twice.",
        error="INVALID_DEAL",
    )
    s.new_game(
        ["3S 9H KS 3S", "4C 10D 5S", "5D JS 6C", "6H QC 7D"],
        note="A card listed twice in one hand.",
        error="INVALID_DEAL",
    )
    s.new_game(
        ["3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S 3C", "4C", "5C", "6C"],
        note="14 cards in a hand.",
        error="INVALID_DEAL",
    )
    s.new_game(
        hands,
        dealer=4,
        note="A dealer who is not at the table: a malformed request, not an illegal move.",
        code="INVALID_ARGUMENT",
        error="INVALID_SEAT",
    )
    s.new_game(
        hands,
        first_game=False,
        note="A game that is not a first game needs its leader.",
        error="LEADER_REQUIRED",
    )
    s.new_game(
        ["2S 2C 2D 2H 3S", "4C 10D 5S", "5D JS 6C", "6H QC 7D"],
        options={"four_twos": "redeal"},
        note="Under the redeal rule, a hand of four 2s can't be dealt explicitly.",
        error="REDEAL_REQUIRED",
    )
    s.call(
        "GetView",
        {"stateToken": {"$zeroBytes": 20000}},
        note="A request over the server's 16 KiB limit is refused unread, naming the limit.",
        code="RESOURCE_EXHAUSTED",
        error="REQUEST_TOO_LARGE",
        fields=[],
    )


# ============================================================================================
# Southern special cases


@scenario(
    "southern_chop_chain",
    "Stacked chops (chặt chồng), the source-004 example: A plays a black 2, B chops it with 3 consecutive pairs, C chops B with a four of a kind; when the round ends B pays C the 2 (½ stake) plus the 3 pairs (1½): 200 chips, and nothing is paid by A",
    "RULES §5",
    "RULES §8",
)
def southern_chop_chain(s: Script) -> None:
    s.new_game(
        ["3S 2S 9C", "4S 4C 5S 5C 6S 6C 10D JD", "7S 7C 7D 7H KS 8D", "3C AC QD"],
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S")
    s.play(1, "10D")
    s.play(2, "KS")
    s.play(3, "AC")
    s.play(0, "2S", note="A (seat 0) plays a black 2.", must=acts(1))
    s.validate(
        1,
        "4S 4C 5S 5C 6S 6C",
        note="3 consecutive pairs chop a single 2.",
        must={
            "legal": True,
            "chop": True,
            "combination": {
                "type": "COMBINATION_TYPE_CONSECUTIVE_PAIRS",
                "length": 3,
                "top": {"$card": "6C"},
            },
        },
    )
    s.play(
        1,
        "4S 4C 5S 5C 6S 6C",
        note="B (seat 1) chops the 2.",
        must=acts(
            2, [played(1, "CONSECUTIVE_PAIRS", 3, "6C", "4S 4C 5S 5C 6S 6C", 1, chop=True), turn(2)]
        ),
    )
    s.play(
        2,
        "7S 7C 7D 7H",
        note="C (seat 2) chops B with a four of a kind: the chain goes on.",
        must=acts(3, [played(2, "FOUR_OF_A_KIND", 4, "7H", "7S 7C 7D 7H", 1, chop=True), turn(3)]),
    )
    s.pass_(3)
    s.pass_(0)
    s.pass_(
        1,
        note="Everyone passed: the chain ends and is settled at once — B pays C 2S (½) + 3 pairs (1½) = 2 stakes.",
        must=acts(
            2,
            [
                passed(1),
                {
                    "chopSettled": {
                        "payer": 1,
                        "payee": 2,
                        "amount": "200",
                        "cards": {"$cards": "4S 4C 5S 5C 6S 6C 2S"},
                        "links": 2,
                    }
                },
                {"roundWon": {"seat": 2, "leader": 2}},
                turn(2),
            ],
        ),
    )
    s.play(
        2,
        "8D",
        note="C goes out first.",
        must={
            "game": {
                "events": [
                    played(2, "SINGLE", 1, "8D", "8D", 0),
                    {"playerFinished": {"seat": 2, "place": 1, "rankedLast": False}},
                    turn(3),
                ]
            }
        },
    )
    s.play(3, "QD")
    s.pass_(0)
    s.pass_(1, must=acts(3, [passed(1), {"roundWon": {"seat": 3, "leader": 3}}, turn(3)]))
    s.play(
        3,
        "3C",
        must={
            "game": {
                "events": [
                    played(3, "SINGLE", 1, "3C", "3C", 0),
                    {"playerFinished": {"seat": 3, "place": 2, "rankedLast": False}},
                    turn(0),
                ]
            }
        },
    )
    s.play(
        0,
        "9C",
        note="Places: C 1st, seat 3 2nd, A 3rd, B last. B pays C 2 stakes (place) and the chain's 2 stakes; A pays seat 3 1 stake.",
        must=over(
            [-100, -400, 400, 100],
            [3, 4, 1, 2],
            [
                transfer(1, 2, 200, "CHOP", "4S 4C 5S 5C 6S 6C 2S"),
                transfer(1, 2, 200, "PLACE"),
                transfer(0, 3, 100, "PLACE"),
            ],
            zeroSum=True,
            rotten=[],
        ),
    )


@scenario(
    "southern_out_of_turn_chop",
    "4 consecutive pairs chop a 2 out of turn (không cần vòng), even from a seat that passed this round; play goes on from the chopper, and the chopped seat pays the red 2 (1 stake)",
    "RULES §5",
    "RULES §8",
)
def southern_out_of_turn_chop(s: Script) -> None:
    s.new_game(
        ["3S 2H 9C", "4S 4C 5S 5C 6S 6C 7S 7C 10D", "3D KS 8D", "3C AC QD"],
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S")
    s.pass_(1, note="Seat 1 passes: locked out of this round for ordinary plays.", must=acts(2))
    s.play(2, "KS")
    s.play(3, "AC")
    s.play(0, "2H", note="A red 2. Seat 1 is skipped (it passed): seat 2 is to act.", must=acts(2))
    s.play(
        1,
        "4S",
        note="An ordinary play from a locked-out seat is refused.",
        error="LOCKED_OUT_OF_ROUND",
    )
    s.legal(
        1,
        note="Seat 1's only legal move now is the out-of-turn chop.",
        must={"totalSize": 1, "canPass": False, "moves": [{"chop": True}]},
    )
    s.play(
        1,
        "4S 4C 5S 5C 6S 6C 7S 7C",
        note="Out of turn, after passing: 4 consecutive pairs chop the 2. Play continues from the chopper (seat 2 is next).",
        must=acts(
            2,
            [
                played(
                    1,
                    "CONSECUTIVE_PAIRS",
                    4,
                    "7C",
                    "4S 4C 5S 5C 6S 6C 7S 7C",
                    1,
                    chop=True,
                    out_of_turn=True,
                ),
                turn(2),
            ],
        ),
    )
    s.pass_(2)
    s.pass_(3)
    s.pass_(
        0,
        must=acts(
            1,
            [
                passed(0),
                {
                    "chopSettled": {
                        "payer": 0,
                        "payee": 1,
                        "amount": "100",
                        "cards": {"$cards": "2H"},
                        "links": 1,
                    }
                },
                {"roundWon": {"seat": 1, "leader": 1}},
                turn(1),
            ],
        ),
    )
    s.play(
        1,
        "10D",
        must={
            "game": {
                "events": [
                    played(1, "SINGLE", 1, "10D", "10D", 0),
                    {"playerFinished": {"seat": 1, "place": 1, "rankedLast": False}},
                    turn(2),
                ]
            }
        },
    )
    s.pass_(2)
    s.play(3, "QD")
    s.pass_(0, must=acts(3))
    s.play(3, "3C")
    s.play(
        0,
        "9C",
        must=over(
            [-200, 300, -200, 100],
            [3, 1, 4, 2],
            [
                transfer(0, 1, 100, "CHOP", "2H"),
                transfer(2, 1, 200, "PLACE"),
                transfer(0, 3, 100, "PLACE"),
            ],
            zeroSum=True,
            rotten=[],
        ),
    )


@scenario(
    "southern_chop_on_last_card",
    "A chop of a player's last card: the chain is settled with nobody paying (Southern), and the game goes on",
    "RULES §5",
)
def southern_chop_on_last_card(s: Script) -> None:
    s.new_game(["3S 2D", "4S 4C 5S 5C 6S 6C 10D KH", "JD 8D", "QC 9C"], must={"game": {"toAct": 0}})
    s.play(0, "3S")
    s.play(1, "10D")
    s.play(2, "JD")
    s.play(3, "QC")
    s.play(
        0,
        "2D",
        note="Seat 0 goes out with a red 2.",
        must=acts(
            1,
            [
                played(0, "SINGLE", 1, "2D", "2D", 0),
                {"playerFinished": {"seat": 0, "place": 1, "rankedLast": False}},
                turn(1),
            ],
        ),
    )
    s.play(
        1, "4S 4C 5S 5C 6S 6C", note="Seat 1 chops the 2 that was seat 0's last card.", must=acts(2)
    )
    s.pass_(2)
    s.pass_(
        3,
        note="The chain ends: its chopped play was the chopped player's last card, so nobody pays (payer -1, amount 0).",
        must=acts(
            1,
            [
                passed(3),
                {
                    "chopSettled": {
                        "payer": -1,
                        "payee": 1,
                        "amount": "0",
                        "cards": {"$cards": "2D"},
                        "links": 1,
                    }
                },
                {"roundWon": {"seat": 1, "leader": 1}},
                turn(1),
            ],
        ),
    )
    s.play(1, "KH")
    s.pass_(2)
    s.pass_(
        3, note="Seat 1 has gone out: the next seat holding cards leads (hưởng sái).", must=acts(2)
    )
    s.play(
        2,
        "8D",
        must=over(
            [200, 100, -100, -200],
            [1, 2, 3, 4],
            [transfer(3, 0, 200, "PLACE"), transfer(2, 1, 100, "PLACE")],
            zeroSum=True,
        ),
    )


@scenario(
    "southern_frozen",
    "Cóng (frozen): seats that have not played a card when the first player goes out take the last places and pay 2L; one frozen, two frozen, and all three frozen with đền bài (compensation by the seat that passed while only it could beat)",
    "RULES §7",
    "RULES §8",
)
def southern_frozen(s: Script) -> None:
    s.new_game(
        ["3S KH", "5C 9D", "6D 10H", "4S 7S 8C"], note="One frozen.", must={"game": {"toAct": 0}}
    )
    s.play(0, "3S")
    s.play(1, "5C")
    s.play(2, "6D")
    s.pass_(3, note="Seat 3 has still not played a card.")
    s.play(
        0,
        "KH",
        note="Seat 0 goes out: seat 3 never played, so it is frozen and takes last place.",
        must=acts(
            1,
            [
                played(0, "SINGLE", 1, "KH", "KH", 0),
                {"playerFinished": {"seat": 0, "place": 1, "rankedLast": False}},
                {"playersFrozen": {"seats": [3], "places": [4]}},
                turn(1),
            ],
        ),
    )
    s.play(3, "7S", note="A frozen seat takes no more turns.", error="SEAT_FINISHED")
    s.pass_(1)
    s.pass_(2, must=acts(1, [passed(2), {"roundWon": {"seat": 0, "leader": 1}}, turn(1)]))
    s.play(
        1,
        "9D",
        note="Seat 1 goes out 2nd; seat 2 is the only unfrozen seat left: 3rd. Seat 3 pays 2L = 4 stakes; 3rd pays 2nd as usual.",
        must=over(
            [400, 100, -100, -400],
            [1, 2, 3, 4],
            [transfer(3, 0, 400, "FROZEN"), transfer(2, 1, 100, "PLACE")],
            zeroSum=True,
            rotten=[],
        ),
    )

    s.new_game(
        ["3S KH", "5C 9D", "6D 10H", "4S 7S"], note="Two frozen.", must={"game": {"toAct": 0}}
    )
    s.play(0, "3S")
    s.play(1, "5C")
    s.pass_(2)
    s.pass_(3)
    s.play(
        0,
        "KH",
        note="Seats 2 and 3 never played: frozen, 3rd and 4th. Seat 1, left alone, takes 2nd and neither pays nor receives.",
        must={
            "game": {
                "events": [
                    played(0, "SINGLE", 1, "KH", "KH", 0),
                    {"playerFinished": {"seat": 0, "place": 1, "rankedLast": False}},
                    {"playersFrozen": {"seats": [2, 3], "places": [3, 4]}},
                    {"gameOver": {"places": [1, 2, 3, 4]}},
                ],
                **over(
                    [800, 0, -400, -400],
                    [1, 2, 3, 4],
                    [transfer(2, 0, 400, "FROZEN"), transfer(3, 0, 400, "FROZEN")],
                    zeroSum=True,
                )["game"],
            }
        },
    )

    s.new_game(
        ["3S 3C KH", "9D 9H 5C", "6D 10S JC", "4S 7S QD"],
        note="Three frozen, with compensation.",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S 3C")
    s.pass_(1, note="Seat 1 could beat the pair with 9♦9♥ and passes; nobody else can beat it.")
    s.pass_(2)
    s.pass_(3)
    s.play(
        0,
        "KH",
        note="All three opponents are frozen. Seat 1 passed while only it could beat: it pays everything the frozen seats owe (3 × 2L = 12 stakes); the others pay nothing.",
        must={
            "game": {
                "events": [
                    played(0, "SINGLE", 1, "KH", "KH", 0),
                    {"playerFinished": {"seat": 0, "place": 1, "rankedLast": False}},
                    {"playersFrozen": {"seats": [1, 2, 3], "places": [2, 3, 4]}},
                    {"gameOver": {"places": [1, 2, 3, 4]}},
                ],
                **over([1200, -1200, 0, 0], [1, 2, 3, 4])["game"],
            }
        },
    )
    s.next_game(
        ["3S 8H", "4C 9C", "5D 10D", "6H JH"],
        note="The compensating seat (1) leads the next game, which is not a first game: any lead.",
        must={
            "game": {
                "toAct": 1,
                "events": [
                    {"gameStarted": {"gameNumber": 2, "leader": 1, "firstGame": False, "dealer": 0}}
                ],
                "view": {
                    "seats": [
                        {"matchTotal": "1200"},
                        {"matchTotal": "-1200"},
                        {"matchTotal": "0"},
                        {"matchTotal": "0"},
                    ]
                },
            }
        },
    )


@scenario(
    "southern_rotten_cards",
    "Thối (rotten cards): the last player's 2s and bombs are paid to the player who finished just before them, split the way that pays most (four 7s + 3 pairs 4-5-6 = 3½ stakes beats 4 pairs 4-7 = 2½) plus the ♠2 (½)",
    "RULES §8",
)
def southern_rotten_cards(s: Script) -> None:
    s.new_game(
        ["3S 4D", "5D 6D", "8D 9H", "4S 4C 5S 5C 6S 6C 7S 7C 7D 7H 2S 10C 3C"],
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S")
    s.play(1, "5D")
    s.play(2, "8D")
    s.play(3, "10C")
    s.pass_(0)
    s.pass_(1)
    s.pass_(2, must=acts(3))
    s.play(3, "3C")
    s.play(0, "4D", must=acts(1))
    s.play(1, "6D")
    s.play(
        2,
        "9H",
        note="Seat 3 is left with 4♠4♣5♠5♣6♠6♣7♠7♣7♦7♥2♠: four 7s (2) + 3 pairs (1½) + ♠2 (½) = 4 stakes to seat 2 (3rd).",
        must=over(
            [200, 100, 300, -600],
            [1, 2, 3, 4],
            [
                transfer(3, 0, 200, "PLACE"),
                transfer(2, 1, 100, "PLACE"),
                transfer(3, 2, 150, "ROTTEN", "4S 4C 5S 5C 6S 6C"),
                transfer(3, 2, 200, "ROTTEN", "7S 7C 7D 7H"),
                transfer(3, 2, 50, "ROTTEN", "2S"),
            ],
            zeroSum=True,
        ),
    )


@scenario(
    "southern_instant_wins",
    "Tới trắng (instant wins) on the deal: four 2s, the dragon, six pairs, five consecutive pairs, 12 cards of one colour in any game; four 3s and 3 consecutive pairs with ♠3 in first games only; the first qualifying seat from the leader wins; each other seat pays L; the next game is a first game again",
    "RULES §7",
    "RULES §8",
)
def southern_instant_wins(s: Script) -> None:
    def wins(seat: int, pattern: str, places: list[int], net: list[int]) -> dict[str, Any]:
        return {
            "game": {
                "finished": True,
                "toAct": None,
                "events": [
                    {"gameStarted": {}},
                    {"instantWin": {"seat": seat, "pattern": pattern}},
                    {"gameOver": {"places": places}},
                ],
                "settlement": {"net": [str(n) for n in net], "places": places},
            }
        }

    s.new_game(
        ["3S 4S", "2S 2C 2D 2H 5D", "6C 7C", "8D 9D"],
        note="Four 2s.",
        must=wins(1, "four_twos", [4, 1, 4, 4], [-200, 600, -200, -200]),
    )
    s.next_game(
        ["3S 4S 5C", "2S 6C", "7C 8C", "8D 9D"],
        note="After an instant win the next game is a first game again: ♠3 leads.",
        must={
            "game": {
                "toAct": 0,
                "events": [
                    {
                        "gameStarted": {
                            "gameNumber": 2,
                            "leader": 0,
                            "mustInclude": {"$card": "3S"},
                            "firstGame": True,
                        }
                    }
                ],
            }
        },
    )
    s.new_game(
        ["3S 4C 5D 6H 7S 8C 9D 10H JS QC KD AH", "2S", "2C", "2D"],
        note="The dragon (3 to A).",
        must=wins(0, "dragon", [1, 4, 4, 4], [600, -200, -200, -200]),
    )
    s.new_game(
        ["3S", "4S 4C 6D 6H 8S 8C 10D 10H QS QC AD AH", "5S", "7S"],
        note="Six pairs.",
        must=wins(1, "six_pairs", [4, 1, 4, 4], [-200, 600, -200, -200]),
    )
    s.new_game(
        ["3S", "4S", "5S 5C 6D 6H 7S 7C 8D 8H 9S 9C", "JS"],
        note="Five consecutive pairs.",
        must=wins(2, "five_consecutive_pairs", [4, 4, 1, 4], [-200, -200, 600, -200]),
    )
    s.new_game(
        ["3S 4D", "5D", "6D", "3C 4S 4C 5S 6C 7S 8C 9S 10C JS QC KS"],
        note="Twelve black cards.",
        must={
            "game": {
                "finished": True,
                "events": [
                    {"gameStarted": {}},
                    {"instantWin": {"seat": 3, "pattern": "twelve_of_one_colour"}},
                    {"gameOver": {}},
                ],
            }
        },
    )
    s.new_game(
        ["3S 3C 3D 3H 9C", "4S", "5S", "6S"],
        note="Four 3s in a first game.",
        must=wins(0, "four_threes", [1, 4, 4, 4], [600, -200, -200, -200]),
    )
    s.new_game(
        ["3S 3C 3D 3H 9C", "4S", "5S", "6S"],
        first_game=False,
        leader=0,
        note="Four 3s win only a first game: here play starts.",
        must={"game": {"toAct": 0, "finished": False}},
    )
    s.new_game(
        ["3S 3C 4D 4H 5S 5C 9D", "6S", "7S", "8S"],
        note="3 consecutive pairs holding ♠3, in a first game.",
        must=wins(0, "three_consecutive_pairs_with_start", [1, 4, 4, 4], [600, -200, -200, -200]),
    )
    s.new_game(
        ["3S 9H", "4S 4C 6D 6H 8S 8C 10D 10H QS QC AD AH", "2S 2C 2D 2H 5D", "7S"],
        note="Seats 1 and 2 both qualify: the first from the leader (seat 0) in seat order wins.",
        must={
            "game": {"events": [{"gameStarted": {}}, {"instantWin": {"seat": 1}}, {"gameOver": {}}]}
        },
    )
    s.new_game(
        ["3S 4S", "2S 2C 2D 2H 5D", "6C 7C", "9S 9C 9D 9H"],
        options={"count_pigs": "true"},
        note="Đếm heo: the losers also pay for their 2s and bombs (four 9s: 2 stakes).",
        must=wins(1, "four_twos", [4, 1, 4, 4], [-200, 800, -200, -400]),
    )


@scenario(
    "match",
    "A match: NextGame refuses a game still being played, then deals the next game led by the previous winner (not a first game) with the running totals; a bankroll option ends the match when a total drops below zero",
    "RULES §9",
)
def match(s: Script) -> None:
    deal = ["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"]
    s.new_game(deal, must={"game": {"toAct": 0}})
    s.next_game(note="The game is still being played.", error="GAME_NOT_OVER")
    for seat, card in (
        (0, "3S"),
        (1, "4C"),
        (2, "5D"),
        (3, "6H"),
        (0, "9H"),
        (1, "10D"),
        (2, "JS"),
        (3, "QC"),
        (0, "KS"),
    ):
        s.play(seat, card)
    s.pass_(1)
    s.pass_(2)
    s.pass_(3)
    s.play(1, "5S")
    s.play(2, "6C", must=over([200, 100, -100, -200], [1, 2, 3, 4]))
    s.next_game(
        ["4S 9H", "3S 10D", "5D JS", "6H QC"],
        note="Game 2: seat 0 won, so it leads (any play, no ♠3 needed) and deals; the totals carry over.",
        must={
            "game": {
                "toAct": 0,
                "events": [
                    {
                        "gameStarted": {
                            "gameNumber": 2,
                            "leader": 0,
                            "mustInclude": None,
                            "firstGame": False,
                            "dealer": 0,
                        }
                    }
                ],
                "view": {
                    "firstGame": False,
                    "gameNumber": 2,
                    "seats": [
                        {"matchTotal": "200"},
                        {"matchTotal": "100"},
                        {"matchTotal": "-100"},
                        {"matchTotal": "-200"},
                    ],
                },
            }
        },
    )
    s.play(0, "9H", note="Any lead in a game that is not a first game.", must=acts(1))
    s.play(1, "10D")
    s.play(2, "JS")
    s.play(3, "QC")
    s.pass_(0)
    s.pass_(1)
    s.pass_(2, must=acts(3))
    s.play(3, "6H", note="Seat 3 goes out first this time.")
    s.pass_(0)
    s.pass_(1)
    s.pass_(2, note="Seat 3 has gone out: the next seat holding cards leads.", must=acts(0))
    s.play(0, "4S", note="Seat 0 goes out 2nd.", must=acts(1))
    s.play(1, "3S", note="3♠ does not beat 4♠.", error="DOES_NOT_BEAT")
    s.pass_(1)
    s.play(2, "5D", must=over([100, -200, -100, 200], [2, 4, 3, 1]))
    s.next_game(
        ["3S 9H KS", "4C 10D 5S", "5D JS 6C", "6H QC 7D"],
        must={
            "game": {
                "toAct": 3,
                "view": {
                    "gameNumber": 3,
                    "seats": [
                        {"matchTotal": "300"},
                        {"matchTotal": "-100"},
                        {"matchTotal": "-200"},
                        {"matchTotal": "0"},
                    ],
                },
            }
        },
    )

    s.new_game(
        deal,
        options={"match_bankroll": "100"},
        note="Each player starts the match with 100 chips.",
        must={"game": {"toAct": 0}},
    )
    for seat, card in (
        (0, "3S"),
        (1, "4C"),
        (2, "5D"),
        (3, "6H"),
        (0, "9H"),
        (1, "10D"),
        (2, "JS"),
        (3, "QC"),
        (0, "KS"),
    ):
        s.play(seat, card)
    s.pass_(1)
    s.pass_(2)
    s.pass_(3)
    s.play(1, "5S")
    s.play(2, "6C", must=over([200, 100, -100, -200], [1, 2, 3, 4]))
    s.next_game(note="Seat 3 is at 100 - 200 < 0: the match is over.", error="MATCH_OVER")


@scenario(
    "legal_moves",
    "ListLegalMoves: every legal move of a seat now, pass first then plays by type, length and strength; paging with page tokens; a filter by group; the counts of every group",
    "RULES §3",
    "service.proto ListLegalMoves",
)
def legal_moves(s: Script) -> None:
    s.new_game(
        ["3S 3C 4D 5H 6S 9C", "4S 4C 7D 8H", "5D 6D 7C 10H", "JS QD KH AC"],
        must={"game": {"toAct": 0}},
    )
    s.legal(
        0,
        note="The first lead must hold ♠3: the single, the pair, and the straights from ♠3.",
        must={"totalSize": 4, "canPass": False, "nextPageToken": ""},
    )
    s.legal(
        0,
        extra={"pageSize": 2},
        note="Two moves a page.",
        must={"totalSize": 4, "moves": {"$len": 2}, "nextPageToken": {"$present": True}},
    )
    s.legal(
        0,
        extra={"pageSize": 2, "pageToken": {"$from": [3, "nextPageToken"]}},
        note="The second and last page.",
        must={"totalSize": 4, "moves": {"$len": 2}, "nextPageToken": ""},
    )
    s.legal(
        0,
        extra={"filter": {"type": "COMBINATION_TYPE_STRAIGHT"}},
        note="Only straights.",
        must={"totalSize": 2},
    )
    s.legal(
        0,
        extra={
            "pageSize": 2,
            "pageToken": {"$from": [3, "nextPageToken"]},
            "filter": {"type": "COMBINATION_TYPE_STRAIGHT"},
        },
        note="A page token works only with the same filter.",
        error="INVALID_ARGUMENT",
    )
    s.legal(
        1,
        note="Not seat 1's turn, and it holds no out-of-turn chop: nothing.",
        must={"totalSize": 0, "canPass": False},
    )
    s.play(0, "3S", must=acts(1))
    s.legal(
        1,
        note="Following a single: pass first, then every higher single.",
        must={
            "canPass": True,
            "totalSize": 5,
            "moves": [{"move": {"passTurn": {}}}, {}, {}, {}, {}],
        },
    )
    s.legal(
        1,
        extra={"filter": {"type": "COMBINATION_TYPE_PAIR"}},
        note="Pairs can't follow a single.",
        must={"totalSize": 0},
    )


# ============================================================================================
# A full seeded game


def _play_out(s: Script, limit: int = 200) -> dict[str, Any]:
    """Play the game to its end: the seat to act makes its first listed play (the weakest of
    the lowest group), or passes when it has none. Each move is a recorded step."""
    answer: dict[str, Any] = {}
    for _ in range(limit):
        game = s.answers[s.state_step]["game"]
        if game["finished"]:
            return answer
        seat = game["toAct"]
        listing = s.peek("ListLegalMoves", s._seat_request(seat, pageSize=1000))
        plays = [m for m in listing["moves"] if "play" in m["move"]]
        if plays:
            cards = " ".join(t for t in (_text(c) for c in plays[0]["move"]["play"]["cards"]))
            answer = s.play(seat, cards)
        else:
            answer = s.pass_(seat)
    raise AssertionError("the game did not end")


def _text(card: dict[str, str]) -> str:
    from .golden import _card_text

    return _card_text(card) or "?"


@scenario(
    "seeded_game",
    "A full 4-player Southern game from a seed (the same seed deals the same hands on every replica), every move and its events to the settlement, then the match's next seeded game",
    "RULES §2",
    "RULES §4",
    "RULES §8",
    "RULES §9",
)
def seeded_game(s: Script) -> None:
    s.new_game(
        seed=20261129, players=4, note="A seeded deal: reproducible on every replica and release."
    )
    for seat in range(4):
        s.view(seat, note=f"Seat {seat}'s seeded hand.")
    _play_out(s)
    s.next_game(note="The next game continues the match's seeded deals.")
    for seat in range(4):
        s.view(seat)
    s.validate(
        s.answers[s.state_step]["game"]["toAct"],
        None,
        note="The leader of the new game may not pass.",
        must={"legal": False, "reason": "LEADER_CANNOT_PASS"},
    )


# ============================================================================================
# The other presets


@scenario(
    "northern",
    "Miền Bắc: follow suit and colour (♥5♦5♠5 is beaten by ♥10♦10♠10, not by ♥10♦10♣10), a 2 on any single, pairs of one colour, no consecutive pairs, finishing on a 2 ranks last, thối hai (13 stakes), no instant wins",
    "RULES §6",
    "RULES §10",
)
def northern(s: Script) -> None:
    s.new_game(
        ["3S 2C 5H 5D 5S 9H", "4S 10H 10D 10C 10S JH", "6S 8H 8D 7C 3H", "KS QD JD 9C 4H"],
        variant="northern",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S")
    s.play(
        1,
        "JH",
        note="A single must be beaten by a higher single of the same suit.",
        error="DOES_NOT_BEAT",
    )
    s.play(1, "4S", must=acts(2))
    s.play(2, "6S")
    s.play(3, "KS")
    s.play(0, "2C", note="A 2 may be played on any single that is not a 2.", must=acts(1))
    s.pass_(1)
    s.pass_(2)
    s.pass_(3, must=acts(0))
    s.play(0, "5H 5D", note="A red pair.", must=acts(1))
    s.play(
        1,
        "10H 10C",
        note="A pair must beat a pair of the same colour: 10♥10♣ is not even a pair here (two colours).",
        error="NOT_A_COMBINATION",
    )
    s.play(1, "10H 10D", must=acts(2))
    s.play(2, "8H 8D", error="DOES_NOT_BEAT")
    s.pass_(2)
    s.pass_(3)
    s.pass_(0, must=acts(1))
    s.play(1, "10C 10S JH", error="NOT_A_COMBINATION")
    s.play(1, "JH", must=acts(2))
    s.pass_(2)
    s.pass_(3)
    s.pass_(0)
    s.play(1, "4S", error="CARD_NOT_IN_HAND")
    s.play(1, "10C 10S", note="A black pair.", must=acts(2))
    s.pass_(2)
    s.pass_(3)
    s.pass_(0)
    s.new_game(
        ["3S 5H 5D 5S KS", "10H 10D 10C 10S 7S", "8S 9C", "4S 6C"],
        variant="northern",
        note="Three fives, odd spade (source example).",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S")
    s.play(1, "7S")
    s.play(2, "8S")
    s.pass_(3)
    s.play(0, "KS")
    s.pass_(1)
    s.pass_(2, must=acts(0))
    s.play(0, "5H 5D 5S", must=acts(1))
    s.play(
        1,
        "10H 10D 10C",
        note="♥10♦10♣10 has an odd club, not an odd spade: it does not follow.",
        error="DOES_NOT_BEAT",
    )
    s.play(1, "10H 10D 10S", note="♥10♦10♠10 follows the suit make-up and is higher.", must=acts(2))
    s.new_game(
        ["3S 4S 5S 6S", "3C 4C 5C 5D 4D 3D", "2S 2C 2D 2H 7H", "8S"],
        variant="northern",
        note="No instant wins in the North (four 2s) and no consecutive pairs.",
        must={"game": {"toAct": 0, "finished": False}},
    )
    s.play(0, "3S 4S 5S", note="A same-suit straight.", must=acts(1))
    s.play(1, "3C 4D 5C", note="Straights are single-suit in the North.", error="NOT_A_COMBINATION")
    s.new_game(
        ["3S JD", "5S QD", "7S KD", "9S 2C 10D"],
        variant="northern",
        note="Thối hai: the last player holding a 2 pays 13 stakes to the one who finished just before.",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S")
    s.play(1, "5S")
    s.play(2, "7S")
    s.play(3, "9S")
    s.pass_(0)
    s.pass_(1)
    s.pass_(2, must=acts(3))
    s.play(3, "10D")
    s.play(0, "JD")
    s.play(1, "QD")
    s.play(
        2,
        "KD",
        must=over(
            [200, 100, 1200, -1500],
            [1, 2, 3, 4],
            [
                transfer(3, 0, 200, "PLACE"),
                transfer(2, 1, 100, "PLACE"),
                transfer(3, 2, 1300, "ROTTEN", "2C"),
            ],
        ),
    )
    s.new_game(
        ["3S 2H", "4S 5C", "6S 7D", "8S 9D"],
        variant="northern",
        note="Finishing on a 2 ranks you last.",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S")
    s.play(1, "4S")
    s.play(2, "6S")
    s.play(3, "8S")
    s.play(
        0,
        "2H",
        must={
            "game": {
                "events": [
                    played(0, "SINGLE", 1, "2H", "2H", 0),
                    {"playerFinished": {"seat": 0, "place": 4, "rankedLast": True}},
                    turn(1),
                ]
            }
        },
    )
    s.pass_(1)
    s.pass_(2)
    s.pass_(3, must=acts(1))
    s.play(1, "5C")
    s.pass_(2)
    s.pass_(3, must=acts(2))
    s.play(2, "7D", must=over([-200, 200, 100, -100], [4, 1, 2, 3]))


@scenario(
    "hue",
    "Huế: ♣3 leads the first game; four of a kind chops a single 2 and the chop of a last card is paid to the chopper by nobody (not zero-sum); finishing on a 2 ranks last; ba mù (winning on ♠3) and rotten ♠3; cướp cái (stealing the lead with 3 consecutive pairs) in a game that is not a first game",
    "RULES §5",
    "RULES §7",
    "RULES §10",
)
def hue(s: Script) -> None:
    s.new_game(
        ["3S 9H", "3C 4D", "5D 6S", "7C 8H"],
        variant="hue",
        note="The holder of ♣3 leads and must include it.",
        must={
            "game": {
                "toAct": 1,
                "events": [{"gameStarted": {"leader": 1, "mustInclude": {"$card": "3C"}}}],
            }
        },
    )
    s.play(1, "4D", error="MUST_INCLUDE_STARTING_CARD")
    s.play(1, "3C", must=acts(2))

    s.new_game(
        ["3C 2D", "7S 7C 7D 7H 10D KH", "JD 8D", "QC 9C"],
        variant="hue",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3C")
    s.play(1, "10D")
    s.play(2, "JD")
    s.play(3, "QC")
    s.play(
        0,
        "2D",
        note="Seat 0 goes out on a 2: ranked last.",
        must={
            "game": {
                "events": [
                    played(0, "SINGLE", 1, "2D", "2D", 0),
                    {"playerFinished": {"seat": 0, "place": 4, "rankedLast": True}},
                    turn(1),
                ]
            }
        },
    )
    s.play(
        1,
        "7S 7C 7D 7H",
        note="Four of a kind chops the single 2 — seat 0's last card.",
        must=acts(2),
    )
    s.pass_(2)
    s.pass_(
        3,
        note="Chop on a last card: the chopper is paid (1 stake for the red 2) by nobody.",
        must={
            "game": {
                "events": [
                    passed(3),
                    {
                        "chopSettled": {
                            "payer": -1,
                            "payee": 1,
                            "amount": "100",
                            "cards": {"$cards": "2D"},
                            "links": 1,
                        }
                    },
                    {"roundWon": {"seat": 1, "leader": 1}},
                    turn(1),
                ]
            }
        },
    )
    s.play(1, "KH")
    s.pass_(2)
    s.pass_(3, must=acts(2))
    s.play(
        2,
        "8D",
        must=over(
            [-200, 300, 100, -100],
            [4, 1, 2, 3],
            [
                transfer(-1, 1, 100, "CHOP", "2D"),
                transfer(0, 1, 200, "PLACE"),
                transfer(3, 2, 100, "PLACE"),
            ],
            zeroSum=False,
        ),
    )

    s.new_game(
        ["4S KS 3S", "5S 9D", "6S 10D", "7S JD"],
        variant="hue",
        first_game=False,
        leader=0,
        note="Ba mù: seat 0 will go out on ♠3.",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "4S")
    s.play(1, "5S")
    s.play(2, "6S")
    s.play(3, "7S")
    s.play(0, "KS")
    s.pass_(1)
    s.pass_(2)
    s.pass_(3, must=acts(0))
    s.play(0, "3S", must=acts(1))
    s.play(1, "9D")
    s.play(
        2,
        "10D",
        note="Every other seat pays the winner the blind-three amount (2 stakes) instead of its place transfer.",
        must=over(
            [600, -200, -200, -200],
            [1, 2, 3, 4],
            [
                transfer(1, 0, 200, "BLIND_THREE"),
                transfer(2, 0, 200, "BLIND_THREE"),
                transfer(3, 0, 200, "BLIND_THREE"),
            ],
        ),
    )

    s.new_game(
        ["3C 9H", "4C 10D", "5D JS", "6H 3S"],
        variant="hue",
        note="Rotten ♠3: seat 3 will be left holding only ♠3.",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3C")
    s.play(1, "4C")
    s.play(2, "5D")
    s.play(3, "6H")
    s.play(0, "9H")
    s.play(1, "10D")
    s.play(
        2,
        "JS",
        must=over(
            [500, 100, -100, -500],
            [1, 2, 3, 4],
            [
                transfer(3, 0, 200, "PLACE"),
                transfer(2, 1, 100, "PLACE"),
                transfer(3, 0, 300, "ROTTEN_THREE", "3S"),
            ],
        ),
    )

    s.new_game(
        ["3S 9H", "3C 4D", "5S 5C 6D 6H 7S 7C 8D", "8S 8C 9D 9C 10S 10C JD"],
        variant="hue",
        note="No stealing the lead in a first game.",
        must={"game": {"toAct": 1, "view": {"stealOpen": False}}},
    )
    s.play(2, "5S 5C 6D 6H 7S 7C", error="CANNOT_STEAL_LEAD")
    s.new_game(
        ["3S 9H", "3C 4D", "5S 5C 6D 6H 7S 7C 8D", "8S 8C 9D 9C 10S 10C JD"],
        variant="hue",
        first_game=False,
        leader=0,
        note="A game that is not a first game: the lead may be stolen (Huế's follow_rules say it may, in any game that is not a first game).",
        must={
            "game": {
                "toAct": 0,
                "view": {
                    "stealOpen": True,
                    "followRules": {"passLockout": True, "leadStealing": True},
                },
            }
        },
    )
    s.play(
        2,
        "5S 5C 6D 6H 7S 7C",
        note="Seat 2 steals the lead with 3 consecutive pairs, out of turn.",
        must=acts(
            3,
            [
                played(
                    2,
                    "CONSECUTIVE_PAIRS",
                    3,
                    "7C",
                    "5S 5C 6D 6H 7S 7C",
                    1,
                    out_of_turn=True,
                    steal=True,
                ),
                turn(3),
            ],
        ),
    )
    s.play(
        3,
        "8S 8C 9D 9C 10S 10C",
        note="Seat 3 steals it back with higher pairs: in Huế 3 consecutive pairs are no chop.",
        must={
            "game": {
                "events": [
                    played(3, "CONSECUTIVE_PAIRS", 3, "10C", "8S 8C 9C 9D 10S 10C", 1, steal=True),
                    turn(0),
                ]
            }
        },
    )


@scenario(
    "da_nang",
    "Đà Nẵng: nobody is frozen when exactly two players have not played at the first finish; 4 consecutive pairs chop a pair of 2s but not a single 2",
    "RULES §5",
    "RULES §7",
    "RULES §10",
)
def da_nang(s: Script) -> None:
    s.new_game(
        ["3S KH", "5C 9D", "6D 10H", "4S 7S"], variant="da_nang", must={"game": {"toAct": 0}}
    )
    s.play(0, "3S")
    s.play(1, "5C")
    s.pass_(2)
    s.pass_(3)
    s.play(
        0,
        "KH",
        note="Seats 2 and 3 have not played: exactly two, so nobody is frozen and play goes on.",
        must=acts(
            1,
            [
                played(0, "SINGLE", 1, "KH", "KH", 0),
                {"playerFinished": {"seat": 0, "place": 1, "rankedLast": False}},
                turn(1),
            ],
        ),
    )
    s.new_game(
        ["3S 2D 2H 9C", "4S 4C 5S 5C 6S 6C 7S 7C 10D", "JD 8D", "QC 9H"],
        variant="da_nang",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S")
    s.play(1, "10D")
    s.play(2, "JD")
    s.play(3, "QC")
    s.play(0, "2D", must=acts(1))
    s.play(
        1,
        "4S 4C 5S 5C 6S 6C 7S 7C",
        note="4 consecutive pairs can't chop a single 2 in Đà Nẵng.",
        error="WRONG_TYPE_OR_LENGTH",
    )
    s.new_game(
        ["3S 3C 2D 2H 9C", "4S 4C 5S 5C 6S 6C 7S 7C 10D 10H", "JD JH 8D", "QC QS 9H"],
        variant="da_nang",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S 3C")
    s.play(1, "10D 10H")
    s.play(2, "JD JH")
    s.play(3, "QS QC")
    s.play(0, "2D 2H", note="A pair of red 2s.", must=acts(1))
    s.play(
        1,
        "4S 4C 5S 5C 6S 6C 7S 7C",
        note="4 consecutive pairs chop a pair of 2s.",
        must=acts(
            2,
            [
                played(1, "CONSECUTIVE_PAIRS", 4, "7C", "4S 4C 5S 5C 6S 6C 7S 7C", 0, chop=True),
                {"playerFinished": {"seat": 1, "place": 1, "rankedLast": False}},
                turn(2),
            ],
        ),
    )
    s.pass_(2)
    s.pass_(3)
    s.pass_(
        0,
        note="The chain ends: seat 0 pays seat 1 both red 2s (1 + 1 stakes).",
        must={
            "game": {
                "events": [
                    passed(0),
                    {
                        "chopSettled": {
                            "payer": 0,
                            "payee": 1,
                            "amount": "200",
                            "cards": {"$cards": "2D 2H"},
                            "links": 1,
                        }
                    },
                    {"roundWon": {"seat": 1, "leader": 2}},
                    turn(2),
                ]
            }
        },
    )


@scenario(
    "dau",
    "Tiến lên Đấu: 3 players, all 52 cards dealt 18/17/17 (the dealer gets 18); consecutive triples are a combination; a four of a kind is an ordinary combination",
    "RULES §2",
    "RULES §3",
    "RULES §5",
)
def dau(s: Script) -> None:
    s.new_game(
        variant="dau",
        seed=42,
        note="Seeded Đấu deal, 3 players by default: the dealer (seat 0) holds 18.",
        must={
            "game": {
                "view": {
                    "players": 3,
                    "seats": [{"cardsLeft": 18}, {"cardsLeft": 17}, {"cardsLeft": 17}],
                }
            },
            "seatTokens": {"$len": 3},
        },
    )
    s.new_game(
        ["3S 6S 6C 6D 7S 7C 7D 8S 8C 8D 2H KH", "4S 4C 5S 5C 6H 7H KD", "9S 9C 9D 9H 2S 10H"],
        variant="dau",
        must={"game": {"toAct": 0}},
    )
    s.play(0, "3S")
    s.pass_(1)
    s.play(2, "2S")
    s.play(0, "2H", must=acts(2))
    s.pass_(2, must=acts(0))
    s.validate(
        0,
        "6S 6C 6D 7S 7C 7D 8S 8C 8D",
        must={
            "legal": True,
            "combination": {
                "type": "COMBINATION_TYPE_CONSECUTIVE_TRIPLES",
                "length": 3,
                "top": {"$card": "8D"},
            },
        },
    )
    s.play(0, "6S 6C 6D 7S 7C 7D 8S 8C 8D", must=acts(1))
    s.pass_(1)
    s.play(
        2,
        "9S 9C 9D 9H",
        note="A four of a kind is no bomb in Đấu: it can't beat consecutive triples.",
        error="WRONG_TYPE_OR_LENGTH",
    )


@scenario(
    "dem_la",
    "Đếm lá (card counting): the game ends when the first player goes out; each loser pays 1 stake per card left plus the rotten conversions (red 2: 4, four of a kind: 4); a loser still holding every dealt card pays double",
    "RULES §8",
    "RULES §10",
)
def dem_la(s: Script) -> None:
    s.new_game(
        ["3S KH", "4C 10D 2H", "5D JS 6C 7C", "6D 8D 8H 8S 8C"],
        variant="dem_la",
        leader=0,
        note="The first leader is drawn at random in đếm lá; a golden conversation names it.",
        must={
            "game": {"toAct": 0, "events": [{"gameStarted": {"leader": 0, "mustInclude": None}}]}
        },
    )
    s.play(0, "3S")
    s.play(1, "4C")
    s.play(2, "5D")
    s.pass_(3)
    s.play(
        0,
        "KH",
        note="Seat 0 goes out: the game ends. Seat 1: 2 cards + red 2 (4) = 6 stakes; seat 2: 3 cards; seat 3 never played: (5 cards + four 8s (4)) × 2 = 18 stakes.",
        must={"game": {"finished": True, "settlement": {"net": ["2700", "-600", "-300", "-1800"]}}},
    )


# ============================================================================================
# Game records: ReplayGame (docs/RECORDS.md)

#: The example game of docs/RECORDS.md: 3 players (Lan, Minh, Hoa), a stake of 50 chips, a
#: first game, so the holder of ♠3 (seat 0) leads it.
RECORD_RULES: dict[str, Any] = {"variant": "southern", "options": {"stake": "50"}}
RECORD_HANDS = ("3S 7D 7H 2C", "4S 8C 8D QH", "5S 9S 10S JS")
RECORD_MOVES: tuple[tuple[int, str | None], ...] = (
    (0, "3S"),
    (1, "4S"),
    (2, "5S"),
    (0, "2C"),
    (1, None),
    (2, None),
    (0, "7D 7H"),
    (1, "8C 8D"),
    (2, None),
    (1, "QH"),
)
#: Its result by RULES §8, 3 players: last pays 1st 2 stakes (100), 2nd pays 1st 1 stake (50).
RECORD_NET = [150, -50, -100]
RECORD_PLACES = [1, 2, 3]
RECORD_TRANSFERS = [transfer(2, 0, 100, "PLACE"), transfer(1, 0, 50, "PLACE")]


def recorded(seat: int, text: str | None) -> dict[str, Any]:
    """A RecordedMove: `seat` plays the cards `text`, or passes (None)."""
    if text is None:
        return {"seat": seat, "passTurn": True}
    return {"seat": seat, "cards": {"$cards": text}}


def game_record(
    moves: tuple[tuple[int, str | None], ...] | list[dict[str, Any]] = RECORD_MOVES,
    *,
    stated: bool = True,
    **fields: Any,
) -> dict[str, Any]:
    """The GameRecord of the example game (JSON mapping), its result stated unless `stated` is
    False; `moves` as (seat, cards or None) pairs or as RecordedMove JSON; `fields` replace
    or add record fields."""
    record: dict[str, Any] = {
        "rules": RECORD_RULES,
        "players": 3,
        "playerNames": ["Lan", "Minh", "Hoa"],
        "dealer": 0,
        "leader": 0,
        "firstGame": True,
        "gameNumber": 1,
        "hands": [{"cards": {"$cards": hand}} for hand in RECORD_HANDS],
        "moves": [m if isinstance(m, dict) else recorded(*m) for m in moves],
    }
    if stated:
        record["result"] = {
            "places": RECORD_PLACES,
            "transfers": RECORD_TRANSFERS,
            "net": [str(n) for n in RECORD_NET],
        }
    record.update(fields)
    return record


def _illegal_move(number: int, reason: str, seat: int, field: str) -> dict[str, Any]:
    """What a RECORD_ILLEGAL_MOVE refusal names: the move (1-based), the rule, the seat, the field."""
    return {
        "error": "RECORD_ILLEGAL_MOVE",
        "fields": [field],
        "metadata": {
            "move_number": str(number),
            "move_reason": reason,
            "seat": str(seat),
            "field": field,
        },
    }


@scenario(
    "game_records",
    "ReplayGame checks a game record: the example game of docs/RECORDS.md played live, then its record replayed to the same events and settlement; the replay's tokens play on (NextGame once over, ApplyMove for a record of a game still being played) as a new match",
    "RULES §4",
    "RULES §8",
    "docs/RECORDS.md",
    "service.proto ReplayGame",
)
def game_records(s: Script) -> None:
    live = s.new_game(
        list(RECORD_HANDS),
        variant="southern",
        options={"stake": "50"},
        players=3,
        note="The example game of docs/RECORDS.md, played live first: 3 players, a stake of 50 chips, a first game led by the holder of ♠3 (seat 0, Lan).",
        must={
            "game": {
                "toAct": 0,
                "events": [
                    {
                        "gameStarted": {
                            "gameNumber": 1,
                            "leader": 0,
                            "mustInclude": {"$card": "3S"},
                            "firstGame": True,
                        }
                    }
                ],
            }
        },
    )
    events: list[Any] = list(live["game"]["events"])
    after: list[int] = [len(events)]  # the number of events after the deal and after each move
    notes = {
        4: "Lan's 2♣ tops the round.",
        6: "Both others passed: Lan won the round and leads again.",
        7: "Lan's last cards: she finishes first. Nobody is frozen (cóng): Minh and Hoa have each played a card.",
        9: "Hoa passes: Minh made the round's last play and leads (Lan has gone out).",
        10: "Minh's last card: he finishes second and Hoa, still holding cards, is last.",
    }
    to_act = (1, 2, 0, 1, 2, 0, 1, 2, 1)
    for number, (seat, text) in enumerate(RECORD_MOVES, start=1):
        must = (
            over(RECORD_NET, RECORD_PLACES, RECORD_TRANSFERS)
            if number == len(RECORD_MOVES)
            else acts(to_act[number - 1])
        )
        note = notes.get(number, "")
        answer = (
            s.pass_(seat, note=note, must=must)
            if text is None
            else s.play(seat, text, note=note, must=must)
        )
        events += answer["game"]["events"]
        after.append(len(events))
    settled = answer["game"]["settlement"]
    live_step = s.game_step

    replayed = s.call(
        "ReplayGame",
        {"record": game_record()},
        note="The game's record (docs/RECORDS.md's example, names and result included) replayed: the same events from the deal on, the same end, the same settlement; the stated result is reached, so the record is accepted. A replay is a new match: new seat tokens, and marked replayed (the update, the view and the settlement say so): anyone may write a record.",
        must={
            "game": {
                "events": events,
                "toAct": None,
                "finished": True,
                "settlement": {**settled, "replayed": True},
                "view": {
                    "players": 3,
                    "rules": RECORD_RULES,
                    "moveCount": len(RECORD_MOVES),
                    "replayed": True,
                },
                "gameNumber": 1,
                "moveNumber": len(RECORD_MOVES),
                "replayed": True,
            },
            "seatTokens": {"$len": 3},
        },
    )
    del replayed
    s.next_game(
        ["4D 9H", "5C JD", "6S KH"],
        note="The replay's state token goes on like the live game's: NextGame deals game 2 of the match, led by the winner (Lan) with any combination, the totals carried over; still a replayed match.",
        must={
            "game": {
                "toAct": 0,
                "replayed": True,
                "events": [
                    {
                        "gameStarted": {
                            "gameNumber": 2,
                            "leader": 0,
                            "mustInclude": None,
                            "firstGame": False,
                        }
                    }
                ],
                "view": {
                    "seats": [
                        {"matchTotal": str(RECORD_NET[0])},
                        {"matchTotal": str(RECORD_NET[1])},
                        {"matchTotal": str(RECORD_NET[2])},
                    ]
                },
            }
        },
    )
    s.play(
        0,
        "4D",
        note="The replay's seat tokens hold for the whole match it starts.",
        must=acts(1),
    )

    cut = 6
    replay_step = len(s.steps) + 1
    s.call(
        "ReplayGame",
        {"record": game_record(RECORD_MOVES[:cut], stated=False)},
        note='The record of a game still being played (no result: [Result "unfinished"]) after move 6: replayed to where it stops, not finished, Lan to lead.',
        must={
            "game": {
                "events": events[: after[cut]],
                "toAct": 0,
                "finished": False,
                "settlement": None,
                "view": {"moveCount": cut},
                "moveNumber": cut,
            },
            "seatTokens": {"$len": 3},
        },
    )
    s.call(
        "ApplyMove",
        {
            "stateToken": {"$stateFrom": replay_step},
            "seat": 0,
            "seatToken": {"$seatToken": [live_step, 0]},
            "move": {"play": {"cards": {"$cards": "7D 7H"}}},
        },
        note="The live game's seat token does not open the replay: a replay is a new match with its own seat tokens.",
        error="SEAT_TOKEN_INVALID",
        code="PERMISSION_DENIED",
    )
    s.play(
        0,
        "7D 7H",
        note="Played on from the replay with its own seat token: the same events as move 7 of the live game.",
        must={"game": {"events": events[after[cut] : after[cut + 1]], "toAct": 1}},
    )


@scenario(
    "game_record_refusals",
    "ReplayGame refuses a record it can't replay, with INVALID_ARGUMENT and the field at fault: an empty record, an illegal move (RECORD_ILLEGAL_MOVE naming the move's number, the rule's reason and the seat), rules that don't exist or don't give the stated result, a result the replay doesn't reach (RECORD_RESULT_MISMATCH), a malformed deal or move",
    "RULES §4",
    "docs/RECORDS.md",
    "service.proto ReplayGame",
)
def game_record_refusals(s: Script) -> None:
    def refused(record: dict[str, Any], note: str, **kw: Any) -> None:
        s.call("ReplayGame", {"record": record}, note=note, **kw)

    moves = list(RECORD_MOVES)

    refused(
        {},
        "An empty record: no players, no hands. The player count is checked first.",
        error="INVALID_PLAYER_COUNT",
        fields=["record.players"],
    )
    refused(
        game_record(hands=[]),
        "A record without its dealt hands.",
        error="INVALID_DEAL",
        fields=["record.hands"],
    )
    # --- illegal moves: the rules refuse them, as ApplyMove would
    refused(
        game_record([*moves[:4], (1, "8C"), *moves[5:]]),
        "Move 5 altered: Minh's 8♣ does not beat Lan's 2♣. The metadata name the move (1-based), the rule's reason code, the seat; the BadRequest field is the move's cards (0-based index).",
        **_illegal_move(5, "DOES_NOT_BEAT", 1, "record.moves[4].cards"),
    )
    refused(
        game_record([(1, "4S")]),
        "The first game's first move must be the ♠3 holder's: Minh (seat 1) moves out of turn.",
        **_illegal_move(1, "NOT_YOUR_TURN", 1, "record.moves[0].cards"),
    )
    refused(
        game_record([(0, "2C")]),
        "The first game's lead must include ♠3.",
        **_illegal_move(1, "MUST_INCLUDE_STARTING_CARD", 0, "record.moves[0].cards"),
    )
    refused(
        game_record([moves[0], (1, "5S")]),
        "Minh plays a card Hoa was dealt.",
        **_illegal_move(2, "CARD_NOT_IN_HAND", 1, "record.moves[1].cards"),
    )
    refused(
        game_record([(0, None)]),
        "The leader of a round may not pass.",
        **_illegal_move(1, "LEADER_CANNOT_PASS", 0, "record.moves[0].pass_turn"),
    )
    refused(
        game_record([moves[0], (3, "4S")]),
        "A move by seat 3 at a table of 3: the field is the move's seat.",
        **_illegal_move(2, "INVALID_SEAT", 3, "record.moves[1].seat"),
    )
    refused(
        game_record([*moves, (2, "9S")]),
        "A move after the game ended.",
        **_illegal_move(11, "GAME_OVER", 2, "record.moves[10].cards"),
    )
    # --- malformed moves
    refused(
        game_record([moves[0], {"seat": 1}]),
        "A move that neither plays cards nor passes.",
        error="INVALID_ARGUMENT",
        fields=["record.moves[1].cards"],
    )
    refused(
        game_record([moves[0], {"seat": 1, "passTurn": True, "cards": {"$cards": "4S"}}]),
        "A pass that plays cards.",
        error="INVALID_ARGUMENT",
        fields=["record.moves[1].cards"],
    )
    # --- the rules
    refused(
        game_record(rules={"variant": "southen", "options": {"stake": "50"}}),
        "A variant that does not exist.",
        error="UNKNOWN_VARIANT",
        fields=["record.rules.variant"],
    )
    refused(
        game_record(rules={"variant": "southern", "options": {"stakes": "50"}}),
        "A rule option that does not exist.",
        error="UNKNOWN_OPTION",
        fields=["record.rules.options.stakes"],
    )
    refused(
        game_record(rules={"variant": "southern", "options": {"stake": "fifty"}}),
        "An option value of the wrong type.",
        error="INVALID_OPTION_VALUE",
        fields=["record.rules.options.stake"],
    )
    refused(
        game_record(rules={"variant": "southern"}),
        "The rules altered (the stake option dropped: 100 chips) while the stated result is the 50-chip game's: every move is legal, but the replay's nets (300, -100, -200) are not the record's.",
        error="RECORD_RESULT_MISMATCH",
        fields=["record.result.net"],
    )
    # --- the stated result
    refused(
        game_record(
            result={
                "places": RECORD_PLACES,
                "transfers": [transfer(2, 0, 200, "PLACE"), RECORD_TRANSFERS[1]],
                "net": [str(n) for n in RECORD_NET],
            }
        ),
        "A stated transfer that the replay's settlement does not make: the field is the first transfer that differs.",
        error="RECORD_RESULT_MISMATCH",
        fields=["record.result.transfers[0]"],
    )
    refused(
        game_record(
            result={
                "places": [1, 3, 2],
                "transfers": RECORD_TRANSFERS,
                "net": [str(n) for n in RECORD_NET],
            }
        ),
        "Stated places that are not the replay's.",
        error="RECORD_RESULT_MISMATCH",
        fields=["record.result.places"],
    )
    refused(
        game_record(moves[:-1]),
        "A record that states a result but lacks its last move: the game is not over after the moves given. Never a partial replay passed off as the whole game.",
        error="RECORD_RESULT_MISMATCH",
        fields=["record.result"],
    )
    # --- the deal and the table
    refused(
        game_record(
            hands=[{"cards": {"$cards": hand}} for hand in ("3S 7D 7H 2C", "4S 8C 8D QH", "4S 9S")]
        ),
        "A card dealt twice (♠4 to seats 1 and 2).",
        error="INVALID_DEAL",
        fields=["record.hands[2]"],
    )
    refused(
        game_record(
            hands=[
                {"cards": [{"rank": "RANK_UNSPECIFIED", "suit": "SUIT_SPADES"}]},
                {"cards": {"$cards": RECORD_HANDS[1]}},
                {"cards": {"$cards": RECORD_HANDS[2]}},
            ]
        ),
        "A card without a rank (RANK_UNSPECIFIED): the field is the card's rank.",
        error="INVALID_CARD",
        fields=["record.hands[0].cards[0].rank"],
    )
    refused(
        game_record(leader=1),
        "A first game led by a seat that does not hold ♠3.",
        error="INVALID_LEADER",
        fields=["record.leader"],
    )
    refused(
        game_record(dealer=3),
        "A dealer not at the table.",
        error="INVALID_SEAT",
        code="INVALID_ARGUMENT",
        fields=["record.dealer"],
    )
    refused(
        game_record(playerNames=["Lan", "Minh"]),
        "Names for another table: one per seat, or none.",
        error="INVALID_ARGUMENT",
        fields=["record.player_names"],
    )
    refused(
        game_record(matchTotals=["0", "0"]),
        "Match totals for another table: one per seat, or none.",
        error="INVALID_ARGUMENT",
        fields=["record.match_totals"],
    )
    refused(
        game_record(gameNumber=1_000_001),
        "A game number past 1,000,000: the match could not go on from the replay (NextGame numbers the next game).",
        error="INVALID_ARGUMENT",
        fields=["record.game_number"],
    )
    refused(
        game_record(matchTotals=["9223372036854775000", "0", "0"]),
        "A match total past 9,223,372,036,854,000 chips either way: the next game's net could not be added to it within int64.",
        error="INVALID_ARGUMENT",
        fields=["record.match_totals[0]"],
    )


@scenario(
    "tables",
    "A table of people (RULES §9): player ids and bankrolls at the deal, the host's time-outs, a player leaving mid-game (played out on auto, frozen and capped at its bankroll), a seat change between games (a newcomer with a token of its own), the winner leaving (a first game again), a bankroll below the table's minimum, and an out-of-turn chop the host is told about",
    "RULES §9",
    "docs/HOSTS.md",
)
def tables(s: Script) -> None:
    chips = {"min_bankroll_stakes": "1"}  # 1 stake = 100 chips to sit down
    s.new_game(
        ["3S 9S", "4S 5S", "6S 7S", "8S JS"],
        options=chips,
        first_game=False,
        leader=0,
        playerIds=["an", "binh", "chi", "dung"],
        bankrolls=["500", "500", "500", "150"],
        must={
            "game": {
                "toAct": 0,
                "view": {
                    "seats": [
                        {"playerId": "an", "bankroll": "500"},
                        {"playerId": "binh"},
                        {"playerId": "chi"},
                        {"playerId": "dung", "bankroll": "150"},
                    ]
                },
            }
        },
    )
    s.timeout(2, note="A time-out is for the seat to act.", error="NOT_YOUR_TURN")
    s.timeout(
        0,
        note="Seat 0's time ran out while leading: it plays its lowest single.",
        must={"game": {"events": {"$contains": [{"timedOut": {"seat": 0, "timeouts": 1}}, played(0, "SINGLE", 1, "3S", "3S", 1)]}}},
    )  # fmt: skip
    s.play(1, "5S")
    s.play(2, "7S")
    s.leave(
        3,
        note="Seat 3's player closes the app (leave_mid_game play_out): on auto, the game goes on.",
        must={"game": {"events": [{"playerLeft": {"seat": 3, "forfeit": False, "place": 0}}, {"autoPlay": {"seat": 3, "on": True}}], "view": {"seats": [{}, {}, {}, {"left": True, "auto": True}]}}},
    )  # fmt: skip
    s.play(
        3,
        "8S",
        note="Its own moves are refused: only the host's time-outs play it.",
        error="SEAT_LEFT",
    )
    s.timeout(
        3,
        note="The host plays its time-out: a pass.",
        must=acts(0, [{"timedOut": {"seat": 3, "timeouts": 1}}, passed(3), turn(0)]),
    )
    s.play(
        0,
        "9S",
        note="Seat 0 goes out first; seat 3 never played: frozen.",
        must={"game": {"events": {"$contains": [played(0, "SINGLE", 1, "9S", "9S", 0), {"playerFinished": {"seat": 0, "place": 1, "rankedLast": False}}, {"playersFrozen": {"seats": [3], "places": [4]}}]}}},
    )  # fmt: skip
    s.timeout(1)
    s.timeout(2)
    s.timeout(
        1,
        note="Seat 3 owes 2L = 400 as frozen but sat down with 150 chips: it pays 150 (loss_cap), the transfer says what was owed.",
        must={"game": {"finished": True, "settlement": {"transfers": [{"payer": 3, "payee": 0, "amount": "150", "reason": "TRANSFER_REASON_FROZEN", "owed": "400"}, {"payer": 2, "payee": 1, "amount": "100", "reason": "TRANSFER_REASON_PLACE", "owed": "0"}], "net": ["150", "100", "-100", "-150"]}}},
    )  # fmt: skip
    s.next_game(
        ["3D 4D", "", "5D 9C", "6D 7H"],
        note="Binh (seat 1) leaves; seat 3's leaver is dropped by itself; Em sits down in seat 3 with 900 chips. The winner, seat 0, stayed: it leads (not a first game). Seat 1 stays empty.",
        seating={"staying": [0, 2], "newcomers": [{"seat": 3, "playerId": "em", "bankroll": "900"}]},
        must={"game": {"toAct": 0, "events": [{"seatVacated": {"seat": 1, "playerId": "binh", "total": "100"}}, {"seatVacated": {"seat": 3, "playerId": "dung", "total": "-150"}}, {"seatTaken": {"seat": 3, "playerId": "em"}}, {"gameStarted": {"leader": 0, "firstGame": False, "handSizes": [2, 0, 2, 2]}}], "view": {"seats": [{"matchTotal": "150", "bankroll": "650"}, {"empty": True}, {"matchTotal": "-100", "bankroll": "400"}, {"matchTotal": "0", "playerId": "em", "bankroll": "900"}]}}},
    )  # fmt: skip
    s.pass_(
        1,
        note="Nobody sits in seat 1: its former player's token opens nothing.",
        error="SEAT_TOKEN_INVALID",
        code="PERMISSION_DENIED",
    )
    s.play(0, "3D", must=acts(2))
    s.play(2, "5D", note="Turns skip the empty seat 1.", must=acts(3))
    s.play(3, "6D", note="The newcomer acts with its own seat token (NextGame's seatTokens).")
    s.timeout(0)
    s.play(2, "9C", note="Seat 2 goes out first.")
    s.timeout(3)
    s.timeout(3, must={"game": {"finished": True, "settlement": {"places": [3, 0, 1, 2], "net": ["-200", "0", "300", "-100"]}}})  # fmt: skip
    hands = ["3S 2S 9D", "8H 9H 10H", "", "3C 3D 4C 4D 5C 5D 6C 6D KD"]
    s.next_game(
        hands,
        note="The winner (seat 2) leaves and Phương sits in seat 1 with 50 chips: below the table's 100.",
        seating={"staying": [0, 3], "newcomers": [{"seat": 1, "playerId": "phuong", "bankroll": "50"}]},
        error="BANKROLL_TOO_LOW",
        metadata={"seat": "1", "shortfall": "50"},
    )  # fmt: skip
    s.next_game(
        hands,
        note="With 2000 chips. The previous winner left: a first game again (the 3 of spades leads), dealt by the lowest occupied seat.",
        seating={"staying": [0, 3], "newcomers": [{"seat": 1, "playerId": "phuong", "bankroll": "2000"}]},
        must={"game": {"toAct": 0, "events": [{"seatVacated": {"seat": 2, "playerId": "chi", "total": "200"}}, {"seatTaken": {"seat": 1, "playerId": "phuong"}}, {"gameStarted": {"leader": 0, "firstGame": True, "dealer": 0, "mustInclude": {"$card": "3S"}}}]}},
    )  # fmt: skip
    s.play(0, "3S")
    s.pass_(1)
    s.pass_(3)
    s.host_play(
        0,
        "2S",
        note="The host's own request (with its deal key) is told who could chop the 2 out of turn: seat 3. The pause signal chopOpen is public.",
        must={"game": {"chopSeats": [3], "chopOpen": True}},
    )  # fmt: skip
    s.play(
        3,
        "3C 3D 4C 4D 5C 5D 6C 6D",
        note="A player's own request is not told who could chop; seat 3 chops out of turn.",
        must={"game": {"chopSeats": [], "events": {"$contains": [played(3, "CONSECUTIVE_PAIRS", 4, "6D", "3C 3D 4C 4D 5C 5D 6C 6D", 1, chop=True, out_of_turn=True)]}}},
    )  # fmt: skip
    s.pass_(0)
    s.pass_(1, must={"game": {"events": {"$contains": [passed(1), {"chopSettled": {"payer": 0, "payee": 3, "amount": "50"}}]}}})  # fmt: skip
    s.play(3, "KD", must=over([-50, -400, 0, 450], [2, 3, 0, 1]))
