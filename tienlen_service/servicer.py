"""The gRPC servicer of `tienlen.v1.TienLenEngine`: one thin method per RPC.

Each method decodes (the state token via `TokenCodec.decode`, then `codec`), calls the engine,
and encodes the answer. It decides no rule. Every domain error is turned into a rich status in
one place, `_rpc`, by `statuses.error_status` (the table of codes and reasons is there).

Long work watches its call: a bot's search (`searches.Search`) stops when the caller cancelled
hung up or its deadline passed (one contract for every transport: `call_context.CallContext`),
and at most `search_slots(workers)` searches run at once.

PlayStream answers a refused move inside the stream instead (`PlayStreamError`: the code, the
reason and the metadata of the status ApplyMove would have ended with) and goes on. Every RPC
is a pure function of its request (the service keeps no state between calls).
"""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING, Final, TypeVar

import grpc

import tienlen_rules as engine
from tienlen.v1 import game_pb2, service_pb2, service_pb2_grpc
from tienlen_rules import (
    SPECTATOR,
    IllegalMove,
    view,
)
from tienlen_service import codec, records
from tienlen_service.codec import FieldError
from tienlen_service.counting import DomainCounts
from tienlen_service.dealing import Dealer, requested_deal
from tienlen_service.key_use import KeyUse
from tienlen_service.paging import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    page_fingerprint,
    page_offset,
    page_token,
)
from tienlen_service.searches import DEFAULT_BOT, Search
from tienlen_service.seats import Seats
from tienlen_service.state_cache import StateCache
from tienlen_service.statuses import (
    DOMAIN_ERRORS,
    TOO_MANY_STREAMS,
    UNKNOWN_BOT,
    abort,
    error_status,
    rich_status,
    stream_refusal,
)
from tienlen_service.streams import MAX_REQUEST_BYTES_HEADER, answer_message

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from tienlen_rules import Event, GameState
    from tienlen_service.keys import DealKey
    from tienlen_service.metrics import Metrics
    from tienlen_service.tokens import TokenCodec

SERVICE_NAME: Final = "tienlen.v1.TienLenEngine"
Req = TypeVar("Req")
Resp = TypeVar("Resp")
Self_ = TypeVar("Self_", bound="TienLenServicer")


def stream_slots(workers: int) -> int:
    """How many PlayStream calls a server with `workers` call threads serves at once: half of
    them (one worker: none). Each open stream holds a thread for its whole life, on the
    stream pool (`budget.WorkerPools`), never one of the `workers`."""
    return workers // 2


def _rpc(
    method: Callable[[Self_, Req, grpc.ServicerContext], Resp],
) -> Callable[[Self_, Req, grpc.ServicerContext], Resp]:
    """Run an RPC body; turn a domain error into its rich status (and count it)."""

    @functools.wraps(method)
    def wrapper(self: Self_, request: Req, context: grpc.ServicerContext) -> Resp:
        try:
            return method(self, request, context)
        except DOMAIN_ERRORS as exc:
            seat = getattr(request, "seat", None)
            self._counts.refusal(exc, method.__name__)
            status = error_status(exc, seat if isinstance(seat, int) else None)
            if status is None:  # pragma: no cover - every caught type has a status
                raise
            abort(context, status)

    return wrapper


# --------------------------------------------------------------------------------------------
# The servicer


