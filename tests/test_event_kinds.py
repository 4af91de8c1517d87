"""Every kind of event the contract can send is handled by both clients and the web table.

A client that rebuilds the table from a basic update's events (UPDATE_VIEW_BASIC) must fold
every event kind, and a client that narrates a game must say every kind; a kind added to
`Event.kind` in protos/tienlen/v1/events.proto and forgotten in one of them would only be
noticed by a player. The kinds are read from the generated descriptor, so a new kind fails
here until every file docs/ARCHITECTURE.md names for "A new event" handles it:

- the Python client: `events.event_from_pb` turns it into its own record (not `UnknownEvent`),
  `follow.py` folds it, `cli/narrate.py` names its record;
- the Node client: `models.ts` declares it in the `GameEvent` union, `follow.ts` folds it;
- the web table: `narrate.ts` says it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tienlen_client import events as client_events

from tienlen.v1 import events_pb2

ROOT = Path(__file__).resolve().parent.parent
KINDS = [f.name for f in events_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields]


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def source(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def test_the_descriptor_lists_the_kinds_the_engine_sends() -> None:
    # The counter-check: the scan below reads real kinds, not an empty list.
    assert {"game_started", "played", "chop_settled", "players_frozen", "game_over"} <= set(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_the_python_client_reads_folds_and_narrates_every_event_kind(kind: str) -> None:
    message = events_pb2.Event()
    getattr(message, kind).SetInParent()
    record = client_events.event_from_pb(message)
    assert not isinstance(record, client_events.UnknownEvent), f"events.py does not read {kind}"
    assert f'kind == "{kind}"' in source("clients/python/tienlen_client/follow.py"), (
        f"follow.py does not fold {kind}"
    )
    narrate = source("clients/python/tienlen_client/cli/narrate.py")
    assert re.search(rf"isinstance\(event, {type(record).__name__}\)", narrate), (
        f"cli/narrate.py does not narrate {type(record).__name__}"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_the_node_client_and_the_web_table_handle_every_event_kind(kind: str) -> None:
    name = camel(kind)
    assert f'kind: "{name}"' in source("clients/node/src/models.ts"), f"models.ts has no {name}"
    assert f'case "{name}"' in source("clients/node/src/follow.ts"), (
        f"follow.ts does not fold {name}"
    )
    assert f'case "{name}"' in source("clients/web/src/narrate.ts"), (
        f"web narrate.ts does not say {name}"
    )
