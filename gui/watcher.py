"""watchdog on the workspace → one debounced Qt signal with the set of changed paths.

Atomic saves arrive as a `moved` event whose dest_path is the real file (measured), so both
src_path and dest_path are reported. The root is watched shallowly and memory/ and skills/
deeply; when one of those folders vanishes, moves or is recreated, its watch follows.

Only other writers' changes are reported (issue 27): a path still exactly as Dreamdesk's own
write left it is that write's echo, which its job's change record already stands for
(engine/own_writes.py). Once the watch runs, its first look reports what changed since start()
was called (the open's read is asked for after that), not the whole workspace."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from dreamdesk.engine import own_writes

from .qt import QObject, QTimer, Signal, Slot

log = logging.getLogger(__name__)

DEBOUNCE_MS = 40
COMPLETE = ("closed", "moved")    # event types that end a write: nothing more of it is coming


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
        self._lock = threading.Lock()
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
        self._observer = None
        self._sync_lock = threading.Lock()

    def start(self) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        bridge = self._bridge
        root = str(self.root)
        outside = self._outside
        # before the open's read is asked for: the first look compares the tree with this (on
        # this thread, so nothing changes unseen; measured 9 ms for 2,000 files)
        self._before = tree_marks(self.root, self._outside)

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event):
                if event.event_type in ("opened", "closed_no_write"):
                    return
                if event.is_directory and event.event_type == "modified":
                    return     # a folder "modified" by a child's change: the child's own event says which
                complete = event.event_type in COMPLETE
                for p in (getattr(event, "src_path", None), getattr(event, "dest_path", None)):
                    if p:
                        p = p.decode() if isinstance(p, bytes) else p
                        if watched(p, root, outside):
                            bridge.raw.emit(p, complete)

        self._observer = Observer()
        self._observer.daemon = True
        self._handler = Handler()
        self._watched: dict[str, tuple[object, int]] = {}    # sub -> (watch, inode of the folder)
        # Adding a deep watch walks the folder (inotify, one watch per subfolder): measured up to
        # a quarter of a second on a workspace switch, so it happens off the GUI thread.
        self._starter = threading.Thread(target=self._start_observer, args=(self._observer, root),
                                         name="dreamdesk-watch-start", daemon=True)
        self._starter.start()

    def _start_observer(self, observer, root: str) -> None:
        try:
            with self._sync_lock:
                if observer is not self._observer:
                    return                  # stopped before it started
                # the root shallowly (never into .git or .dreamdesk), memory/ and skills/ deeply
                observer.schedule(self._handler, root, recursive=False)
                for folder in {str(Path(p).parent) for p in self._outside} - {root}:
                    if Path(folder).is_dir():
                        observer.schedule(self._handler, folder, recursive=False)
                self._sync_subdirs_locked()
                observer.start()
        except Exception as exc:  # noqa: BLE001 - said in the window, never a dead thread
            try:
                observer.unschedule_all()          # a watch added before the failure keeps no thread
                if observer.is_alive():
                    observer.stop()
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
            log.warning("watching %s failed: %s", self.root, exc, exc_info=exc)
            self._bridge.failed.emit(f"{type(exc).__name__}: {exc}")
            return
        # look once now: what changed between start() and the watch running
        for path in differing(self._before, tree_marks(self.root, self._outside)):
            if watched(path, str(self.root), self._outside):
                self._bridge.raw.emit(path, True)
        self._bridge.started.emit()

    def _sync_subdirs(self) -> None:
        with self._sync_lock:
            if self._observer is not None:
                self._sync_subdirs_locked()

    def _sync_subdirs_locked(self) -> None:
        """Watch memory/ and skills/ deeply as they are now: a folder that appeared is added; one
        that vanished, was moved away or was replaced by a new folder is dropped (and the new
        one watched), so a deleted-and-recreated memory/ is never left unwatched."""
        for sub in ("memory", "skills"):
            d = self.root / sub
            try:
                st = d.lstat()
                inode = st.st_ino if d.is_dir() and not d.is_symlink() else None
            except OSError:
                inode = None
            current = self._watched.get(sub)
            if current is not None and current[1] != inode:
                try:
                    self._observer.unschedule(current[0])
                except (KeyError, OSError):
                    pass           # its emitter already ended with the folder
                del self._watched[sub]
                current = None
            if current is None and inode is not None:
                try:
                    watch = self._observer.schedule(self._handler, str(d), recursive=True)
                except OSError:
                    continue       # gone again already; the next event retries
                self._watched[sub] = (watch, inode)

    def stop(self) -> None:
        starter = getattr(self, "_starter", None)
        if starter is not None:
            starter.join(timeout=5)
        with self._sync_lock:
            observer, self._observer = self._observer, None
        if observer is not None:
            if observer.is_alive():
                observer.stop()
                observer.join(timeout=5)

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
        if rel in ("memory", "skills") and self._observer is not None:
            self._sync_subdirs()    # the folder appeared, vanished or was replaced
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


def watched(path: str, root: str, outside: dict[str, str]) -> bool:
    """A path whose change is reported: one of the outside files, or one in the workspace but
    not in .git nor a temp or lock file."""
    return path in outside or (path.startswith(root) and "/.git/" not in path
                               and not path.endswith((".tmp", ".lock")))


def tree_marks(root: Path, outside: dict[str, str]) -> dict[str, own_writes.Mark]:
    """What the watch covers, as it is now: the root's own entries, everything under memory/
    and skills/, and the outside files (stats only: a few hundred at most)."""
    marks = {}
    for path in outside:
        marks[path] = own_writes.look(path)
    for sub in ("", "memory", "skills"):
        stack = [root / sub if sub else root]
        while stack:
            try:
                entries = list(os.scandir(stack.pop()))
            except OSError:
                continue
            for e in entries:
                try:
                    marks[e.path] = own_writes.mark_of(e.stat(follow_symlinks=False))
                except OSError:
                    continue
                if sub and e.is_dir(follow_symlinks=False):
                    stack.append(Path(e.path))
    return marks


def differing(before: dict, after: dict) -> list[str]:
    """The paths that appeared, went or changed between two tree_marks."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
