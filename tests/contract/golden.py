"""Writing golden conversations: a small script language that runs each call against the real
server as it is written, checks the rule-book facts the author states (`must=`), and records
the answer's deterministic fields as the step's expectation.

Used by tests/contract/generate.py. The recorded expectations are reviewed by a person against
RULES.md before they are committed: `must=` holds the facts derived from the rule book by hand
(places, nets, chop payments, who acts), so a recording that disagrees with the rules stops the
generator instead of becoming a golden file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import grpc

from tienlen.v1 import service_pb2_grpc

from . import runner

ENGINE_REASONS: Final = frozenset(
    {
        "NOT_YOUR_TURN", "CARD_NOT_IN_HAND", "DUPLICATE_CARD", "EMPTY_PLAY", "NOT_A_COMBINATION",
        "MUST_INCLUDE_STARTING_CARD", "DOES_NOT_BEAT", "WRONG_TYPE_OR_LENGTH",
        "LOCKED_OUT_OF_ROUND", "LEADER_CANNOT_PASS", "GAME_OVER", "SEAT_FINISHED", "INVALID_SEAT",
        "CANNOT_STEAL_LEAD", "GAME_NOT_OVER", "MATCH_OVER", "SEAT_EMPTY", "SEAT_LEFT",
        "LEAVE_REFUSED", "BANKROLL_TOO_LOW",
    }
)  # fmt: skip
DEAL_KEY: Final = (runner.REPO / "tests" / "contract" / "deal-key.txt").read_text().strip()
"""The contract server's deal key (server.json): the host's, sent with seeded and explicit
deals. A public test key, like the conversations' signing key."""
_RANK_TEXT: Final = {v: k for k, v in runner._RANKS.items()}
_SUIT_TEXT: Final = {v: k for k, v in runner._SUITS.items()}


class GenerationError(AssertionError):
    """The server's answer contradicts what the author derived from the rules."""


def cards(text: str) -> dict[str, str]:
    """The card shorthand of a list of cards."""
    return {"$cards": text}


def _card_text(card: Any) -> str | None:
    """The card text of a recorded card, or None if `card` is not one. A card answered over
    gRPC carries an empty `text` (the web port's JSON fills it): the shorthand stands for it
    too, since the runners compare an expected card's rank and suit only."""
    if isinstance(card, dict) and set(card) - {"text"} == {"rank", "suit"}:
        rank, suit = _RANK_TEXT.get(card["rank"]), _SUIT_TEXT.get(card["suit"])
        if rank and suit and card.get("text", "") in {"", rank + suit}:
            return rank + suit
    return None


def contract(node: Any) -> Any:
    """Write recorded cards back in the shorthand (the inverse of `runner.expand`)."""
    if isinstance(node, dict):
        text = _card_text(node)
        if text is not None:
            return {"$card": text}
        return {k: contract(v) for k, v in node.items()}
    if isinstance(node, list):
        texts = [_card_text(c) for c in node]
        if node and all(texts):
            return {"$cards": " ".join(t for t in texts if t)}
        return [contract(v) for v in node]
    return node


def ordered(node: Any, descriptor: Any) -> Any:
    """The answer's keys in the order the proto declares its fields (easier to review)."""
    if not isinstance(node, dict) or descriptor is None:
        return node
    fields = {f.json_name: f for f in descriptor.fields}
    out = {}
    for key in sorted(node, key=lambda k: fields[k].index if k in fields else 999):
        value = node[key]
        field = fields.get(key)
        sub = field.message_type if field is not None and field.message_type is not None else None
        if sub is not None and sub.GetOptions().map_entry:
            sub = None
        out[key] = (
            [ordered(v, sub) for v in value] if isinstance(value, list) else ordered(value, sub)
        )
    return out


# --------------------------------------------------------------------------------------------
# What a step's expectation keeps of an answer


_VIEW_KEYS: Final = (
    "seat", "hand", "players", "seats", "table", "tableSeat", "toAct", "mustInclude", "finished",
    "firstGame", "gameNumber", "dealer", "stealOpen", "moveCount", "chopSeats", "chopOpen",
)  # fmt: skip


