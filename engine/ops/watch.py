"""The watch, per workspace (Settings → Memory's Watch, `dreamdesk serve --watch`): on, its first
look remembers the memory files (or catches up on what another writer removed since it last
looked); off, what it saw is forgotten. And "Got it" on what changed since the person last looked."""

from __future__ import annotations

from ..assistants import watch_refused
from ..core.problems import WorkspaceError
from ..home.workspace import Workspace
from ..recovery import watch
from ..recovery.watch import SinceLooked, WatchEvent
from .result import OpResult, perform


def watch_on(ws: Workspace, initiator: str) -> OpResult[list[WatchEvent]]:
    """Refused, in words, where the watch would race the assistant (its history not kept apart)."""
    if (why := watch_refused(ws)) is not None:
        raise WorkspaceError(why)
    return perform(ws, "watch: on", initiator, lambda: watch.observe(ws),
                   lambda events: "; ".join(e.message for e in events)
                   or "The watch is on: what another writer removes from USER.md or MEMORY.md is archived")


def watch_off(ws: Workspace, initiator: str) -> OpResult[None]:
    return perform(ws, "watch: off", initiator, lambda: watch.forget_watch(ws),
                   lambda _none: "The watch is off: what it saw is forgotten, and turned on again it starts afresh")


def looked(ws: Workspace, shown: SinceLooked | None, initiator: str) -> OpResult[None]:
    """The versions `shown` become the ones last looked at (None: the files as they are, the first
    time only). Dreamdesk's own state only."""
    return perform(ws, "watch: got it", initiator, lambda: watch.remember_looked(ws, shown), lambda _none: "")
