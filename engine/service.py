"""`dreamdesk serve`: the Consolidator and the Dream scheduler for one workspace, headless, in
the foreground. One log line per decision, never a secret; SIGINT/SIGTERM stop it cleanly (a
running Dream is cancelled, which holds its cursor; every write is atomic)."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Callable

from .consolidator import run_consolidator
from .dream.run import DreamOptions, run_dream
from .files import LockHeld
from .llm import LLMClient, LLMError
from .restore import job_lock
from .scheduler import Scheduler
from .workspace import Workspace


class HistoryWatcher:
    """watchdog on memory/: a real append to history.jsonl (the file grew, or an atomic save
    brought a cursor above the last one seen) calls `on_change`. Reads are not activity:
    inotify reports every open and close, and serve's own Consolidator reads the file at start
    and every minute, which would restart the idle wait forever."""

    IGNORED = ("opened", "closed_no_write")

    def __init__(self, ws: Workspace, on_change: Callable[[], None]):
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        from .history import AppendDetector
        target = str(ws.history_path)
        appended = AppendDetector(ws.history_path)

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event):
                if event.event_type in HistoryWatcher.IGNORED:
                    return
                paths = {getattr(event, "src_path", None), getattr(event, "dest_path", None)}
                if target in {str(p) for p in paths if p} and appended.check():
                    on_change()

        self.observer = Observer()
        ws.memory_dir.mkdir(exist_ok=True) if ws.memory_dir.exists() else None
        self.observer.schedule(Handler(), str(ws.memory_dir), recursive=False)

    def start(self) -> None:
        self.observer.start()

    def stop(self) -> None:
        self.observer.stop()
        self.observer.join(timeout=5)


def serve(ws: Workspace, make_client: Callable[[], LLMClient], stop: threading.Event,
          log: Callable[[str], None], now: Callable[[], datetime] | None = None,
          tick_seconds: float = 1.0, consolidate_every: float = 60.0, watch: bool = True) -> int:
    now = now or (lambda: datetime.now().astimezone())
    sched = Scheduler(ws)
    sched.start(now())
    watcher = None
    if watch and ws.memory_dir.is_dir():
        watcher = HistoryWatcher(ws, lambda: sched.note_activity(now()))
        watcher.start()
    log(f"serving {ws.root}")
    settings = _schedule_settings(ws)
    last_text = None
    last_compact: float | None = None
    import time
    try:
        while not stop.is_set():
            t = now()
            mono = time.monotonic()
            if last_compact is None or mono - last_compact >= consolidate_every:
                last_compact = mono
                try:
                    with job_lock(ws):
                        client = _client_or_none(make_client, log)
                        run_consolidator(ws, client, cancel=stop, now=t, log=log)
                except LockHeld as exc:
                    log(f"consolidator: skipped, {exc}")
                except Exception as exc:  # noqa: BLE001 - one bad session must not stop the service
                    log(f"consolidator: {type(exc).__name__}: {exc}")
            # Dream turned on/off or its interval edited in config.json (by Dreamdesk, the
            # assistant or a text editor) applies at once, as the GUI's Settings do
            now_settings = _schedule_settings(ws)
            if now_settings is not None:
                if settings is not None and now_settings != settings:
                    sched.settings_changed(t)
                    log("settings: enabled={}, schedule={}, intervalH={}".format(*now_settings))
                settings = now_settings
            st = sched.status(t)
            if st.text != last_text:
                log(f"schedule: {st.text}")
                last_text = st.text
            trigger = sched.tick(t)
            if trigger:
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
            stop.wait(tick_seconds)
    finally:
        if watcher:
            watcher.stop()
        log("stopped")
    return 0


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
