"""The workspace's file watch (engine/disk/file_watch.py, the one adapter `serve` uses too) → one
debounced Qt signal with the set of changed paths, relative to the workspace.

Only other writers' changes are reported (issue 27): a path still exactly as Dreamdesk's own
write left it is that write's echo, which its job's change record already stands for
(engine/disk/own_writes.py). Once the watch runs, its first look reports what changed since start()
was called (the open's read is asked for after that), not the whole workspace."""

from __future__ import annotations

import time
from pathlib import Path

from dreamdesk.engine.disk import own_writes
from dreamdesk.engine.disk.file_watch import DEEP, FileWatch

from ..qt import QObject, QTimer, Signal, Slot

DEBOUNCE_MS = 40


class _Bridge(QObject):
    raw = Signal(str, bool)           # path, and whether the write is complete (closed or moved into place)
    failed = Signal(str)
    started = Signal()


class WorkspaceWatcher(QObject):
    changed = Signal(object)          # set[str] of paths relative to the workspace
    failed = Signal(str)              # live updates could not start (inotify limit, permissions...)
    started = Signal()                # the watch runs and its first look is done
    settled = Signal(object, object)  # each look: the paths reported, and those left as our own writes' echoes

    def __init__(self, root: Path, parent: QObject | None = None, debounce_ms: int = DEBOUNCE_MS,
                 outside: dict[Path, str] | None = None):
        """`outside`: files beyond the workspace to watch too (the home's config.json), each with
        the name it is reported under."""
        super().__init__(parent)
        self.root = Path(root)
        self._outside = {str(Path(p)): name for p, name in (outside or {}).items()}
        self._pending: dict[str, str] = {}     # relative name -> the absolute path an event named
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._debounce_ms = debounce_ms
        self._last_flush = 0.0
        self._timer.timeout.connect(self._flush)
        self._bridge = _Bridge()
        self._bridge.raw.connect(self._on_raw)
        self._bridge.failed.connect(self.failed)
        self._bridge.started.connect(self._on_started)
        self.looked = False               # the watch runs and its first look is done
        bridge = self._bridge
        self._watch = FileWatch(self.root, bridge.raw.emit, tuple(self._outside), bridge.failed.emit,
                                bridge.started.emit, first_look=True)
        self._sync_lock = self._watch.lock    # held: the watch cannot start (tests hold it)

    def start(self) -> None:
        # before the open's read is asked for: the first look compares the tree with this
        self._watch.start()

    def stop(self) -> None:
        self._watch.stop()

    @property
    def running(self) -> bool:
        return self._watch.running

    @Slot()
    def _on_started(self) -> None:
        self.looked = True
        self.started.emit()

    @Slot(str, bool)
    def _on_raw(self, path: str, complete: bool = False) -> None:
        try:
            rel = self._outside.get(path) or Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return
        self._pending[rel] = path
        if rel in DEEP:
            self._watch.sync_subdirs()    # the folder appeared, vanished or was replaced
        if complete and time.monotonic() - self._last_flush >= self._debounce_ms / 1000:
            # a finished write (closed after writing, or renamed into place), none said just now:
            # said at once (with whatever else is already queued), not after the debounce
            self._timer.stop()
            QTimer.singleShot(0, self._flush)
        else:
            self._timer.start()

    @Slot()
    def _flush(self) -> None:
        self._last_flush = time.monotonic()
        pending, self._pending = self._pending, {}
        report, ours = set(), set()
        for rel, path in pending.items():
            echo = own_writes.echo(path)
            if echo is None:
                self._pending[rel] = path      # a write of ours to it is under way: looked at once it lands
            else:
                (ours if echo else report).add(rel)
        if self._pending:
            self._timer.start()
        if report:
            self.changed.emit(report)
        if report or ours:
            self.settled.emit(report, ours)

