"""The work that comes due by itself in one workspace (issue 27): asking the scheduler whether a
Dream starts now (engine/jobs/scheduler.py), archiving what other writers removed and looking for the
commits of those removals (engine/recovery/watch.py, the watch).

One Qt-free loop for both drivers: `dreamdesk serve` calls `due()` from its own thread and runs
each job there; the window calls it from a QTimer (and at once after an outside change) and runs
each job on a worker lane, `done(kind)` when it has ended. The rules of "what is due now" live
here, on an injected clock: each kind runs once at a time; the scheduler is asked every tick
while scheduling is on and no run is under way; the watch looks after every outside change to a
watched file (and once when turned on: it remembers the files, or catches up) and for commits
every `commit_every`, git not being in the file watch."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Callable

from ..recovery import watch
from ..home.history import AppendDetector
from .scheduler import Scheduler
from ..home.workspace import Workspace

SCHEDULE, OBSERVE, COMMITS = "schedule", "observe", "commits"
START, REQUEUE, CANCEL = "start", "requeue", "cancel"     # what becomes of a trigger the scheduler gave
COMMIT_EVERY = timedelta(seconds=3)
HISTORY = "memory/history.jsonl"


class Upkeep:
    """What is due now in one workspace, and the jobs that do it."""

    def __init__(self, ws: Workspace, scheduler: Scheduler, now: Callable[[], datetime],
                 commit_every: timedelta = COMMIT_EVERY):
        self.ws, self.scheduler, self.now = ws, scheduler, now
        self.commit_every = commit_every
        self.scheduling = False          # on once the scheduler has started (its deadline written)
        self.watching = False
        self._token = 0                  # each on/off of scheduling: a start that lands late is stale
        self._to_observe = False         # a watched file changed since the watch last looked
        self._commits_at: datetime | None = None
        self._running: set[str] = set()
        self._lock = threading.Lock()    # inputs come from watchdog's thread too
        self._appends = AppendDetector(ws.history_path)

    # -- inputs ---------------------------------------------------------------------------------
    def schedule_on(self) -> int:
        """Scheduling asked for: it is on once `schedule_started(token)` says so."""
        with self._lock:
            self._token += 1
            return self._token

    def schedule_started(self, token: int) -> bool:
        """The scheduler's start landed: on, unless scheduling was turned off (or on again) since."""
        with self._lock:
            if token == self._token:
                self.scheduling = True
            return token == self._token

    def schedule_off(self) -> None:
        with self._lock:
            self._token += 1
            self.scheduling = False

    def watch_on(self) -> str | None:
        """On (its first look remembers the files, or catches up); or, where it would race the
        home's assistant, off with the reason in words."""
        from ..assistants import watch_refused
        if (refused := watch_refused(self.ws)) is not None:
            return refused
        with self._lock:
            self.watching = self._to_observe = True
            self._commits_at = self.now()
        return None

    def watch_off(self) -> None:
        with self._lock:
            self.watching = self._to_observe = False

    def outside_change(self, paths: set[str]) -> bool:
        """Another writer changed `paths` (relative): True when the watch has something to look at."""
        with self._lock:
            if self.watching and any(self._watched(p) for p in paths):
                self._to_observe = True
            return self._to_observe and OBSERVE not in self._running

    def _watched(self, rel: str) -> bool:
        """What the watch looks at: the archived files; where Dreamdesk's history is kept apart
        (it snapshots another writer's change to any memory file), every file it may write."""
        layout = self.ws.layout
        return rel in layout.archived or (layout.apart and layout.writable(rel))

    def files_touched(self, paths: set[str]) -> None:
        """Any write, ours or another's: a real append to the history restarts an activity idle wait
        (a read or a rewrite of the same lines is not activity)."""
        if HISTORY in paths and self._appends.check():
            self.scheduler.note_activity(self.now())

    @property
    def active(self) -> bool:
        """Does anything need the loop to tick?"""
        return self.scheduling or self.watching

    # -- the decision -------------------------------------------------------------------------
    def due(self, busy: bool = False) -> list[str]:
        """The jobs to start now (each marked running until `done`). `busy`: a Dream run or
        another job of the user's is under way, so the scheduler is not asked."""
        t = self.now() if self.watching else None
        with self._lock:
            due = []
            if self.scheduling and not busy and SCHEDULE not in self._running:
                due.append(SCHEDULE)
            if t is not None and self.watching and OBSERVE not in self._running and COMMITS not in self._running:
                if self._to_observe:
                    self._to_observe = False
                    due.append(OBSERVE)            # (it notes commits that landed, too)
                    self._commits_at = t
                elif self._commits_at is None or t >= self._commits_at + self.commit_every:
                    due.append(COMMITS)
                    self._commits_at = t
            self._running.update(due)
            return due

    def done(self, kind: str) -> None:
        with self._lock:
            self._running.discard(kind)

    def verdict(self, trigger: str | None, busy: bool) -> str | None:
        """What becomes of a trigger the scheduler gave: it starts, or (a run already under way)
        is queued again, or (scheduling turned off meanwhile) never starts."""
        if not trigger:
            return None
        if not self.scheduling:
            return CANCEL
        return REQUEUE if busy else START

    # -- the jobs (on the driver's thread or lane) ---------------------------------------------
    def run(self, kind: str):
        """SCHEDULE: the trigger of a Dream to start now, or None; the watch's: its events."""
        if kind == SCHEDULE:
            return self.scheduler.tick(self.now())
        if kind == OBSERVE:
            return watch.observe(self.ws)
        return watch.check_commits(self.ws)

    def decline(self, trigger: str, verdict: str) -> None:
        """A trigger that does not start: queued again, or dropped."""
        if verdict == REQUEUE:
            self.scheduler.requeue(trigger)
        else:
            self.scheduler.requeue_cancel()