class TienLenServicer(service_pb2_grpc.TienLenEngineServicer):
    """`tienlen.v1.TienLenEngine`: decode, call the engine, encode. Holds no game state: its
    `StateCache` of recent states only saves verifies and decodes (every answer is the
    same without it).

    `tokens` signs and verifies state tokens and seat tokens; `metrics` counts the domain
    events; `require_seat_tokens` makes every call made for a seat carry that seat's token;
    `deal_key` is the host's credential for seeded and explicit deals (see `dealing.Dealer`);
    `max_streams` is how many PlayStream calls may be open at once (see `stream_slots`);
    `max_searches` how many bot searches may run at once (see `search_slots`);
    `max_request_bytes`, the transport's request limit, is told at the start of each
    PlayStream (`streams.MAX_REQUEST_BYTES_HEADER`) so that clients batch under it.
    """

    def __init__(
        self,
        *,
        tokens: TokenCodec,
        metrics: Metrics,
        require_seat_tokens: bool = False,
        deal_key: DealKey | None = None,
        max_streams: int = 1,
        max_searches: int = 1,
        max_request_bytes: int | None = None,
    ) -> None:
        self._tokens = tokens
        self._metrics = metrics
        self._counts = DomainCounts(metrics)
        self._require_seat_tokens = require_seat_tokens
        self._dealer = Dealer(deal_key, require_seat_tokens=require_seat_tokens)
        self._seats = Seats(tokens, self._dealer, require_seat_tokens=require_seat_tokens)
        self._max_streams = max_streams
        self._streams = threading.BoundedSemaphore(max_streams)
        self._stream_headers = (
            ()
            if max_request_bytes is None
            else ((MAX_REQUEST_BYTES_HEADER, str(max_request_bytes)),)
        )
        self._search = Search(metrics=metrics, max_searches=max_searches)
        self._states = StateCache(missed=metrics.tokens_decoded.inc)
        self._verify = tokens.decode  # bound once: every call may verify
        self._key_use = KeyUse(metrics, tokens.keyring.kids)
        self._admit = tokens.admit  # bound once, as `_verify`: every call admits its token
        self._verified = self._key_use.state_tokens  # the state tokens' series, by key id

    # --- RPCs ---------------------------------------------------------------------------------

    @_rpc
    def NewGame(  # noqa: N802 - the RPC's name
        self, request: service_pb2.NewGameRequest, context: grpc.ServicerContext
    ) -> service_pb2.NewGameResponse:
        """Deal the first game of a match."""
        del context
        self._dealer.check(request)
        rules = codec.rules_from_pb(request.rules)
        seed, hands = requested_deal(request)
        players = request.players or (
            len(hands) if hands is not None else (3 if rules.deal_all_cards else 4)
        )
        state, events = engine.new_game(
            rules,
            players,
            seed=seed,
            hands=hands,
            first_game=request.first_game if request.HasField("first_game") else True,
            leader=request.leader if request.HasField("leader") else None,
            dealer=request.dealer,
            player_ids=list(request.player_ids),
            bankrolls=list(request.bankrolls),
        )
        game_id = codec.new_game_id()
        response = service_pb2.NewGameResponse(seat_tokens=self._seats.new_match(state, game_id))
        self._update(response.game, state, game_id, events)
        return response

    @_rpc
    def ApplyMove(  # noqa: N802
        self, request: service_pb2.ApplyMoveRequest, context: grpc.ServicerContext
    ) -> service_pb2.ApplyMoveResponse:
        """Apply a seat's move (the answer as a message; the ports send `apply_move_wire`'s
        bytes of the same answer)."""
        del context
        return service_pb2.ApplyMoveResponse.FromString(self._apply(request))

    @_rpc
    def apply_move_wire(
        self, request: service_pb2.ApplyMoveRequest, context: grpc.ServicerContext
    ) -> bytes:
        """ApplyMove, answered with its response's wire bytes (see `method_handlers`)."""
        del context
        return self._apply(request)

    def PlayStream(  # noqa: N802
        self,
        request_iterator: Iterable[service_pb2.PlayStreamRequest],
        context: grpc.ServicerContext,
    ) -> Iterator[service_pb2.PlayStreamResponse]:
        """PlayStream with each answer as a message (the ports send `play_stream_wire`'s)."""
        for answer in self.play_stream_wire(request_iterator, context):
            yield service_pb2.PlayStreamResponse.FromString(answer)

    def play_stream_wire(
        self,
        request_iterator: Iterable[service_pb2.PlayStreamRequest],
        context: grpc.ServicerContext,
    ) -> Iterator[bytes]:
        """ApplyMove per message (or per move of a batch: `streams`), answered in order (each
        answer a PlayStreamResponse's wire bytes); a refused move is answered in-band."""
        if not self._streams.acquire(blocking=False):
            abort(
                context,
                rich_status(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    TOO_MANY_STREAMS,
                    f"this replica serves at most {self._max_streams} PlayStream calls at once;"
                    " use ApplyMove, or another replica",
                ),
            )
        try:
            if self._stream_headers:
                context.send_initial_metadata(self._stream_headers)
            for request in request_iterator:
                yield answer_message(request, self._stream_step)
        finally:
            self._streams.release()

    def _apply(self, request: service_pb2.ApplyMoveRequest) -> bytes:
        """ApplyMove's body (shared with PlayStream): the wire bytes of its answer; raises the
        domain errors."""
        with_view = _with_view(request.view)
        state, game_id = self._seat_state(request.state_token, request.seat, request.seat_token)
        move = codec.move_from_pb(request.move, request.seat)
        new_state, events = engine.apply(state, move)
        update = self._update_wire(
            new_state,
            game_id,
            events,
            applied=True,
            with_view=with_view,
            chops=self._seats.chops(request.deal_key),
        )
        return codec.apply_answer_wire(update)

    def _stream_step(self, tag: str, move: service_pb2.ApplyMoveRequest) -> bytes:
        """One move of a PlayStream message (its answer's wire bytes): applied, or the error
        ApplyMove would have ended with."""
        try:
            answer = self._apply(move)
        except DOMAIN_ERRORS as exc:
            self._counts.refusal(exc, "ApplyMove")
            status = error_status(exc, move.seat)
            if status is None:  # pragma: no cover - every caught type has a status
                raise
            return stream_refusal(tag, status)
        return codec.stream_applied_wire(tag, answer)

    @_rpc
    def ValidateMove(  # noqa: N802
        self, request: service_pb2.ValidateMoveRequest, context: grpc.ServicerContext
    ) -> service_pb2.ValidateMoveResponse:
        """Dry run: is the move legal, and what does it form."""
        del context
        state, _ = self._seat_state(request.state_token, request.seat, request.seat_token)
        move = codec.move_from_pb(request.move, request.seat)
        try:
            combo = engine.validate(state, move)
        except IllegalMove as exc:
            return service_pb2.ValidateMoveResponse(
                legal=False, reason=str(exc.reason), message=exc.message
            )
        if combo is None:
            return service_pb2.ValidateMoveResponse(legal=True)
        return service_pb2.ValidateMoveResponse(
            legal=True,
            combination=codec.combination_to_pb(combo),
            chop=engine.chops(state, combo),
        )

    @_rpc
    def ListLegalMoves(  # noqa: N802
        self, request: service_pb2.ListLegalMovesRequest, context: grpc.ServicerContext
    ) -> service_pb2.ListLegalMovesResponse:
        """A page of a seat's legal moves, with counts per group."""
        del context
        state, _ = self._seat_state(request.state_token, request.seat, request.seat_token)
        if request.page_size < 0:
            raise FieldError(codec.INVALID_ARGUMENT, "page_size", "must not be negative")
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        kind = codec.kind_from_pb(request.filter.type, "filter.type")
        length = request.filter.length
        if length < 0:
            raise FieldError(codec.INVALID_ARGUMENT, "filter.length", "must not be negative")
        listing = engine.legal_listing(state, request.seat)
        moves = listing.matching(kind, length)
        total = len(moves)
        fingerprint = page_fingerprint(request)
        offset = page_offset(request.page_token, fingerprint, total)
        end = min(offset + size, total)
        return service_pb2.ListLegalMovesResponse(
            moves=[codec.legal_move_to_pb(move) for move in moves[offset:end]],
            total_size=total,
            next_page_token=page_token(end, fingerprint) if end < total else "",
            group_counts=codec.group_counts_to_pb(listing.groups),
            can_pass=listing.can_pass,
        )

    @_rpc
    def GetView(  # noqa: N802
        self, request: service_pb2.GetViewRequest, context: grpc.ServicerContext
    ) -> service_pb2.GetViewResponse:
        """A seat's view (its own hand) or a spectator's (no hands)."""
        del context
        if not request.HasField("seat"):
            state, _ = self._decode(request.state_token)
            return _view_response(state, SPECTATOR, chops=self._seats.chops(request.deal_key))
        state, _ = self._seat_state(request.state_token, request.seat, request.seat_token)
        return _view_response(state, request.seat)

    @_rpc
    def NextGame(  # noqa: N802
        self, request: service_pb2.NextGameRequest, context: grpc.ServicerContext
    ) -> service_pb2.NextGameResponse:
        """The next game of the match (same game id: the seat tokens stay valid). A random
        deal is fixed by the finished game (`TokenCodec.deal_seed`): asking again deals the
        same hands."""
        del context
        self._dealer.check(request)
        state, game_id = self._decode(request.state_token)
        seed, hands = requested_deal(request)
        changes = codec.seating_from_pb(request.seating) if request.HasField("seating") else None
        chips = list(request.bankrolls)
        if hands is None and seed is None and (request.HasField("random") or state.match.seed < 0):
            # A random deal, drawn from a seed only the service can derive from this game, so
            # that nobody can re-deal until the hands suit them. The match keeps its own seed
            # (or none), so later games go on as the match deals.
            number = state.match.game_number + 1
            dealt = self._tokens.deal_seed(request.state_token, game_id, number)
            new_state, events = engine.next_game(
                state, seed=dealt, changes=changes, bankrolls=chips
            )
            new_state = new_state._replace(match=new_state.match._replace(seed=state.match.seed))
        else:
            new_state, events = engine.next_game(
                state, seed=seed, hands=hands, changes=changes, bankrolls=chips
            )
        response = service_pb2.NextGameResponse(
            seat_tokens=self._seats.newcomers(new_state, game_id, events)
        )
        self._update(
            response.game, new_state, game_id, events, chops=self._seats.chops(request.deal_key)
        )
        return response

    @_rpc
    def DescribeRules(  # noqa: N802
        self, request: service_pb2.DescribeRulesRequest, context: grpc.ServicerContext
    ) -> service_pb2.DescribeRulesResponse:
        """Every preset and every option."""
        del request, context
        return codec.describe_rules_to_pb()

    @_rpc
    def SuggestMove(  # noqa: N802
        self, request: service_pb2.SuggestMoveRequest, context: grpc.ServicerContext
    ) -> service_pb2.SuggestMoveResponse:
        """A bot's suggestion for a seat (not applied). A search (`SEARCH_BOTS`) watches its
        call and stops when nobody waits for it; at most `max_searches` run at once."""
        state, _ = self._seat_state(request.state_token, request.seat, request.seat_token)
        name = request.bot or DEFAULT_BOT
        if name not in engine.BOTS and name not in engine.LEVELS_BY_NAME:
            # Names only: bot parameters (playouts, time budgets) are not for callers to set.
            known = ", ".join([*sorted(engine.BOTS), *(level.name for level in engine.LEVELS)])
            raise FieldError(UNKNOWN_BOT, "bot", f"unknown bot {name!r}; known: {known}")
        # A finished game runs no bot: nothing to suggest, as ListLegalMoves lists no move.
        hint = None if state.over else self._search(state, request, name, context)
        if hint is None:
            return service_pb2.SuggestMoveResponse(bot=name)
        combo = engine.validate(state, hint.move)
        return service_pb2.SuggestMoveResponse(
            move=codec.move_to_pb(hint.move),
            combination=None if combo is None else codec.combination_to_pb(combo),
            bot=name,
            reason=hint.reason,
            explanation=hint.explanation,
            candidates=[
                service_pb2.CandidateMove(
                    move=codec.move_to_pb(c.move), value=c.value, samples=c.samples
                )
                for c in hint.candidates
            ],
        )

    @_rpc
    def ReplayGame(  # noqa: N802
        self, request: service_pb2.ReplayGameRequest, context: grpc.ServicerContext
    ) -> service_pb2.ReplayGameResponse:
        """Replay a game record move by move (`records.replay`); a new match's answer."""
        del context
        with_view = _with_view(request.view)
        state, events = records.replay(request.record)
        game_id = codec.new_game_id()
        response = service_pb2.ReplayGameResponse(seat_tokens=self._seats.new_match(state, game_id))
        self._update(response.game, state, game_id, events, with_view=with_view)
        return response

    # --- helpers ------------------------------------------------------------------------------

    def _decode(self, token: bytes) -> tuple[GameState, bytes]:
        """Verify a state token and rebuild its state; TokenError / StateDecodeError if not
        (TOKEN_EXPIRED past `--max-token-age`). Counts the token under its key id."""
        decoded = self._states.decode(token, self._verify)
        verified = self._verified.get(self._admit(token))  # KeyUse.state_token, inlined
        if verified is not None:
            verified.inc()
        return decoded

    def _seat_state(self, token: bytes, seat: int, seat_token: str) -> tuple[GameState, bytes]:
        """Decode the state of a call made for `seat` and let it in (`Seats.check`)."""
        state, game_id = self._decode(token)
        places = state.places
        # Without seat tokens an occupied seat of the table needs no more (every call's path).
        if self._require_seat_tokens or not 0 <= seat < len(places) or places[seat] < 0:
            vouched = self._seats.check(state, game_id, seat, seat_token)
            if vouched is not None:
                self._key_use.seat_token(vouched)
        return state, game_id

    def _update(
        self,
        update: game_pb2.GameUpdate,
        state: GameState,
        game_id: bytes,
        events: Sequence[Event],
        *,
        with_view: bool = True,
        chops: bool = True,
    ) -> None:
        """Fill the (empty) GameUpdate of an answer with a step (`_update_wire`). Filled in
        place: building the update apart and assigning it would copy every message in it."""
        update.MergeFromString(
            self._update_wire(state, game_id, events, with_view=with_view, chops=chops)
        )

    def _update_wire(
        self,
        state: GameState,
        game_id: bytes,
        events: Sequence[Event],
        *,
        applied: bool = False,
        with_view: bool = True,
        chops: bool = True,
    ) -> bytes:
        """The GameUpdate of a step as wire bytes (`codec.update_to_wire`: the new state token,
        the events, the view unless UPDATE_VIEW_BASIC, the game id and numbers a host keeps to
        refuse stale tokens, docs/SECURITY.md), and the step's domain metrics counted."""
        self._counts.step(state.rules, events, applied=applied)
        token = self._states.encode(state, game_id, self._tokens.encode)
        return codec.update_to_wire(token, game_id, state, events, with_view=with_view, chops=chops)


# --------------------------------------------------------------------------------------------
# Small pure helpers


def _with_view(value: int) -> bool:
    """Whether a GameUpdate carries the view (`UpdateView`); FieldError for an unknown value."""
    if value == game_pb2.UPDATE_VIEW_BASIC:
        return False
    if value in (game_pb2.UPDATE_VIEW_UNSPECIFIED, game_pb2.UPDATE_VIEW_FULL):
        return True
    raise FieldError(codec.INVALID_ARGUMENT, "view", f"{value} is not an UpdateView")


def _view_response(
    state: GameState, seat: int, *, chops: bool = True
) -> service_pb2.GetViewResponse:
    response = service_pb2.GetViewResponse()
    response.view.MergeFromString(codec.view_to_wire(view(state, seat), state, chops=chops))
    return response
