"""watchdog on the workspace → one debounced Qt signal with the set of changed paths.

Atomic saves arrive as a `moved` event whose dest_path is the real file (measured), so both
src_path and dest_path are reported. Folders that vanish and reappear are handled by watching
the workspace root recursively."""

from __future__ import annotations

import threading
from pathlib import Path

from .qt import QObject, QTimer, Signal, Slot

DEBOUNCE_MS = 40


class _Bridge(QObject):
    raw = Signal(str)


class WorkspaceWatcher(QObject):
    changed = Signal(object)          # set[str] of paths relative to the workspace

    def __init__(self, root: Path, parent: QObject | None = None, debounce_ms: int = DEBOUNCE_MS):
        super().__init__(parent)
        self.root = Path(root)
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._flush)
        self._bridge = _Bridge()
        self._bridge.raw.connect(self._on_raw)
        self._observer = None

    def start(self) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        bridge = self._bridge
        root = str(self.root)

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event):
                if event.event_type in ("opened", "closed_no_write"):
                    return
                for p in (getattr(event, "src_path", None), getattr(event, "dest_path", None)):
                    if p:
                        p = p.decode() if isinstance(p, bytes) else p
                        if p.startswith(root) and "/.git/" not in p and not p.endswith((".tmp", ".lock")):
                            bridge.raw.emit(p)

        self._observer = Observer()
        self._handler = Handler()
        # the root shallowly (never into .git or .dreamdesk), memory/ and skills/ deeply
        self._observer.schedule(self._handler, root, recursive=False)
        self._watched: set[str] = set()
        self._watch_subdirs()
        self._observer.daemon = True
        self._observer.start()

    def _watch_subdirs(self) -> None:
        for sub in ("memory", "skills"):
            d = self.root / sub
            if str(d) not in self._watched and d.is_dir() and not d.is_symlink():
                self._observer.schedule(self._handler, str(d), recursive=True)
                self._watched.add(str(d))

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    @Slot(str)
    def _on_raw(self, path: str) -> None:
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return
        self._pending.add(rel)
        if rel in ("memory", "skills") and self._observer is not None:
            self._watch_subdirs()   # the folder appeared after we started
        self._timer.start()

    @Slot()
    def _flush(self) -> None:
        paths, self._pending = self._pending, set()
        if paths:
            self.changed.emit(paths)
