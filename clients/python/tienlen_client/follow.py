"""Following a table from the events: the spectator view after an `UPDATE_VIEW_BASIC` answer.

An ApplyMove (or PlayStream) answer asked with ``view = UPDATE_VIEW_BASIC`` carries the new
state token, the step's events, `to_act`, `finished` and the settlement, but no spectator
`TableView`. The events say everything that changed (events.proto; docs/FRONTEND.md,
"Following a table from the events"), so the view after the step is the view before it
advanced by its events: `advance`, one function per event type below.

Three rule options change what an event means: ``pass_lockout`` (does a play clear every
pass?), ``lead_stealing`` (is ``steal_open`` set at a deal?) and ``steal_winner_pairs_lead``
(does the previous winner's own lead of 3 consecutive pairs keep it open?). The events don't
carry them and `TableView.rules` names only the preset and the options the game sets, so every
view carries the values the service resolved for its game (`TableView.follow_rules`), and the
fold carries them forward like the other fields set at the deal. A client needs nothing else: no
DescribeRules, whose preset values a deployment may change while the client runs.

Nothing here guesses: when an answer can't be followed — an event kind this client doesn't
know (a newer service), a previous view that isn't a spectator's or has no `follow_rules` (a
service older than that field), or events that disagree with the answer's own `to_act` /
`finished` — `advance` raises `CannotFollow` and the caller asks for the view instead (the
client does, with GetView). `apply_request` asks for the full view up front when the previous
view can't be followed.

Pure: protobuf messages in, a new message out; no I/O, the inputs are never changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from tienlen.v1 import cards_pb2, events_pb2, game_pb2, moves_pb2, service_pb2
from tienlen_client.models import Game, View

UpdateView = Literal["full", "basic"]
"""How much of a move's answer to ask for: ``"full"`` (the spectator view too; the default)
or ``"basic"`` (UPDATE_VIEW_BASIC: no view on the wire, the client follows it from the
events)."""

UPDATE_VIEWS: Final[tuple[UpdateView, ...]] = ("full", "basic")

MAX_SEATS: Final = 4
"""The most seats a table has (RULES §9.1): a newcomer may sit in a seat beyond a smaller
table's, which grows it."""


def check_update_view(value: str) -> UpdateView:
    """`value` checked to be an `UpdateView`; ValueError otherwise."""
    for known in UPDATE_VIEWS:
        if value == known:
            return known
    raise ValueError(f"update_view must be one of {UPDATE_VIEWS}, not {value!r}")


FOLLOWED_FIELDS: Final = frozenset(
    {
        # set at the deal and never changed by a move: copied from the previous view
        "seat",
        "hand",
        "players",
        "rules",
        "first_game",
        "game_number",
        "dealer",
        "follow_rules",
        # the match's, never changed (a replayed match's next games are replayed too)
        "replayed",
        # changed by the events
        "seats",
        "table",
        "table_seat",
        "to_act",
        "must_include",
        "finished",
        "played",
        "steal_open",
        "move_count",
        # the host's out-of-turn chops (RULES §9.5): every answer carries them
        "chop_seats",
        "chop_open",
    }
)
"""Every TableView field `advance` keeps right. A field added to TableView and not here would
be copied from the previous view unchanged, perhaps stale: the client's tests compare this set
with the generated message, so such a field fails them until it is followed here."""

FOLLOWED_SEAT_FIELDS: Final = frozenset(
    {
        "seat",
        "cards_left",
        "place",
        "passed",
        "frozen",
        "has_played",
        "match_total",
        # a table of people (RULES §9)
        "empty",
        "auto",
        "left",
        "forfeited",
        "player_id",
        "timeouts",
        "bankroll",
    }
)
"""Every SeatStatus field `advance` keeps right (see FOLLOWED_FIELDS)."""


class CannotFollow(Exception):  # noqa: N818 - a condition, not a failure of the caller
    """An answer whose events can't be folded into the view (the message says why): ask for
    the view instead."""


def followable(view: game_pb2.TableView) -> str | None:
    """Why the answers to moves made from `view` can't be followed, or None when they can."""
    if view.HasField("seat"):
        return f"the previous view is seat {view.seat}'s, not a spectator's"
    if not view.HasField("follow_rules"):
        return "the previous view has no follow_rules (a service older than that field)"
    return None


