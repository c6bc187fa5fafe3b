"""Engine jobs off the GUI thread.

Two QThreads: the *writer* runs every job that writes to the workspace (Dream, compaction,
saves, restores, settings), one at a time, so writes never interleave; the *reader* runs disk
scans and git reads (status, history, diffs) so the views stay live while a long Dream runs.
Jobs are plain callables `fn(ctx)`; results come back to the GUI thread by signal and are
dispatched to the callbacks given at submit time. A result that arrives for a job the caller
no longer wants (a newer one replaced it) is dropped via its token.

A failure a view did not ask to handle is shown by its kind: an expected one (the engine's
WorkspaceError: a refusal, a conflict, a held lock) as a status-bar line; an OS error as a
dialog in words; anything else is a bug, and its dialog carries the traceback.
"""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from collections import deque
import logging
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

from dreamdesk.engine.disk import changes
from dreamdesk.engine.core import redact
from dreamdesk.engine.disk.oserrors import explain
from dreamdesk.engine.core.problems import WorkspaceError

from ..qt import QObject, QThread, Signal, Slot

log = logging.getLogger(__name__)

EXPECTED, OS, BUG = "expected", "os", "bug"     # kinds of failure


@dataclass
class JobContext:
    """What a job gets: a cancel flag and a progress callback (thread-safe)."""

    cancel: threading.Event
    progress: Callable[[dict], None]


@dataclass
class Job:
    id: int
    name: str
    cancel: threading.Event = field(default_factory=threading.Event)
    bookkeeping: bool = False     # Dreamdesk's own short upkeep, not a job the person asked for


@dataclass
class Callbacks:
    """What a job's caller is told, and whether it still wants to be: `wanted` is asked once,
    on the GUI thread, before any callback of the job runs (its progress too); False drops the
    result without a word (a newer request replaced it, or another workspace is open now)."""
    job: Job
    done: Callable[[Any], None]
    failed: Callable[[str, str], None] | None = None
    progress: Callable[[dict], None] | None = None
    wanted: Callable[[], bool] | None = None
    # told the failure's kind too (EXPECTED, OS, BUG), in place of `failed`: the caller says each
    # kind its own way (gui/operations/run.py: a bug's dialog keeps its traceback)
    failed_kind: Callable[[str, str, str], None] | None = None

    def still_wanted(self) -> bool:
        return self.wanted is None or bool(self.wanted())


class _Runner(QObject):
    """Runs one lane's jobs. `verb` says what a failing OS call was doing ("write", "read")."""

    verb = "write"
    progress = Signal(int, dict)
    done = Signal(int, object)
    failed = Signal(int, str, str, str)  # job id, message for the user (words), traceback, kind of failure
    wrote = Signal(int, object)         # job id, frozenset of the absolute paths it wrote

    queue: deque

    @Slot()
    def run_next(self) -> None:
        # the lane's name in log lines, not Python's "Dummy-7" for a thread it did not start
        threading.current_thread().name = QThread.currentThread().objectName()
        job_id, payload = self.queue.popleft()
        self.run(job_id, payload)

    def run(self, job_id: int, payload: object) -> None:
        fn, cancel, name = payload
        ctx = JobContext(cancel, lambda ev, _id=job_id: self.progress.emit(_id, dict(ev)))
        started, level = time.monotonic(), logging.INFO if self.verb == "write" else logging.DEBUG
        log.log(level, "%s: started", name)
        with changes.recording() as written:       # every path the job writes, failed or not
            try:
                result = fn(ctx)
            except Exception as exc:  # noqa: BLE001 - reported to the user, never swallowed
                error = (_message(exc, self.verb), redact.scrub(traceback.format_exc()), _kind(exc))
                _log_failure(name, exc, error[2], time.monotonic() - started)
            else:
                error = None
                log.log(level, "%s: done in %.2f s", name, time.monotonic() - started)
        if written:
            self.wrote.emit(job_id, frozenset(written))    # before done: the record arrives first
        if error is not None:
            self.failed.emit(job_id, *error)
        else:
            self.done.emit(job_id, result)


