"""The application context (issue 27): what a window works on, with no widget of its own. It owns
the open workspace, the worker lanes (gui/context/worker.py), the state reader (gui/context/workspace_state.py),
the file watcher (gui/context/watcher.py), the upkeep loop's timer (engine/jobs/upkeep.py: scheduled
Dreams and the watch) and the routing of each change record to the views that declared interest
in it (view_feed.READS_ON), each once.

The window is its shell: it builds the frame, asks the person, hands the context each tab view
when built (`add_view`) and says which is shown (`view_shown`), and renders what the signals
say. Everything here runs, and is tested, without a window (tests/gui/test_gui_context.py)."""

from __future__ import annotations

import logging
import os
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Protocol

from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.core.state import workspace_state_dir
from dreamdesk.engine.disk import changes as changes_mod
from dreamdesk.engine.disk.changes import EVERYTHING, Changes
from dreamdesk.engine.assistants import open_home
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.jobs import upkeep as upkeep_mod
from dreamdesk.engine.jobs.scheduler import Scheduler
from dreamdesk.engine.recovery import watch as watch_mod

from ..app import settings_store
from . import view_feed
from .job_names import SCHEDULE_JOB, WATCH_JOB
from ..qt import QObject, QTimer, Signal, Slot
from .watcher import WorkspaceWatcher
from .worker import Coalesced, JobLanes
from .workspace_state import StateReader, WorkspaceState, state_reads

if TYPE_CHECKING:
    from dreamdesk.engine.jobs.upkeep import Upkeep

log = logging.getLogger(__name__)

SCHEDULER_TICK_MS = 1000     # how often the upkeep loop is driven while it has anything to do


def local_now() -> datetime:
    return datetime.now().astimezone()


class DreamRunner(Protocol):
    """What runs the person's and the scheduler's Dreams (the Engine panel): the context starts a
    due scheduled run there, and hears when a run ends (its `finished` signal, by `set_runner`)."""

    finished: Any
    last_status: str | None
    last_outcome: str

    @property
    def running(self) -> bool: ...

    def run_dream(self, dry_run: bool = False, review: bool = False, trigger: str = "manual") -> None: ...