def project_view(view: dict[str, Any], *, played: bool) -> dict[str, Any]:
    """The view's deterministic fields; absent presence fields are written as null."""
    out = {k: view.get(k) for k in _VIEW_KEYS}
    if "seat" not in view:
        out["seat"] = None
    out["rules"] = view.get("rules")
    out["followRules"] = view.get("followRules")
    if played:
        out["played"] = view.get("played")
    return out


_STEP_VIEW_KEYS: Final = (
    "seats",
    "table",
    "tableSeat",
    "toAct",
    "mustInclude",
    "finished",
    "stealOpen",
    "moveCount",
    "chopSeats",
    "chopOpen",
)


def project_update(game: dict[str, Any], *, full_view: bool) -> dict[str, Any]:
    """A GameUpdate's deterministic fields: everything but the opaque state token. After a
    move, the view keeps what a move changes (the rules, players and game number are checked
    where a game is dealt). No view (UPDATE_VIEW_BASIC) is recorded as null."""
    view: dict[str, Any] | None = None
    if "view" in game:
        view = project_view(game["view"], played=False)
        if not full_view:
            view = {k: view[k] for k in _STEP_VIEW_KEYS}
    return {
        "events": game["events"],
        "toAct": game.get("toAct"),
        "finished": game["finished"],
        "settlement": game.get("settlement"),
        "view": view,
        # Which state this is (the game id is random: recorded as present).
        "gameId": {"$present": True} if game.get("gameId") else None,
        "gameNumber": game.get("gameNumber"),
        "moveNumber": game.get("moveNumber"),
        "chopSeats": game.get("chopSeats"),
        "chopOpen": game.get("chopOpen"),
    }


def project(rpc: str, answer: dict[str, Any]) -> dict[str, Any]:
    """What a successful step's expectation keeps of its answer."""
    if rpc == "NewGame":
        return {
            "game": project_update(answer["game"], full_view=True),
            "seatTokens": {"$len": len(answer["seatTokens"])},
        }
    if rpc == "NextGame":  # a newcomer's seat token is random: recorded as present
        return {
            "game": project_update(answer["game"], full_view=True),
            "seatTokens": [{"$present": True} if t else "" for t in answer["seatTokens"]],
        }
    if rpc == "ReplayGame":  # a game dealt again and played to the record's end: a new match
        return {
            "game": project_update(answer["game"], full_view=True),
            "seatTokens": {"$len": len(answer["seatTokens"])},
        }
    if rpc == "ApplyMove":
        return {"game": project_update(answer["game"], full_view=False)}
    if rpc == "GetView":
        return {"view": project_view(answer["view"], played=True)}
    if rpc == "ListLegalMoves":
        out = dict(answer)
        if out.get("nextPageToken"):
            out["nextPageToken"] = {"$present": True}
        return out
    if rpc == "DescribeRules":
        return {
            "variants": [
                {"name": v["name"], "overrides": v["overrides"]} for v in answer["variants"]
            ],
            "options": [
                {k: o[k] for k in ("name", "type", "defaultValue", "choices", "minimum", "maximum")}
                for o in answer["options"]
            ],
        }
    return answer


# --------------------------------------------------------------------------------------------
# The script