def _kind(exc: BaseException) -> str:
    if isinstance(exc, WorkspaceError):
        return EXPECTED
    return OS if isinstance(exc, OSError) else BUG


def _log_failure(name: str, exc: BaseException, kind: str, seconds: float) -> None:
    if kind == EXPECTED:     # the engine's words say it all: no traceback
        log.warning("%s: refused after %.2f s: %s", name, seconds, exc)
    else:
        log.error("%s: failed after %.2f s: %s", name, seconds, exc, exc_info=exc)


def _message(exc: BaseException, verb: str) -> str:
    text = redact.scrub(explain(exc, verb))
    return text if len(text) < 600 else text[:600] + "…"


class _Lane(QObject):
    """One thread and its queue of jobs. A job put `first` runs before those already waiting
    (the read of what the person is looking at); otherwise jobs run in the order given."""

    wake = Signal()

    def __init__(self, name: str, parent: QObject, verb: str):
        super().__init__(parent)
        self.thread = QThread(parent)
        self.thread.setObjectName(name)
        self.queue: deque = deque()
        self.runner = _Runner()
        self.runner.verb = verb
        self.runner.queue = self.queue
        self.runner.moveToThread(self.thread)
        self.wake.connect(self.runner.run_next)
        self.thread.start()

    def put(self, job_id: int, payload: object, first: bool = False) -> None:
        (self.queue.appendleft if first else self.queue.append)((job_id, payload))
        self.wake.emit()             # one wake per job: each runs exactly one