class AppContext(QObject):
    workspaceOpened = Signal(object)   # the Workspace just opened (its first read is asked for)
    openFailed = Signal(str)           # why a folder did not open (the one open stays)
    readAsked = Signal()               # a state read is asked for
    stateRead = Signal(object)         # each WorkspaceState read, before the tab views are handed it
    watched = Signal(object)           # a WatchEvent worth telling the person (context.last_change)
    message = Signal(str)              # a line for the status bar

    def __init__(self, engine: JobLanes | None = None, parent: QObject | None = None,
                 shown: Callable[[object], bool] = lambda view: False, now: Callable[[], datetime] = local_now):
        """`shown(view)`: whether the window shows that tab view now (a hidden one reads again
        only when next shown); `now`: the clock the scheduler and the watch go by."""
        super().__init__(parent)
        self.engine = engine or JobLanes(self)
        self.engine.routed = True      # each job's change record comes here: a view leaves its refresh to it
        self.engine.wrote.connect(self._on_written)
        self.engine.notice.connect(self.message)     # expected failures no view handles
        self.shown, self.now = shown, now
        self.ws: Workspace | None = None
        self.state: WorkspaceState | None = None
        self.reader: StateReader | None = None
        self.scheduler: Scheduler | None = None
        self.upkeep: Upkeep | None = None        # what comes due by itself: scheduled Dreams, the watch
        self.watcher: WorkspaceWatcher | None = None
        self.runner: DreamRunner | None = None
        self.last_change: watch_mod.WatchEvent | None = None    # the watch's last word, for the window's link
        self.reads_on: dict[str, tuple[str, ...]] = dict(view_feed.READS_ON)   # what each self-reading view re-reads on
        self.views: dict[str, Any] = {}          # the tab views built so far, by name
        self.stale: set[str] = set()             # built views whose data changed while hidden
        self._reads = Coalesced()
        self.upkeep_timer = QTimer(self)         # drives the upkeep loop while it has anything to do
        self.upkeep_timer.setInterval(SCHEDULER_TICK_MS)
        self.upkeep_timer.timeout.connect(self._upkeep_tick)

    def set_runner(self, runner: DreamRunner) -> None:
        self.runner = runner
        runner.finished.connect(self.dream_finished)

    @property
    def _dreaming(self) -> bool:
        return self.runner is not None and self.runner.running

    # -- opening ----------------------------------------------------------------------------
    def open_workspace(self, path: str, agent: str | None = None) -> Workspace | None:
        """Open a workspace (reads only): its first read asked for, its watch and upkeep started.
        `agent`: which of a home's agents (chosen in the window: remembered for that home; None:
        the one last chosen there, else the home's default). On a bad path the open one stays
        (openFailed says why) and None is returned."""
        try:
            ws = open_home(path, agent) if agent else _remembered_agent(path, open_home(path))
        except WorkspaceError as exc:
            log.info("cannot open %s: %s", path, exc)
            self.openFailed.emit(str(exc))
            return None
        log.info("workspace opened: %s (home %s)", ws.root, ws.home)
        if agent:
            settings_store.set_agent(str(ws.home or ws.root), agent)
        another = self.ws is None or ws.root != self.ws.root
        self._leave()
        if another:
            for name, view in self.views.items():
                view_feed.another_workspace(name, view)
        self.ws, self.state, self.last_change = ws, None, None
        self.scheduler = Scheduler(ws)
        self.upkeep = upkeep_mod.Upkeep(ws, self.scheduler, self.now)
        self.watcher = self._watch_files(ws)     # before the read: its first look compares with then
        settings_store.add_recent(str(ws.home or ws.root))
        self.reader = StateReader(ws, self.scheduler)
        self._reads = Coalesced()
        self._read_state(EVERYTHING)             # the dashboard's read goes first on the reader lane
        self.workspaceOpened.emit(ws)
        for name in view_feed.READ_THEMSELVES:   # read now if shown, else when next shown (charts: after the read)
            self._view_changed(name)
        if settings_store.schedules(str(ws.root)):
            self.set_scheduling(True)
        self.set_watching(settings_store.watches(str(ws.root)), by_user=False)
        # the first time: these versions are the ones looked at (Dreamdesk's own state only), where
        # the watch may run at all (not on a home whose assistant does that work itself)
        self.engine.write(f"{WATCH_JOB}remember", lambda ctx: _remember_looked(ws), lambda _r: None, bookkeeping=True)
        return ws

    def _watch_files(self, ws: Workspace) -> WorkspaceWatcher:
        cfg = ws.config_create_path
        # the home's config.json lies outside the workspace: watched too, so a setting the
        # assistant's own save dropped shows on the Dashboard at once
        outside = {cfg: "config.json"} if cfg.parent != ws.root else {}
        watcher = WorkspaceWatcher(ws.root, self, outside=outside)
        watcher.changed.connect(partial(self._on_files_changed, watcher))
        watcher.failed.connect(lambda msg: self.message.emit(
            f"Live updates are off for this workspace ({msg}); F5 reads it again"))
        watcher.start()
        return watcher

    def prepare_demo(self, opened: Callable[[str], object], failed: Callable[[str, str], None]) -> None:
        """The demo's private copy, built (with git, about half a second) on the writer lane;
        `opened(path)` then opens it."""
        from dreamdesk.engine.desktop.demo_copy import build_demo_copy

        def done(dest) -> None:
            settings_store.set_demo_home(str(dest))
            opened(str(dest))
        self.engine.write("prepare the demo", lambda ctx: build_demo_copy(), done, failed)

    def _leave(self) -> None:
        """The open workspace's watch and upkeep stop (a start still under way for it is stale)."""
        self.upkeep_timer.stop()
        if self.watcher is not None:
            self.watcher.stop()

    def close(self) -> None:
        """The window closes: the watch stops, the lanes' jobs are cancelled and waited for."""
        self._leave()
        self.engine.shutdown()

    def user_jobs(self) -> list[str]:
        """The person's writes under way (the watch's short bookkeeping finishes on its own)."""
        return sorted({j.name for j in self.engine.running_writes.values() if not j.bookkeeping})

    # -- the tab views ----------------------------------------------------------------------
    def add_view(self, name: str, view) -> None:
        """A tab view just built: it gets the open workspace and the last state read."""
        self.views[name] = view
        if self.ws is not None:
            view_feed.hand_workspace(name, view, self.ws)
            if self.state is not None:
                view_feed.hand_state(name, view, self.state, self.ws)

    def view_shown(self, name: str | None) -> None:
        """The window shows the tab view `name` now: it reads what changed while it was hidden."""
        if name in view_feed.RELOAD_WHEN_SHOWN:
            self.stale.add(name)
        if name in self.stale:
            self.stale.discard(name)
            self._load(name)

    def _view_changed(self, name: str) -> None:
        """A tab view whose data changed: read again now if shown, else when next shown (one
        not built yet reads for itself when it is)."""
        view = self.views.get(name)
        if view is None:
            return
        if self.shown(view):
            self.stale.discard(name)
            self._load(name)
        else:
            self.stale.add(name)

    def _load(self, name: str) -> None:
        view = self.views.get(name)
        if self.ws is not None and view is not None:
            view_feed.load(name, view, self.ws, self.state)

    # -- routing: every change arrives as one record ------------------------------------------
    # A job's writes, the watcher's paths, F5's "everything" (engine/disk/changes.py). The state
    # read takes only the parts it names; each tab view reads again only when the record touches
    # what it declared (self.reads_on), and a hidden one when next shown.
    @Slot()
    def refresh(self) -> None:
        """Read the whole workspace again (F5)."""
        self.apply(EVERYTHING)

    def apply(self, changes: Changes) -> None:
        if self.ws is None or not changes:
            return
        if state_reads(changes):
            self._read_state(changes)
        elif changes.snapshots:
            self._view_changed(view_feed.CHARTS)     # (else the state read's end hands it on)
        for name, parts in self.reads_on.items():
            if changes.any_of(parts):
                self._view_changed(name)

    @Slot(object)
    def _on_written(self, paths: frozenset) -> None:
        """A job's change record: the paths it wrote, as the parts of the workspace they are (the
        watcher leaves their echoes out: this record stands for them)."""
        ws = self.ws
        if ws is not None:
            self.apply(changes_mod.relative_changes(paths, ws.root, ws.config_path, workspace_state_dir(ws.root),
                                                    ws.layout.changes))
            self._files_touched(changes_mod.inside(paths, ws.root))

    def _on_files_changed(self, watcher: WorkspaceWatcher, paths: set[str]) -> None:
        """Another writer's changes, from the open workspace's watcher."""
        if watcher is not self.watcher:
            return                              # (a late word of the workspace left)
        if self.upkeep is not None and self.upkeep.outside_change(paths):
            self._upkeep_tick()                 # the watch archives what the other writer removed
        self.apply(self.ws.layout.changes(paths) if self.ws is not None else changes_mod.from_paths(paths))
        self._files_touched(paths)

    def _files_touched(self, paths: set[str]) -> None:
        """What any write (ours or another's) tells beyond the record: activity for the
        scheduler, and the editor's check of the file it shows."""
        if self.upkeep is not None:
            self.upkeep.files_touched(paths)    # a history append restarts an activity idle wait
        editor = self.views.get("files")
        if editor is not None:
            editor.files_changed(paths)

    # -- the state read ---------------------------------------------------------------------
    def _read_state(self, changes: Changes) -> None:
        """Requests merge while a read waits its turn: the read takes them all when it starts, and
        one that finds nothing left (an earlier one took it) returns at once without reading. A
        job's change record asks once the job's callback has run too (both come in one slot), so
        what that callback asks (the schedule's line after a run) joins the same read."""
        if not self._reads.add(changes):
            return
        self.readAsked.emit()
        ask = partial(self._ask_read, self.ws, self.reader, self._reads)
        if self.engine.finishing:
            QTimer.singleShot(0, ask)
        else:
            ask()

    def _ask_read(self, ws: Workspace, reader: StateReader, reads: Coalesced) -> None:
        if ws is not self.ws:
            return                          # another workspace was opened meanwhile
        own = self._dreaming

        def job(ctx):
            asked = reads.take()
            return None if asked is None else reader.read(asked, own)

        self.engine.read("read workspace", job, self._apply_state, first=True, wanted=lambda: ws is self.ws)

    def _apply_state(self, state: WorkspaceState | None) -> None:
        if state is None or self.ws is None:
            return                          # an earlier read took what this one was asked
        self.state = state
        self.stateRead.emit(state)
        changed = state.changed
        for name in view_feed.HANDED_STATE:     # the others read for themselves
            view = self.views.get(name)
            if view is not None:
                view_feed.hand_state(name, view, state, self.ws, changed)
        if changed.touches_files() or changed.snapshots:
            self._view_changed(view_feed.CHARTS)

    # -- scheduling and the watch (opt-in per workspace) -------------------------------------
    # The scheduler reads history and writes memory/dreams/schedule.json, the watch writes the
    # archive: never on the GUI thread. What writes goes to the writer lane; the scheduler's
    # tick (which only reads) to the reader lane, one at a time.
    def schedule_job(self, what: str, fn: Callable[[Scheduler], object],
                     done: Callable[[object], None] | None = None) -> None:
        sched = self.scheduler
        if sched is None:
            return

        def finished(result) -> None:
            if done:
                done(result)
            self.apply(Changes(schedule=True))   # the status line says what the scheduler now knows

        self.engine.write(f"{SCHEDULE_JOB}{what}", lambda ctx: fn(sched), finished,
                          lambda msg, tb: self.message.emit(f"Scheduling: {msg}"), wanted=lambda: sched is self.scheduler)

    def set_scheduling(self, on: bool) -> None:
        upkeep = self.upkeep
        if upkeep is None:
            return
        if on and self.scheduler is not None and self.scheduler.refused:
            self.message.emit(self.scheduler.refused)     # the home's assistant dreams itself
            return
        if on:
            # on once the deadline is written, unless scheduling was turned off (or on and off
            # again) while the writer was busy
            token = upkeep.schedule_on()
            self.schedule_job("start", lambda s: s.start(self.now()),
                              lambda _r: upkeep.schedule_started(token) and self._keep_ticking())
        else:
            upkeep.schedule_off()
            self._keep_ticking()
            self.apply(Changes(schedule=True))

    def settings_changed(self) -> None:
        """Dream turned on or off, or a new interval: applies at once to a running schedule."""
        if self.upkeep is not None and self.upkeep.scheduling:
            self.schedule_job("settings changed", lambda s: s.settings_changed(self.now()))
        else:
            self.apply(Changes(config=True, schedule=True))

    def dream_finished(self, what: str) -> None:
        """A run of the runner's ended: a scheduled one's outcome (its error, if any, is kept for
        "why not dreaming") goes to the scheduler; the schedule's line changes even when it wrote nothing."""
        sched, runner = self.scheduler, self.runner
        if sched is not None and sched.running is not None and runner is not None:
            outcome = runner.last_outcome
            error = outcome if what == "failed" or runner.last_status == "failed" else None
            self.schedule_job("run finished", lambda s: s.finished(self.now(), outcome, error))
        self.apply(Changes(schedule=True))

    # observe() writes the archive: on the writer lane. It compares content hashes with the
    # versions last seen, so an event for a read or a touch archives nothing.
    def set_watching(self, on: bool, by_user: bool) -> None:
        ws, upkeep = self.ws, self.upkeep
        if ws is None or upkeep is None:
            return
        if on:
            refused = upkeep.watch_on()
            if refused:
                self.message.emit(refused)
                return
            self._upkeep_tick()                          # remembers the files, or catches up
        else:
            upkeep.watch_off()
            if by_user:
                from ..operations.run import Initiator
                from ..operations.watch import watch_off
                watch_off(Initiator(self.engine, "settings", self.message.emit), ws)
        self._keep_ticking()

    def _keep_ticking(self) -> None:
        if self.upkeep is not None and self.upkeep.active:
            if not self.upkeep_timer.isActive():
                self.upkeep_timer.start()
        else:
            self.upkeep_timer.stop()

    def _upkeep_tick(self) -> None:
        """What the upkeep loop says is due, each on its lane: the scheduler's tick only reads
        (the reader lane); the watch's jobs write the archive (the writer lane)."""
        upkeep = self.upkeep
        if upkeep is None:
            return
        for kind in upkeep.due(busy=self._dreaming):
            run, done, failed = (lambda ctx, k=kind: upkeep.run(k), partial(self._upkeep_done, upkeep, kind),
                                 partial(self._upkeep_failed, upkeep, kind))
            if kind == upkeep_mod.SCHEDULE:     # (the scheduler's tick only reads)
                self.engine.read("scheduler tick", run, done, failed)
            else:
                self.engine.write(f"{WATCH_JOB}{kind}", run, done, failed, bookkeeping=True)

    def _upkeep_done(self, upkeep: Upkeep, kind: str, result) -> None:
        upkeep.done(kind)
        if upkeep is not self.upkeep:
            return                          # (the workspace it kept was left)
        if kind != upkeep_mod.SCHEDULE:
            self._watch_report(result)
            if upkeep.outside_change(set()):
                self._upkeep_tick()         # a change came while it looked
            return
        verdict = upkeep.verdict(result, busy=self._dreaming)
        if verdict == upkeep_mod.START and self.runner is not None:
            self.message.emit(f"Scheduled dream starting ({result})")
            self.runner.run_dream(trigger=result)
        elif verdict is not None:
            self.schedule_job("requeue", lambda s: upkeep.decline(result, verdict))

    def _upkeep_failed(self, upkeep: Upkeep, kind: str, msg: str, tb: str) -> None:
        upkeep.done(kind)
        if upkeep is self.upkeep and kind != upkeep_mod.COMMITS:
            self.message.emit(f"{'Scheduling' if kind == upkeep_mod.SCHEDULE else 'Watch'}: {msg}")

    def _watch_report(self, events: list) -> None:
        for e in events or ():
            if e.later and not e.by_dream:
                continue             # a commit found later only matters when it names the Dream
            self.last_change = e
            self.watched.emit(e)


def _remembered_agent(path: str, ws: Workspace) -> Workspace:
    """`ws` as the home opened it, or its agent last chosen in the window when the person opened
    the home itself (an agent's own workspace folder opens that agent); a remembered agent the
    roster no longer has: the home's default."""
    chosen = settings_store.agent(str(ws.home)) if ws.home is not None and ws.layout.agent else None
    if chosen is None or chosen == ws.layout.agent or os.path.realpath(path) == os.path.realpath(ws.root):
        return ws
    try:
        return open_home(path, chosen)
    except WorkspaceError:
        return ws


def _remember_looked(ws: Workspace) -> None:
    from dreamdesk.engine.assistants import watch_refused
    if watch_refused(ws) is None:
        watch_mod.remember_looked(ws)