class Script:
    """A conversation being written: every call runs at once against `stub`."""

    def __init__(
        self,
        stub: service_pb2_grpc.TienLenEngineStub,
        name: str,
        title: str,
        rules: tuple[str, ...] = (),
    ) -> None:
        self.stub = stub
        self.name = name
        self.title = title
        self.rules = rules
        self.steps: list[dict[str, Any]] = []
        self.answers: dict[int, dict[str, Any]] = {}
        self.game_step = 0
        self.state_step = 0
        # Seats whose token a NextGame gave (newcomers, RULES §9.1): the step that answered it.
        self.token_steps: dict[int, int] = {}

    # --- the generic call ---------------------------------------------------------------------

    def call(
        self,
        rpc: str,
        request: dict[str, Any],
        *,
        note: str = "",
        error: str | None = None,
        code: str | None = None,
        fields: list[str] | None = None,
        metadata: dict[str, str] | None = None,
        must: dict[str, Any] | None = None,
        keep: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run one step. `error`: the expected ErrorInfo reason (`code` defaults to
        FAILED_PRECONDITION for engine reasons, else INVALID_ARGUMENT); `fields`: the expected
        BadRequest fields; `metadata`: ErrorInfo metadata entries the refusal must carry;
        `must`: rule facts the answer must contain; `keep`: the expectation to write instead of
        the default projection."""
        number = len(self.steps) + 1
        where = f"{self.name} step {number}"
        resolved = runner.resolve(runner.expand(request), self.answers, where)
        step: dict[str, Any] = {"step": number, "rpc": rpc}
        if note:
            step["note"] = note
        step["request"] = request
        try:
            answer = runner.call(self.stub, rpc, resolved)
        except grpc.RpcError as exc:
            got = runner.error_json(exc)
            if error is None and code is None:
                raise GenerationError(f"{where} ({rpc}): refused {got}") from None
            expect: dict[str, Any] = {
                "code": code
                or ("FAILED_PRECONDITION" if error in ENGINE_REASONS else "INVALID_ARGUMENT")
            }
            expect["reason"] = error
            expect["fieldViolations"] = fields if fields is not None else got["fieldViolations"]
            if metadata is not None:
                expect["metadata"] = metadata
            found = runner.check_refusal(expect, got)
            if found:
                raise GenerationError(f"{where} ({rpc}): {found} — got {got}") from None
            step["expect"] = expect
            self.steps.append(step)
            return got
        if error is not None or code is not None or metadata is not None:
            raise GenerationError(f"{where} ({rpc}): expected {code or ''} {error}, got OK")
        if must is not None:
            found = runner.compare(runner.expand(must), answer, "")
            if found:
                raise GenerationError(
                    f"{where} ({rpc}): rule check failed at {found[0]}: {found[1]}"
                )
        self.answers[number] = answer
        shown = ordered(answer, runner.RESPONSES[rpc].DESCRIPTOR)
        step["expect"] = {
            "code": "OK",
            "response": contract(keep if keep is not None else project(rpc, shown)),
        }
        self.steps.append(step)
        if rpc in {"NewGame", "ReplayGame"}:  # both answer a new match's seat tokens
            self.game_step = self.state_step = number
            self.token_steps = {}
        elif rpc in {"ApplyMove", "NextGame"}:
            self.state_step = number
        if rpc == "NextGame":  # a newcomer's token, from this answer on
            for seat, token in enumerate(answer.get("seatTokens", [])):
                if token:
                    self.token_steps[seat] = number
        return answer

    def peek(self, rpc: str, request: dict[str, Any]) -> dict[str, Any]:
        """Ask the server without writing a step (e.g. to choose the next move of a long game)."""
        where = f"{self.name} (peek)"
        return runner.call(
            self.stub, rpc, runner.resolve(runner.expand(request), self.answers, where)
        )

    # --- conveniences -------------------------------------------------------------------------

    def new_game(
        self,
        hands: list[str] | None = None,
        *,
        seed: int | None = None,
        variant: str | None = None,
        options: dict[str, str] | None = None,
        players: int | None = None,
        first_game: bool | None = None,
        leader: int | None = None,
        dealer: int | None = None,
        **kw: Any,
    ) -> dict[str, Any]:
        """NewGame with an explicit deal (hands in card text), a seed, or neither (random)."""
        request: dict[str, Any] = {}
        if variant is not None or options is not None:
            request["rules"] = {
                k: v for k, v in (("variant", variant), ("options", options)) if v is not None
            }
        if players is not None:
            request["players"] = players
        if hands is not None:
            request["explicit"] = {"hands": [{"cards": cards(h)} for h in hands]}
        if seed is not None:
            request["seed"] = str(seed)
        if hands is not None or seed is not None:
            request["dealKey"] = DEAL_KEY  # the host's: only it chooses a deal
        if first_game is not None:
            request["firstGame"] = first_game
        if leader is not None:
            request["leader"] = leader
        if dealer is not None:
            request["dealer"] = dealer
        for name in ("playerIds", "bankrolls"):  # a live table's people (RULES §9)
            if name in kw:
                request[name] = kw.pop(name)
        return self.call("NewGame", request, **kw)

    def _seat_request(self, seat: int, **extra: Any) -> dict[str, Any]:
        request = {
            "stateToken": {"$stateFrom": self.state_step},
            "seat": seat,
            "seatToken": {"$seatToken": [self.token_steps.get(seat, self.game_step), seat]},
        }
        request.update(extra)
        return request

    def play(self, seat: int, text: str, *, view: str | None = None, **kw: Any) -> dict[str, Any]:
        """ApplyMove: `seat` plays the cards `text` (`view`: an UpdateView name, if any)."""
        extra = {} if view is None else {"view": view}
        return self.call(
            "ApplyMove",
            self._seat_request(seat, move={"play": {"cards": cards(text)}}, **extra),
            **kw,
        )

    def pass_(self, seat: int, **kw: Any) -> dict[str, Any]:
        """ApplyMove: `seat` passes."""
        return self.call("ApplyMove", self._seat_request(seat, move={"passTurn": {}}), **kw)

    def timeout(self, seat: int, **kw: Any) -> dict[str, Any]:
        """ApplyMove: the host's time-out of `seat` (RULES §9.3)."""
        return self.call("ApplyMove", self._seat_request(seat, move={"timeout": {}}), **kw)

    def leave(self, seat: int, **kw: Any) -> dict[str, Any]:
        """ApplyMove: `seat`'s player leaves during the game (RULES §9.4)."""
        return self.call("ApplyMove", self._seat_request(seat, move={"leave": {}}), **kw)

    def host_play(self, seat: int, text: str, **kw: Any) -> dict[str, Any]:
        """ApplyMove as the host sends it (with the deal key: its answer names the seats that
        could chop out of turn, RULES §9.5)."""
        request = self._seat_request(seat, move={"play": {"cards": cards(text)}}, dealKey=DEAL_KEY)
        return self.call("ApplyMove", request, **kw)

    def validate(self, seat: int, text: str | None, **kw: Any) -> dict[str, Any]:
        """ValidateMove of a play (`text`) or of a pass (None)."""
        move = {"passTurn": {}} if text is None else {"play": {"cards": cards(text)}}
        return self.call("ValidateMove", self._seat_request(seat, move=move), **kw)

    def view(self, seat: int | None, **kw: Any) -> dict[str, Any]:
        """GetView for a seat, or the spectator view (None)."""
        if seat is None:
            return self.call("GetView", {"stateToken": {"$stateFrom": self.state_step}}, **kw)
        return self.call("GetView", self._seat_request(seat), **kw)

    def next_game(
        self, hands: list[str] | None = None, *, seed: int | None = None, **kw: Any
    ) -> dict[str, Any]:
        """NextGame, with an explicit deal, a seed or the match's own deal."""
        request: dict[str, Any] = {"stateToken": {"$stateFrom": self.state_step}}
        if hands is not None:
            request["explicit"] = {"hands": [{"cards": cards(h)} for h in hands]}
        if seed is not None:
            request["seed"] = str(seed)
        if hands is not None or seed is not None:
            request["dealKey"] = DEAL_KEY
        for name in ("seating", "bankrolls"):  # the table's people (RULES §9.1, §9.2)
            if name in kw:
                request[name] = kw.pop(name)
        return self.call("NextGame", request, **kw)

    def legal(self, seat: int, **kw: Any) -> dict[str, Any]:
        """ListLegalMoves for a seat; extra request fields via `extra=`."""
        extra = kw.pop("extra", {})
        return self.call("ListLegalMoves", self._seat_request(seat, **extra), **kw)

    # --- output -------------------------------------------------------------------------------

    def write(self, directory: Path) -> Path:
        """Write the conversation file."""
        data = {"title": self.title, "rules": list(self.rules), "steps": self.steps}
        path = directory / f"{self.name}.json"
        path.write_text(dumps(data) + "\n", encoding="utf-8")
        return path


def dumps(node: Any, indent: int = 0, width: int = 150) -> str:
    """JSON with small objects and lists on one line, so a reviewer can read a step."""
    flat = json.dumps(node, ensure_ascii=False)
    if len(flat) + indent <= width or not isinstance(node, dict | list) or not node:
        return flat
    pad = " " * (indent + 2)
    if isinstance(node, dict):
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 2, width)}"
            for k, v in node.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps(v, indent + 2, width) for v in node]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
