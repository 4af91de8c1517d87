"""What the servicer reads of a call, whatever the transport: the `CallContext` contract.

The servicer is written once and called with two kinds of context: grpcio's
`grpc.ServicerContext` on the gRPC port and `web.context.WebContext` on the web port (Connect,
gRPC-Web). Its long work (a bot's search) watches the call through this contract only, so that
the two behave alike:

- ``time_remaining()``: the seconds left before the call's deadline, never negative, or None
  when the call has no deadline. (grpcio answers a very large number for a call without one,
  and the abstract API allows None: both mean "no deadline" here.) Read it through `expired`,
  never by comparing it yourself.
- ``is_active()``: False once the call is over for the caller: cancelled, its client gone, or
  its deadline passed.
- ``add_callback(callback)``: `callback` runs once when the call ends, however it ends
  (answered, aborted, cancelled, expired, or its client hung up); a cancelled call runs it at
  the cancellation, while its handler may still be working. False if the call already ended.

`call_gone` and `expired` are the two questions long work asks of a context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import Callable


@runtime_checkable
class CallContext(Protocol):
    """The part of a call's context that long work reads (see the module's docstring)."""

    def time_remaining(self) -> float | None:
        """Seconds left before the deadline (never negative), None without a deadline."""
        ...

    def is_active(self) -> bool:
        """False once the call was cancelled, its client went away or its deadline passed."""
        ...

    def add_callback(self, callback: Callable[[], None]) -> bool:
        """Run `callback` once when the call ends (at once on a cancellation)."""
        ...


def expired(context: CallContext) -> bool:
    """Whether the call's deadline has passed (never, for a call without one)."""
    remaining = context.time_remaining()
    return remaining is not None and remaining <= 0


def call_gone(context: CallContext) -> Callable[[], bool]:
    """A cheap check for long work: True once the call was cancelled, its client went away or
    its deadline passed."""

    def gone() -> bool:
        return not context.is_active() or expired(context)

    return gone
