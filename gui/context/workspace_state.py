"""Everything the views show about a workspace, read in one job on the reader thread."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo

from dreamdesk.engine.disk.changes import EVERYTHING, Changes
from dreamdesk.engine.core.clock import home_zone
from dreamdesk.engine.dream.records import list_runs
from dreamdesk.engine.dream import write_scope
from dreamdesk.engine.home import token_ceiling
from dreamdesk.engine.dream.runtypes import RunRecord
from dreamdesk.engine.dream.write_scope import Scope
from dreamdesk.engine.recovery.pins import PinState, pin_states
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.assistants.own_settings import OwnSettings
from dreamdesk.engine.assistants.prompt import PromptPreview, build_prompt
from dreamdesk.engine.jobs.scheduler import ScheduleStatus, Scheduler
from dreamdesk.engine.overview.status import Status, read_status
from dreamdesk.engine.recovery.watch import SinceLooked, since_last_looked
from dreamdesk.engine.home.workspace import Workspace


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
    since: SinceLooked | None = None  # what changed in USER.md / MEMORY.md since the user last looked
    scope: Scope = Scope()            # the memory files Dreamdesk's Dream may write here
    ceiling: int | None = None        # the token ceiling of each of Dreamdesk's Dream runs here
    scope_error: str | None = None    # the scope's or the ceiling's file cannot be read (no run until fixed)
    changed: Changes = EVERYTHING     # what differs from the read before it (the views refresh only that)
    own: OwnSettings | None = None    # the assistant's own settings in its own config (OpenClaw's), read for Settings


def state_reads(changes: Changes) -> bool:
    """Whether a change touches anything the state read shows: the archive and the git history
    are the tab views' own (a change to only those reads no state and rebuilds no dashboard)."""
    return bool(replace(changes, archive=False, snapshots=False))


class StateReader:
    """One workspace's state for the window, read part by part: a change record names the parts
    read again; the others are the last read's. Used from the reader thread only."""

    def __init__(self, ws: Workspace, scheduler: Scheduler | None = None):
        self.ws = ws
        self.scheduler = scheduler or Scheduler(ws)
        self.last: WorkspaceState | None = None
        self._runs: list[RunRecord] = []

    def read(self, changes: Changes = EVERYTHING, own_job: bool = False) -> WorkspaceState:
        ws, prev = self.ws, self.last
        if prev is None:
            changes = EVERYTHING
        st = read_status(ws, prev.status if prev else None, changes)
        if prev is None or changes.runs:
            self._runs, _ = list_runs(ws)
        now = datetime.now().astimezone()
        sched = self.scheduler.status(now, own_job=own_job)   # (its reads hit the same caches)
        if prev is None or changes.touches_files() or changes.history or changes.cursors:
            pv = build_prompt(ws, st.history, st.dream_cursor, st.assistant)
        else:
            pv = prev.prompt
        state = WorkspaceState(st, sched, pv, {e.cursor for e in pv.pending_shown}, now,
                               home_zone=home_zone(st.config))
        if prev is None or changes.touches_files() or changes.state:
            _read_pins(ws, state)
            _read_scope(ws, state)
            state.since = since_last_looked(ws)
        else:
            state.pins, state.pins_error, state.since = prev.pins, prev.pins_error, prev.since
            state.scope, state.ceiling, state.scope_error = prev.scope, prev.ceiling, prev.scope_error
        if prev is None or changes.config or changes.touches_files():
            own = st.assistant.own_settings(ws) if st.assistant is not None else None
            state.own = own.prepare() if own is not None else None
        else:
            state.own = prev.own
        if prev is None or changes.runs:
            _runs_facts(self._runs, state)
        else:
            state.recent_runs, state.recent_writes, state.provenance = (prev.recent_runs, prev.recent_writes,
                                                                        prev.provenance)
        state.changed = _what_changed(prev, state, changes)
        self.last = state
        return state


def _what_changed(prev: WorkspaceState | None, state: WorkspaceState, asked: Changes) -> Changes:
    """The record the views act on: what was asked, less the history, cursors and config that
    read the same (F5 or the watch's first look must not rebuild a 100,000-row table)."""
    if prev is None:
        return EVERYTHING
    old, new = prev.status, state.status
    return replace(asked, history=asked.history and old.history is not new.history,
                   cursors=asked.cursors and (old.cursor, old.dream_cursor) != (new.cursor, new.dream_cursor),
                   config=asked.config and old.config.raw != new.config.raw)


def _read_pins(ws: Workspace, state: WorkspaceState) -> None:
    try:
        state.pins = pin_states(ws)
    except WorkspaceError as exc:
        state.pins_error = str(exc)


def _read_scope(ws: Workspace, state: WorkspaceState) -> None:
    """What the person set for Dreamdesk's Dream here: its scope and its token ceiling."""
    try:
        state.scope = write_scope.load(ws.root)
        state.ceiling = token_ceiling.load(ws.root)
    except WorkspaceError as exc:
        state.scope_error = str(exc)


def _runs_facts(runs: list[RunRecord], state: WorkspaceState) -> None:
    """The budget what-if's recent writes and the Files view's provenance, from the run records."""
    for rec in runs[:WHAT_IF_RUNS]:
        state.recent_runs += 1
        for w in rec.writes:
            if isinstance(w.get("file"), str) and isinstance(w.get("size"), int) and isinstance(w.get("before"), int):
                state.recent_writes.append((w["file"], w["before"], w["size"]))
    for rec in reversed(runs):            # oldest first, so the newest run that wrote a text wins
        for f in rec.created:
            if f["text"] is not None:
                state.provenance[(f["file"], f["text"])] = Provenance(
                    rec.id, str(f.get("pass", "")), str(f.get("kind", "")), list(f.get("sources", [])),
                    rec.started or "")