class JobLanes(QObject):
    """The GUI's handle on the engine's threads: a reader lane and a writer lane (named apart from
    dreamdesk.engine, the package the jobs call)."""

    jobFinished = Signal(str)
    notice = Signal(str)        # an expected failure no view handles: a line for the status bar
    wrote = Signal(object)      # the absolute paths a job wrote (its change record, just before its result)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._ids = itertools.count(1)
        self._callbacks: dict[int, Callbacks] = {}
        self.writer = _Lane("dreamdesk-writer", self, "write")
        self.reader = _Lane("dreamdesk-reader", self, "read")
        for lane in (self.writer, self.reader):
            lane.runner.done.connect(self._on_done)
            lane.runner.failed.connect(self._on_failed)
            lane.runner.progress.connect(self._on_progress)
            lane.runner.wrote.connect(self._on_wrote)
        self.running_writes: dict[int, Job] = {}
        self._written: dict[int, frozenset] = {}
        # True once a window routes each job's change record to the views that show what it
        # touched: a view then leaves its refresh after its own job to that record
        self.routed = False
        self._finishing_depth = 0

    def _submit(self, lane: _Lane, name: str, fn: Callable[[JobContext], Any], on_done: Callable[[Any], None],
                on_failed: Callable[[str, str], None] | None, on_progress: Callable[[dict], None] | None,
                first: bool = False, wanted: Callable[[], bool] | None = None,
                failed_kind: Callable[[str, str, str], None] | None = None, bookkeeping: bool = False) -> Job:
        job = Job(next(self._ids), name, bookkeeping=bookkeeping)
        self._callbacks[job.id] = Callbacks(job, on_done, on_failed, on_progress, wanted, failed_kind)
        if lane is self.writer:
            self.running_writes[job.id] = job
        lane.put(job.id, (fn, job.cancel, name), first)
        return job

    def write(self, name, fn, on_done, on_failed=None, on_progress=None, wanted=None, failed_kind=None,
              bookkeeping: bool = False) -> Job:
        """A write on the writer lane; `bookkeeping`: Dreamdesk's own upkeep (the watch's), which
        closing the window does not ask about."""
        return self._submit(self.writer, name, fn, on_done, on_failed, on_progress, wanted=wanted,
                            failed_kind=failed_kind, bookkeeping=bookkeeping)

    def read(self, name, fn, on_done, on_failed=None, on_progress=None, first: bool = False, wanted=None) -> Job:
        """A read on the reader thread; `first`: before the reads already waiting (what is shown);
        `wanted`: asked before its result is handed on (Callbacks)."""
        return self._submit(self.reader, name, fn, on_done, on_failed, on_progress, first, wanted)

    @property
    def busy(self) -> bool:
        return bool(self.running_writes)

    @property
    def idle(self) -> bool:
        """No job waiting or running, and every answer handed to its callback (what a test waits
        for instead of sleeping)."""
        return not self._callbacks

    def cancel_all(self) -> None:
        for job in self.running_writes.values():
            job.cancel.set()

    @Slot(int, object)
    def _on_wrote(self, job_id: int, paths: frozenset) -> None:
        self._written[job_id] = paths        # (said with the job's result: see _finish)

    def _finish(self, job_id: int):
        """The job's change record, then its end: said in the one slot that runs its callback,
        so what the record asks and what the callback asks merge into one read."""
        paths = self._written.pop(job_id, None)
        if paths:
            self.wrote.emit(paths)
        cb = self._callbacks.pop(job_id, None)
        if cb and job_id in self.running_writes:
            job = self.running_writes.pop(job_id)
            self.jobFinished.emit(job.name)
        return cb

    @Slot(int, object)
    def _on_done(self, job_id: int, result: object) -> None:
        with self._finishing():
            cb = self._finish(job_id)
            if cb and cb.still_wanted():
                cb.done(result)

    @Slot(int, str, str, str)
    def _on_failed(self, job_id: int, message: str, tb: str, kind: str) -> None:
        with self._finishing():
            cb = self._finish(job_id)
            if cb is None or not cb.still_wanted():
                return                       # nobody waits for it any more (a newer request says its own)
            if cb.failed_kind:
                cb.failed_kind(message, tb, kind)
            elif cb.failed:
                cb.failed(message, tb)
            elif kind == EXPECTED:
                self.notice.emit(f"{cb.job.name}: {message}")
            else:
                from ..app.errors import report_error
                report_error(f"{cb.job.name} failed", message, tb if kind == BUG else "")

    @property
    def finishing(self) -> bool:
        """A job's change record and its callback are being said now: what both ask for can be
        gathered and done once, after them."""
        return self._finishing_depth > 0

    @contextmanager
    def _finishing(self):
        self._finishing_depth += 1       # (a callback's dialog may finish another job inside it)
        try:
            yield
        finally:
            self._finishing_depth -= 1

    @Slot(int, dict)
    def _on_progress(self, job_id: int, event: dict) -> None:
        cb = self._callbacks.get(job_id)
        if cb and cb.progress and cb.still_wanted():
            cb.progress(event)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.cancel_all()
        for lane in (self.writer, self.reader):
            lane.thread.quit()
            lane.thread.wait(timeout_ms)


class Latest:
    """A token that drops stale results: only the newest request's answer is applied."""

    def __init__(self):
        self._n = 0

    def next(self) -> int:
        self._n += 1
        return self._n

    def current(self, token: int) -> bool:
        return token == self._n


class Coalesced:
    """Requests for one read merge while it waits its turn: `add` says whether a read must be
    queued (none is waiting); the read `take`s everything asked so far when it starts, and one
    that finds nothing (an earlier one took it) does nothing. Thread-safe: added on the GUI
    thread, taken on the reader's."""

    def __init__(self):
        self._lock = threading.Lock()
        self._asked = None
        self._queued = False

    def add(self, changes) -> bool:
        with self._lock:
            self._asked = changes if self._asked is None else self._asked | changes
            queue, self._queued = not self._queued, True
            return queue

    def take(self):
        with self._lock:
            asked, self._asked, self._queued = self._asked, None, False
            return asked
