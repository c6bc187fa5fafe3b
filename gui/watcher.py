"""watchdog on the workspace → one debounced Qt signal with the set of changed paths.

Atomic saves arrive as a `moved` event whose dest_path is the real file (measured), so both
src_path and dest_path are reported. The root is watched shallowly and memory/ and skills/
deeply; when one of those folders vanishes, moves or is recreated, its watch follows."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from .qt import QObject, QTimer, Signal, Slot

log = logging.getLogger(__name__)

DEBOUNCE_MS = 40
COMPLETE = ("closed", "moved")    # event types that end a write: nothing more of it is coming


class _Bridge(QObject):
    raw = Signal(str, bool)           # path, and whether the write is complete (closed or moved into place)
    failed = Signal(str)


class WorkspaceWatcher(QObject):
    changed = Signal(object)          # set[str] of paths relative to the workspace
    failed = Signal(str)              # live updates could not start (inotify limit, permissions...)

    def __init__(self, root: Path, parent: QObject | None = None, debounce_ms: int = DEBOUNCE_MS,
                 outside: dict[Path, str] | None = None):
        """`outside`: files beyond the workspace to watch too (the home's config.json), each with
        the name it is reported under."""
        super().__init__(parent)
        self.root = Path(root)
        self._outside = {str(Path(p)): name for p, name in (outside or {}).items()}
        self._pending: set[str] = set()
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
        self._observer = None
        self._sync_lock = threading.Lock()

    def start(self) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        bridge = self._bridge
        root = str(self.root)
        outside = self._outside

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
                        if p in outside or (p.startswith(root) and "/.git/" not in p
                                            and not p.endswith((".tmp", ".lock"))):
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
        self._bridge.raw.emit(str(self.root / "memory"), True)   # look once now: nothing changed unseen meanwhile

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

    @Slot(str, bool)
    def _on_raw(self, path: str, complete: bool = False) -> None:
        try:
            rel = self._outside.get(path) or Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return
        self._pending.add(rel)
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
        paths, self._pending = self._pending, set()
        if paths:
            self.changed.emit(paths)