def apply_request(
    game: Game, seat: int, wire_move: moves_pb2.Move, wanted: UpdateView, deal_key: str = ""
) -> service_pb2.ApplyMoveRequest:
    """The ApplyMoveRequest of a move on `game` (unary or streamed): UPDATE_VIEW_BASIC when a
    basic answer is `wanted` and `game.view` can be followed, else the full view is asked for
    up front (a view that can't be followed is never a reason for a GetView). `deal_key`: the
    host's, so that a service checking seat tokens names the chop seats (RULES §9.5)."""
    basic = wanted == "basic" and followable(game.view.raw) is None
    return service_pb2.ApplyMoveRequest(
        state_token=game.state,
        seat=seat,
        seat_token=game.seat_token(seat),
        move=wire_move,
        view=game_pb2.UPDATE_VIEW_BASIC if basic else game_pb2.UPDATE_VIEW_UNSPECIFIED,
        deal_key=deal_key,
    )


def advance(
    view: game_pb2.TableView, update: game_pb2.GameUpdate, previous_net: Sequence[int] = ()
) -> game_pb2.TableView:
    """The spectator view after `update`, from the spectator `view` before it and the
    update's events, with the option values of `view.follow_rules`. `previous_net`: the
    settlement nets of the game `view` shows, when it is over (a deal adds them to the match
    totals; ApplyMove never deals, so it is a safeguard). CannotFollow when the answer can't be
    followed (see the module doc)."""
    why = followable(view)
    if why is not None:
        raise CannotFollow(why)
    after = game_pb2.TableView()
    after.CopyFrom(view)
    nets = list(previous_net) or [0] * view.players
    timed_out = -1  # the seat whose time-out this answer plays: its moves are not its own
    for event in update.events:
        kind = event.WhichOneof("kind")
        if kind == "game_started":
            on_game_started(after, event.game_started, nets)
        elif kind == "played":
            on_played(after, event.played, own=event.played.seat != timed_out)
        elif kind == "passed":
            on_passed(after, event.passed, own=event.passed.seat != timed_out)
        elif kind == "chop_settled":
            on_chop_settled(after, event.chop_settled)
        elif kind == "round_won":
            on_round_won(after, event.round_won)
        elif kind == "player_finished":
            on_player_finished(after, event.player_finished)
        elif kind == "players_frozen":
            on_players_frozen(after, event.players_frozen)
        elif kind == "instant_win":
            on_instant_win(after, event.instant_win)
        elif kind == "turn_passed":
            on_turn_passed(after, event.turn_passed)
        elif kind == "game_over":
            on_game_over(after, event.game_over)
        elif kind == "timed_out":
            timed_out = on_timed_out(after, event.timed_out)
        elif kind == "auto_play":
            on_auto_play(after, event.auto_play)
        elif kind == "player_left":
            on_player_left(after, event.player_left)
        elif kind == "seat_vacated":
            on_seat_vacated(after, event.seat_vacated, nets)
        elif kind == "seat_taken":
            on_seat_taken(after, event.seat_taken, nets)
        else:  # None: a kind added to events.proto after this client was generated
            raise CannotFollow("an event of a kind this client does not know")
    # The host's out-of-turn chops come with every answer, not from the events.
    after.chop_open = update.chop_open
    del after.chop_seats[:]
    after.chop_seats.extend(update.chop_seats)
    # The answer says who acts and whether it is over independently of the events: a
    # disagreement means the fold went wrong somewhere, so nothing of it is trusted.
    followed = (after.to_act if after.HasField("to_act") else None, after.finished)
    answered = (update.to_act if update.HasField("to_act") else None, update.finished)
    if followed != answered:
        raise CannotFollow(
            f"the events give (to_act, finished) = {followed}, the answer says {answered}"
        )
    return after


def follow_game(previous: Game, update: game_pb2.GameUpdate) -> Game:
    """The Game after an UPDATE_VIEW_BASIC answer `update` to a move made on `previous`: its
    view followed from `previous.view` by the events (CannotFollow: see `advance`)."""
    net = previous.settlement.net if previous.settlement is not None else ()
    view = advance(previous.view.raw, update, net)
    return Game.from_pb(update, previous.seat_tokens, View.from_pb(view), previous=previous)


