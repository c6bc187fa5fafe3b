"""`dreamdesk serve`: the Consolidator and the Dream scheduler for one workspace, headless, in
the foreground. One log line per decision, never a secret; SIGINT/SIGTERM stop it cleanly (a
running Dream is cancelled, which holds its cursor; every write is atomic)."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta
from typing import Callable

from ..assistants import refuse_jobs
from .consolidator import run_consolidator
from ..dream.run import DreamOptions, run_dream
from ..disk.file_watch import FileWatch
from ..disk.files import LockHeld
from ..llm import LLMClient, LLMError
from ..recovery.job_lock import job_lock
from .scheduler import Scheduler
from .upkeep import HISTORY, SCHEDULE, Upkeep
from ..home.workspace import Workspace


class _FileEvents:
    """The workspace's file watch (engine/disk/file_watch.py, the window's too): a change to one of
    `targets` (absolute path → relative name) calls `on_event(name)` on watchdog's thread.
    start() returns once the watch runs."""

    def __init__(self, ws: Workspace, targets: dict[str, str], on_event: Callable[[str], None]):
        self.watch = FileWatch(ws.root, lambda path, _complete: on_event(targets[path]) if path in targets else None)

    def start(self) -> None:
        self.watch.start()
        self.watch.wait_started()

    def stop(self) -> None:
        self.watch.stop()


class HistoryWatcher(_FileEvents):
    """A real append to history.jsonl (the file grew, or an atomic save brought a cursor above
    the last one seen) calls `on_change`. Reads are not activity: serve's own Consolidator reads
    the file at start and every minute, which would restart the idle wait forever."""

    def __init__(self, ws: Workspace, on_change: Callable[[], None]):
        from ..home.history import AppendDetector
        appended = AppendDetector(ws.history_path)
        super().__init__(ws, {str(ws.history_path): HISTORY},
                         lambda _name: on_change() if appended.check() else None)


class RemovalWatch:
    """`serve --watch`: what other writers remove from USER.md and memory/MEMORY.md is archived
    (engine/recovery/watch.py). Events only tell the upkeep loop (engine/jobs/upkeep.py); its observe compares
    content hashes, so a read or a touch is never a change, and all archiving happens on serve's
    one thread."""

    def __init__(self, ws: Workspace, upkeep: Upkeep, log: Callable[[str], None]):
        self.upkeep, self.log = upkeep, log
        def changed(rel: str) -> None:
            upkeep.outside_change({rel})

        self.events = _FileEvents(ws, {str(ws.root / rel): rel for rel in ws.layout.archived}, changed)

    def start(self) -> None:
        """Once this returns, every removal is archived: the files are remembered (or caught up
        with) before serve says the watch is on."""
        self.events.start()
        self.upkeep.watch_on()
        _run(self.upkeep, self.upkeep.due(busy=True), self.report, self.log)    # (the scheduler: not yet)
        self.log("watch: on (what other writers remove from USER.md and memory/MEMORY.md is archived)")

    def report(self, events) -> None:
        for e in events:
            self.log(f"watch: {e.message}" + ("" if e.later else f" (archived: {', '.join(e.ids)})"))

    def stop(self) -> None:
        self.events.stop()


def serve(ws: Workspace, make_client: Callable[[], LLMClient], stop: threading.Event,
          log: Callable[[str], None], now: Callable[[], datetime] | None = None,
          tick_seconds: float = 1.0, consolidate_every: float = 60.0, watch: bool = True,
          watch_removals: bool = False) -> int:
    """`watch`: the history activity watcher (the activity trigger); `watch_removals`: the
    opt-in watch that archives what other writers remove (`serve --watch`). Refused, in words,
    on a home whose assistant runs its own (OpenClaw)."""
    refuse_jobs(ws)
    clock = now or (lambda: datetime.now().astimezone())
    sched = Scheduler(ws)
    sched.start(clock())
    # the watch looks for commits every tick, as serve did before the loop was shared
    upkeep = Upkeep(ws, sched, clock, commit_every=timedelta(seconds=tick_seconds))
    upkeep.schedule_started(upkeep.schedule_on())
    watcher = None
    if watch and ws.memory_dir.is_dir():
        watcher = HistoryWatcher(ws, lambda: sched.note_activity(clock()))
        watcher.start()
    log(f"serving {ws.root}")
    removals = RemovalWatch(ws, upkeep, log) if watch_removals else None
    if removals:
        removals.start()
    follow = _ScheduleFollow(ws, sched, log)
    last_compact: float | None = None
    try:
        while not stop.is_set():
            t = clock()
            mono = time.monotonic()
            if last_compact is None or mono - last_compact >= consolidate_every:
                last_compact = mono
                _consolidate(ws, make_client, stop, t, log)
            follow.tick(t)
            _run(upkeep, upkeep.due(), removals.report if removals else None, log,
                 lambda trigger: _dream(ws, sched, make_client, trigger, stop, clock, log))
            stop.wait(tick_seconds)
    finally:
        for w in (watcher, removals):
            if w:
                w.stop()
        log("stopped")
    return 0


class _ScheduleFollow:
    """Dream turned on/off or its interval edited in config.json (by Dreamdesk, the assistant or
    a text editor) applies at once, as the GUI's Settings do; the schedule's line is logged when
    it changes."""

    def __init__(self, ws: Workspace, sched: Scheduler, log: Callable[[str], None]) -> None:
        self.ws, self.sched, self.log = ws, sched, log
        self.settings = _schedule_settings(ws)
        self.last_text: str | None = None

    def tick(self, t: datetime) -> None:
        now_settings = _schedule_settings(self.ws)
        if now_settings is not None:
            if self.settings is not None and now_settings != self.settings:
                self.sched.settings_changed(t)
                self.log("settings: enabled={}, schedule={}, intervalH={}".format(*now_settings))
            self.settings = now_settings
        st = self.sched.status(t)
        if st.text != self.last_text:
            self.log(f"schedule: {st.text}")
            self.last_text = st.text


def _run(upkeep: Upkeep, due: list[str], report, log: Callable[[str], None],
         dream: Callable[[str], None] | None = None) -> None:
    """The upkeep loop's due jobs, here on serve's thread, one after the other."""
    for kind in due:
        try:
            if kind == SCHEDULE:
                trigger = upkeep.run(kind)
                if trigger and dream:
                    dream(trigger)
            else:
                _guarded(lambda k=kind: report(upkeep.run(k)), log)  # type: ignore[misc]
        finally:
            upkeep.done(kind)


def _dream(ws: Workspace, sched: Scheduler, make_client, trigger: str, stop: threading.Event,
           now: Callable[[], datetime], log: Callable[[str], None]) -> None:
    log(f"dream: starting ({trigger})")
    try:
        client = make_client()
        res = run_dream(ws, client, DreamOptions(trigger=trigger), cancel=stop, progress=sched.progress)
        log(f"dream: {res.outcome}")
        sched.finished(now(), res.outcome, res.outcome if res.status == "failed" else None)
    except LockHeld as exc:
        log(f"dream: not started: {exc}")
        sched.finished(now(), error=str(exc))
    except Exception as exc:  # noqa: BLE001 - logged, and the service goes on
        log(f"dream: failed: {type(exc).__name__}: {exc}")
        sched.finished(now(), error=str(exc))


def _consolidate(ws: Workspace, make_client, stop: threading.Event, t: datetime,
                 log: Callable[[str], None]) -> None:
    try:
        with job_lock(ws):
            client = _client_or_none(make_client, log)
            run_consolidator(ws, client, cancel=stop, now=t, log=log)
    except LockHeld as exc:
        log(f"consolidator: skipped, {exc}")
    except Exception as exc:  # noqa: BLE001 - one bad session must not stop the service
        log(f"consolidator: {type(exc).__name__}: {exc}")


def _guarded(fn: Callable[[], None], log: Callable[[str], None]) -> None:
    try:
        fn()
    except LockHeld as exc:
        log(f"watch: skipped, {exc}")
    except Exception as exc:  # noqa: BLE001 - logged, and the service goes on
        log(f"watch: {type(exc).__name__}: {exc}")


def _schedule_settings(ws: Workspace) -> tuple | None:
    """None while config.json cannot be read as it is (mid-save, broken): its defaults are not
    the user's settings, and reacting to them would push the next dream back for nothing."""
    cfg = ws.config()
    if any(p.severity == "error" for p in cfg.problems):
        return None
    return bool(cfg.get("enabled")), cfg.get("schedule"), cfg.get("intervalH")


def _client_or_none(make_client: Callable[[], LLMClient], log: Callable[[str], None]) -> LLMClient | None:
    try:
        return make_client()
    except LLMError as exc:
        log(f"consolidator: no model ({exc}); compaction falls back to [RAW] entries")
        return None
