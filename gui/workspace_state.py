"""Everything the views show about a workspace, read in one job on the reader thread."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from engine.clock import home_zone
from engine.dream.records import list_runs
from engine.pins import PinState, pin_states
from engine.problems import WorkspaceError
from engine.prompt import PromptPreview, build_prompt
from engine.scheduler import ScheduleStatus, Scheduler
from engine.status import Status, read_status
from engine.workspace import Workspace


WHAT_IF_RUNS = 20      # the budget what-if looks at this many recent runs


@dataclass
class Provenance:
    run: str
    pass_name: str
    kind: str
    sources: list[int]
    started: str


@dataclass
class WorkspaceState:
    status: Status
    schedule: ScheduleStatus
    prompt: PromptPreview
    in_prompt: set[int]
    read_at: datetime
    recent_writes: list[tuple[str, int, int]] = field(default_factory=list)   # (file, before, size)
    recent_runs: int = 0
    provenance: dict[tuple[str, str], Provenance] = field(default_factory=dict)  # (file, text) -> who
    home_zone: tzinfo | None = None   # the zone history.jsonl is stamped in (None: this machine's)
    pins: list[PinState] = field(default_factory=list)   # each pin, present or missing, from the files now
    pins_error: str | None = None     # the pins file could not be read (said on the Dashboard)


def read_state(ws: Workspace, scheduler: Scheduler | None = None, own_job: bool = False) -> WorkspaceState:
    """Everything the window shows, read off the GUI thread. `own_job`: this window is running
    a job itself (so the held job lock is not a run elsewhere)."""
    st = read_status(ws)
    pv = build_prompt(ws, st.history, st.dream_cursor, st.assistant)
    now = datetime.now().astimezone()
    sched = (scheduler or Scheduler(ws)).status(now, own_job=own_job)
    state = WorkspaceState(st, sched, pv, {e.cursor for e in pv.pending_shown}, now, home_zone=home_zone(st.config))
    try:
        state.pins = pin_states(ws)
    except WorkspaceError as exc:
        state.pins_error = str(exc)
    runs, _ = list_runs(ws)
    for rec in runs[:WHAT_IF_RUNS]:
        state.recent_runs += 1
        for w in rec.get("writes", []):
            if isinstance(w.get("file"), str) and isinstance(w.get("size"), int) and isinstance(w.get("before"), int):
                state.recent_writes.append((w["file"], w["before"], w["size"]))
    for rec in reversed(runs):            # oldest first, so the newest run that wrote a text wins
        for f in rec.get("created", []):
            if isinstance(f.get("text"), str) and isinstance(f.get("file"), str):
                state.provenance[(f["file"], f["text"])] = Provenance(
                    rec["id"], str(f.get("pass", "")), str(f.get("kind", "")),
                    [c for c in f.get("sources", []) if isinstance(c, int)], str(rec.get("started", "")))
    return state
