"""The one file-watch adapter (watchdog), Qt-free: `dreamdesk serve` and the window's watcher
(gui/context/watcher.py) both watch a workspace through it (issue 27).

It watches the workspace root shallowly (never into .git or .dreamdesk), memory/ and skills/
deeply, and the folders of a few files outside the workspace (the home's config.json). When
memory/ or skills/ vanishes, moves or is recreated, its watch follows. Each event names a path
(as src_path and, for an atomic save, dest_path: measured, the real file arrives as a `moved`
event's dest_path) and whether the write is complete; opens and closes without a write are never
changes (inotify reports every read), nor is a folder "modified" by a child's change (the child's
own event says which).

`on_path(path, complete)` is called on watchdog's thread; the caller hands it on (a Qt signal, a
threading.Event). With `first_look`, once the watch runs it reports what changed between start()
and that moment (the watch starts off the caller's thread: a deep watch walks the folder)."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any, Callable

from . import own_writes

log = logging.getLogger(__name__)

IGNORED = ("opened", "closed_no_write")
COMPLETE = ("closed", "moved")    # event types that end a write: nothing more of it is coming
DEEP = ("memory", "skills")


class FileWatch:
    """watchdog on one workspace (and a few files outside it) → `on_path(abs_path, complete)`."""

    def __init__(self, root: Path, on_path: Callable[[str, bool], None], outside: tuple[str, ...] = (),
                 on_failed: Callable[[str], None] | None = None, on_started: Callable[[], None] | None = None,
                 first_look: bool = False):
        self.root = Path(root)
        self.outside = {str(Path(p)) for p in outside}
        self.on_path, self.on_failed, self.on_started = on_path, on_failed, on_started
        self.first_look = first_look
        self.lock = threading.Lock()          # held while the watch is being set up or changed
        self._observer: Any = None          # watchdog's Observer once started
        self._starter: threading.Thread | None = None
        self._watched: dict[str, tuple[object, int]] = {}    # sub -> (watch, inode of the folder)

    def start(self) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        root, outside, on_path = str(self.root), self.outside, self.on_path

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event):
                if event.event_type in IGNORED:
                    return
                if event.is_directory and event.event_type == "modified":
                    return
                complete = event.event_type in COMPLETE
                for p in (getattr(event, "src_path", None), getattr(event, "dest_path", None)):
                    if p:
                        p = p.decode() if isinstance(p, bytes) else p
                        if watched(p, root, outside):
                            on_path(p, complete)

        # before the caller's first read: the first look compares the tree with this (on this
        # thread, so nothing changes unseen; measured 9 ms for 2,000 files)
        self._before = tree_marks(self.root, self.outside) if self.first_look else None
        self._observer = Observer()
        self._observer.daemon = True
        self._handler = Handler()
        # Adding a deep watch walks the folder (inotify, one watch per subfolder): measured up to
        # a quarter of a second on a workspace switch, so it happens off the caller's thread.
        self._starter = threading.Thread(target=self._start_observer, args=(self._observer,),
                                         name="dreamdesk-watch-start", daemon=True)
        self._starter.start()

    def wait_started(self, timeout: float = 5) -> None:
        if self._starter is not None:
            self._starter.join(timeout)

    def _start_observer(self, observer) -> None:
        root = str(self.root)
        try:
            with self.lock:
                if observer is not self._observer:
                    return                  # stopped before it started
                observer.schedule(self._handler, root, recursive=False)
                for folder in {str(Path(p).parent) for p in self.outside} - {root}:
                    if Path(folder).is_dir():
                        observer.schedule(self._handler, folder, recursive=False)
                self._sync_subdirs_locked()
                observer.start()
        except Exception as exc:  # noqa: BLE001 - said to the caller, never a dead thread
            try:
                observer.unschedule_all()          # a watch added before the failure keeps no thread
                if observer.is_alive():
                    observer.stop()
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
            log.warning("watching %s failed: %s", self.root, exc, exc_info=exc)
            if self.on_failed:
                self.on_failed(f"{type(exc).__name__}: {exc}")
            return
        if self._before is not None:
            # look once now: what changed between start() and the watch running
            for path in differing(self._before, tree_marks(self.root, self.outside)):
                if watched(path, root, self.outside):
                    self.on_path(path, True)
        if self.on_started:
            self.on_started()

    def sync_subdirs(self) -> None:
        """memory/ or skills/ appeared, vanished or was replaced: the deep watch follows."""
        with self.lock:
            if self._observer is not None:
                self._sync_subdirs_locked()

    def _sync_subdirs_locked(self) -> None:
        """Watch memory/ and skills/ deeply as they are now: a folder that appeared is added; one
        that vanished, was moved away or was replaced by a new folder is dropped (and the new
        one watched), so a deleted-and-recreated memory/ is never left unwatched."""
        for sub in DEEP:
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

    @property
    def running(self) -> bool:
        return self._observer is not None

    def stop(self) -> None:
        if self._starter is not None:
            self._starter.join(timeout=5)
        with self.lock:
            observer, self._observer = self._observer, None
        if observer is not None and observer.is_alive():
            observer.stop()
            observer.join(timeout=5)


def watched(path: str, root: str, outside) -> bool:
    """A path whose change is reported: one of the outside files, or one in the workspace but
    not in .git nor a temp or lock file."""
    return path in outside or (path.startswith(root) and "/.git/" not in path
                               and not path.endswith((".tmp", ".lock")))


def tree_marks(root: Path, outside) -> dict[str, own_writes.Mark]:
    """What the watch covers, as it is now: the root's own entries, everything under memory/
    and skills/, and the outside files (stats only: a few hundred at most)."""
    marks = {}
    for path in outside:
        marks[path] = own_writes.look(path)
    for sub in ("",) + DEEP:
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
