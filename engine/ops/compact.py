"""Compact the sessions now (the Engine panel's Compact now, `dreamdesk compact`): messages past
the last ones kept live become history entries, summarised by the model or kept [RAW] without one."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from ..assistants import refuse_jobs
from ..core.problems import WorkspaceError
from ..home.workspace import Workspace
from ..jobs.consolidator import CompactResult, compact_now, nothing_to_compact
from ..llm.base import LLMClient
from .result import OpResult, perform


@dataclass
class Compacted:
    results: list[CompactResult]
    log: list[str] = field(default_factory=list)      # one line per session looked at, and why


def no_sessions(where: object) -> str:
    return f"{where}: no home folder with sessions/ around this workspace; nothing to compact"


def compact(ws: Workspace, client: LLMClient | None, initiator: str, *, only: str | None = None,
            cancel: threading.Event | None = None) -> OpResult[Compacted]:
    """`client` None: messages are kept as [RAW] entries. `only`: that session's key alone.
    Refused, in words, on a home whose assistant keeps its sessions itself (OpenClaw)."""
    refuse_jobs(ws)
    if ws.home is None:
        raise WorkspaceError(no_sessions(ws.root))

    def work() -> Compacted:
        lines: list[str] = []
        return Compacted(compact_now(ws, client, only=only, cancel=cancel, log=lines.append), lines)

    return perform(ws, "compact", initiator, work, _said)


def _said(c: Compacted) -> str:
    if c.results:
        return (f"Compacted {sum(r.messages for r in c.results)} message(s) into "
                f"{sum(len(r.entries) for r in c.results)} history entr(ies).")
    return c.log[-1] if c.log else nothing_to_compact()    # why nothing was (the assistant runs, …) first