# --- one function per event type (each changes `view` in place) --------------------------------


def on_game_started(
    view: game_pb2.TableView,
    event: events_pb2.GameStarted,
    nets: Sequence[int],
) -> None:
    """A deal (chia bài): every seat starts again with its dealt cards (an empty seat is dealt
    none), match totals and bankrolls take the previous game's nets, nothing is on the table;
    the leader acts. Time-outs in a row and auto carry over (RULES §9.3)."""
    sizes = list(event.hand_sizes)
    if len(sizes) != view.players:
        raise CannotFollow(f"GameStarted gives {len(sizes)} hand sizes for {view.players} seats")
    if len(nets) != view.players:
        raise CannotFollow(f"{len(nets)} settlement nets for {view.players} seats")
    for seat, status in enumerate(view.seats):
        status.cards_left = sizes[seat]
        status.place = 0
        status.passed = False
        status.frozen = False
        status.has_played = False
        status.match_total += nets[seat]
        status.empty = sizes[seat] == 0
        status.left = False
        status.forfeited = False
        if status.HasField("bankroll"):
            status.bankroll += nets[seat]
    view.ClearField("table")
    view.ClearField("table_seat")
    view.to_act = event.leader
    if event.HasField("must_include"):
        view.must_include.CopyFrom(event.must_include)
    else:
        view.ClearField("must_include")
    view.finished = False
    view.first_game = event.first_game
    view.game_number = event.game_number
    view.dealer = event.dealer
    del view.played[:]
    # Cướp cái is open at the deal of every game that is not a first game (game.proto).
    view.steal_open = view.follow_rules.lead_stealing and not event.first_game
    view.move_count = 0


def on_played(view: game_pb2.TableView, event: events_pb2.Played, *, own: bool = True) -> None:
    """A play: it is the play to beat; the seat holds `cards_left` and is back in the round
    (an out-of-turn chop brings back a seat that had passed); the cards are public. `own`: the
    seat played it itself (not its time-out), so its time-outs in a row start again."""
    if own:
        _seat(view, event.seat).timeouts = 0
    if not view.follow_rules.pass_lockout:  # a pass locks no seat out: a play reopens them all
        for status in view.seats:
            status.passed = False
    status = _seat(view, event.seat)
    status.cards_left = event.cards_left
    status.has_played = True
    status.passed = False
    view.table.CopyFrom(event.combination)
    view.table_seat = event.seat
    view.ClearField("must_include")
    played = [_copy(c) for c in (*view.played, *event.combination.cards)]
    played.sort(key=lambda c: (c.rank, c.suit))  # both enums go weakest first
    del view.played[:]
    view.played.extend(played)
    # Only three consecutive pairs keep the lead open to stealing (a higher one steals back);
    # with steal_winner_pairs_lead off, only a steal (not the winner's own lead) does.
    three_pairs = (
        event.combination.type == moves_pb2.COMBINATION_TYPE_CONSECUTIVE_PAIRS
        and event.combination.length == 3
    )
    view.steal_open = view.steal_open and (
        three_pairs if view.follow_rules.steal_winner_pairs_lead else event.steal
    )
    view.move_count += 1


def on_passed(view: game_pb2.TableView, event: events_pb2.Passed, *, own: bool = True) -> None:
    """A pass (bỏ lượt); `own` as for `on_played`."""
    status = _seat(view, event.seat)
    status.passed = True
    if own:
        status.timeouts = 0
    view.move_count += 1


def on_chop_settled(view: game_pb2.TableView, event: events_pb2.ChopSettled) -> None:
    """A chop chain paid (chặt chồng): money only, which the settlement carries at the end."""
    del view, event


def on_round_won(view: game_pb2.TableView, event: events_pb2.RoundWon) -> None:
    """A round (vòng) won: the table is cleared, every pass forgotten, the leader acts; the
    start of the game is over, so the lead can no longer be stolen."""
    for status in view.seats:
        status.passed = False
    view.ClearField("table")
    view.ClearField("table_seat")
    view.to_act = event.leader
    view.steal_open = False


def on_player_finished(view: game_pb2.TableView, event: events_pb2.PlayerFinished) -> None:
    """A seat went out, with its place."""
    _seat(view, event.seat).place = event.place


