"""Everything the views show about a workspace, read in one job on the reader thread."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine.prompt import PromptPreview, build_prompt, select_pending
from engine.scheduler import ScheduleStatus, Scheduler
from engine.status import Status, read_status
from engine.workspace import Workspace


@dataclass
class WorkspaceState:
    status: Status
    schedule: ScheduleStatus
    prompt: PromptPreview
    in_prompt: set[int]
    read_at: datetime


def read_state(ws: Workspace, scheduler: Scheduler | None = None) -> WorkspaceState:
    st = read_status(ws)
    pv = build_prompt(ws, st.history, st.dream_cursor)
    pending = st.history.pending(st.dream_cursor)
    now = datetime.now().astimezone()
    sched = (scheduler or Scheduler(ws)).status(now)
    return WorkspaceState(st, sched, pv, {e.cursor for e in select_pending(pending)}, now)