def on_players_frozen(view: game_pb2.TableView, event: events_pb2.PlayersFrozen) -> None:
    """Cóng: the frozen seats take the last places."""
    if len(event.seats) != len(event.places):
        raise CannotFollow("PlayersFrozen lists seats and places of different lengths")
    for seat, place in zip(event.seats, event.places, strict=True):
        status = _seat(view, seat)
        status.frozen = True
        status.place = place


def on_instant_win(view: game_pb2.TableView, event: events_pb2.InstantWin) -> None:
    """Tới trắng: the GameOver that follows carries the places; money is in the settlement."""
    del view, event


def on_turn_passed(view: game_pb2.TableView, event: events_pb2.TurnPassed) -> None:
    """The seat to act."""
    view.to_act = event.seat


def on_game_over(view: game_pb2.TableView, event: events_pb2.GameOver) -> None:
    """The end: every seat's final place (the last seat gets its place only here); nobody
    acts."""
    if len(event.places) != view.players:
        raise CannotFollow(f"GameOver gives {len(event.places)} places for {view.players} seats")
    for status, place in zip(view.seats, event.places, strict=True):
        status.place = place
    view.finished = True
    view.ClearField("to_act")


def on_timed_out(view: game_pb2.TableView, event: events_pb2.TimedOut) -> int:
    """The host's time-out of a seat (RULES §9.3): its count of time-outs in a row. The play or
    pass that follows is the time-out's, not the seat's own: the seat is returned so that it
    does not reset the count."""
    _seat(view, event.seat).timeouts = event.timeouts
    return event.seat


def on_auto_play(view: game_pb2.TableView, event: events_pb2.AutoPlay) -> None:
    """A seat on auto (tự động đánh) or off it."""
    _seat(view, event.seat).auto = event.on


def on_player_left(view: game_pb2.TableView, event: events_pb2.PlayerLeft) -> None:
    """A seat's player left during the game (RULES §9.4): a move; a forfeit takes its place and
    is out of the round (a pass it had made is forgotten)."""
    status = _seat(view, event.seat)
    status.left = True
    status.forfeited = event.forfeit
    if event.forfeit:
        status.place = event.place
        status.passed = False
    view.move_count += 1


def on_seat_vacated(
    view: game_pb2.TableView, event: events_pb2.SeatVacated, nets: list[int]
) -> None:
    """Between games (RULES §9.1): the seat's player left the table, its total final; the
    seat is empty (0 chips where the table plays with bankrolls)."""
    _reseat(view, event.seat, "", nets)
    view.seats[event.seat].empty = True


def on_seat_taken(view: game_pb2.TableView, event: events_pb2.SeatTaken, nets: list[int]) -> None:
    """Between games: a newcomer sat down, with a total of 0 (its bankroll is the one the
    host gave, which the events don't carry: 0 here, as an empty seat's)."""
    _reseat(view, event.seat, event.player_id, nets)


def _reseat(view: game_pb2.TableView, seat: int, player_id: str, nets: list[int]) -> None:
    """`seat` with a new occupant (none: `player_id` ""), the table grown to hold it, its last
    net dropped: a leaver's total is final, a newcomer's starts at 0."""
    if not 0 <= seat < MAX_SEATS:
        raise CannotFollow(f"a seat change names seat {seat}")
    chips = any(s.HasField("bankroll") for s in view.seats)
    while len(view.seats) <= seat:
        view.seats.add(seat=len(view.seats), empty=True)
        nets.append(0)
    view.players = len(view.seats)
    status = game_pb2.SeatStatus(seat=seat, player_id=player_id, bankroll=0 if chips else None)
    view.seats[seat].CopyFrom(status)
    if chips:
        for other in view.seats:
            if not other.HasField("bankroll"):
                other.bankroll = 0
    nets[seat] = 0


def _seat(view: game_pb2.TableView, seat: int) -> game_pb2.SeatStatus:
    if not 0 <= seat < len(view.seats):
        raise CannotFollow(f"an event names seat {seat} at a table of {len(view.seats)}")
    return view.seats[seat]


def _copy(card: cards_pb2.Card) -> cards_pb2.Card:
    return cards_pb2.Card(rank=card.rank, suit=card.suit)
