"""When Dream runs on its own, and why it is not running now (spec section 5, Scheduling).

Pure decisions with an injected clock: `Scheduler.tick(now)` says what to do, the service (or
the GUI) runs it. `interval`: every intervalH hours, the deadline persisted in
memory/dreams/schedule.json so a run missed while closed is caught up shortly after start.
`activity` (Honcho): at least activityThreshold new history entries since the last dream and
cooldownH hours since it, then idleMinutes without a new history line (each new line restarts
the wait). A manual request bypasses threshold and cooldown. Never two runs, never two pending.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import msgspec

from ..core import clock
from ..assistants import jobs_refused
from ..assistants.home_repo import hide_own_files
from ..home.config import REVIEW_FLOOR, REVIEW_FLOOR_REASON
from ..home.cursors import read_cursor
from ..disk.files import atomic_write_text, lock_is_held
from ..home.workspace import Workspace
from ..core.state import lock_path

if TYPE_CHECKING:
    from ..dream.runtypes import RunRecord

CATCH_UP_DELAY = timedelta(seconds=60)   # "shortly after start"

DISABLED, BELOW, COOLING, WAITING_IDLE, SCHEDULED, QUEUED, RUNNING = (
    "disabled", "below-threshold", "cooling-down", "waiting-for-idle", "scheduled", "queued", "running")
BY_ASSISTANT = "by-the-assistant"      # enabled, but Dreamdesk does not schedule it here


def _iso(t: datetime | None) -> str | None:
    return t.isoformat(timespec="seconds") if t else None


def _parse(s) -> datetime | None:
    if not isinstance(s, str):
        return None
    try:
        t = datetime.fromisoformat(s)
    except ValueError:
        return None
    return t if t.tzinfo else t.astimezone()


def _stat_key(path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


class _LastError(msgspec.Struct):
    at: str | None
    error: str


class _Schedule(msgspec.Struct):
    """schedule.json: the next interval deadline, and the last run's error (for another
    process's `dreamdesk schedule`)."""
    next_deadline: str | None = None
    last_error: _LastError | None = None


def _schedule_from(data: object) -> _Schedule:
    """What a schedule.json holds; a field of the wrong shape is read as unset, the others kept
    (a hand-edited deadline does not lose the last error)."""
    if not isinstance(data, dict):
        return _Schedule()
    kept = {}
    for f in msgspec.structs.fields(_Schedule):
        try:
            kept[f.name] = msgspec.convert(data.get(f.encode_name), f.type)
        except msgspec.ValidationError:
            pass
    return _Schedule(**kept)


def schedule_path(ws: Workspace):
    return ws.dreams_dir / "schedule.json"


@dataclass
class ScheduleStatus:
    state: str
    text: str                          # plain words: why (not) dreaming
    mode: str
    enabled: bool
    next_at: datetime | None = None
    new_entries: int = 0
    threshold: int | None = None
    last_run: dict | None = None
    last_error: str | None = None
    stuck: dict | None = None
    running: dict | None = None        # pass, iteration, tokens while running
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"state": self.state, "text": self.text, "mode": self.mode, "enabled": self.enabled,
                "next_at": _iso(self.next_at), "new_entries": self.new_entries, "threshold": self.threshold,
                "last_run": self.last_run, "last_error": self.last_error, "stuck": self.stuck,
                "running": self.running, "warnings": self.warnings}


def _locked(method):
    """One caller at a time: the app asks tick() on its reader thread while finished() or
    settings_changed() run on its writer thread (a tick between "not running" and the new
    deadline would start a second run)."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return wrapper


class Scheduler:
    """One workspace's schedule. Its public methods are serialised by a lock, so the service's
    loop or the app's reader and writer threads may call them."""

    def __init__(self, ws: Workspace):
        """Reads only: a scheduler that is never started can still answer status()."""
        self.ws = ws
        self._lock = threading.RLock()
        self.queued: str | None = None          # trigger of the pending run
        self.running: dict | None = None
        self.last_error: str | None = None
        self.last_activity: datetime | None = None
        self._pending_cache: tuple[tuple, int] | None = None
        self._data = self._load()
        self._refused: tuple[str | None] | None = None

    @property
    def refused(self) -> str | None:
        """Why Dreamdesk schedules no Dream here (the home's assistant dreams itself), once asked."""
        if self._refused is None:
            self._refused = (jobs_refused(self.ws),)
        return self._refused[0]

    @_locked
    def start(self, now: datetime) -> None:
        """Dreamdesk takes over scheduling for this workspace (writes schedule.json); never on a
        home whose assistant dreams itself."""
        if self.refused:
            return
        cfg = self.ws.config()
        if cfg.get("schedule") == "interval" and cfg.get("enabled"):
            deadline = self.deadline
            if deadline is None:
                self._set_deadline(now + timedelta(hours=float(cfg.get("intervalH"))))
            elif deadline < now:
                # missed while Dreamdesk was closed: catch up shortly after start
                self._set_deadline(now + CATCH_UP_DELAY)

    # -- persistence --------------------------------------------------------------------
    def _load(self) -> _Schedule:
        try:
            data = json.loads(schedule_path(self.ws).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return _Schedule()
        return _schedule_from(data)

    def _save(self) -> None:
        text = json.dumps(msgspec.to_builtins(self._data), indent=2)
        hide_own_files(self.ws)
        atomic_write_text(schedule_path(self.ws), text + "\n")

    def _set_deadline(self, t: datetime | None) -> None:
        self._data.next_deadline = _iso(t)
        self._save()

    @property
    def deadline(self) -> datetime | None:
        return _parse(self._data.next_deadline)

    # -- inputs -------------------------------------------------------------------------
    def note_activity(self, now: datetime) -> None:
        """A new history line arrived (watchdog): restarts the activity idle wait. Not locked:
        one assignment, called from the app's GUI thread, which must never wait on a tick."""
        self.last_activity = now

    @_locked
    def request(self, trigger: str = "manual") -> bool:
        """Ask for a run now. False when one is already queued or running (deduplicated)."""
        if self.running is not None or self.queued is not None:
            return False
        self.queued = trigger
        return True

    @_locked
    def settings_changed(self, now: datetime) -> None:
        """Dream turned on/off or the interval changed: applies at once."""
        if self.refused:
            return
        cfg = self.ws.config()
        if cfg.get("schedule") == "interval" and cfg.get("enabled"):
            self._set_deadline(now + timedelta(hours=float(cfg.get("intervalH"))))
        elif self.queued not in (None, "manual"):
            self.queued = None

    @_locked
    def requeue(self, trigger: str) -> None:
        """A run tick() started could not begin (the app was busy): queue it again."""
        self.running, self.queued = None, trigger

    @_locked
    def requeue_cancel(self) -> None:
        """A run tick() started will not begin at all (scheduling was turned off meanwhile)."""
        self.running = None

    # -- decisions ------------------------------------------------------------------------
    def _last_dream(self) -> tuple[datetime | None, dict | None]:
        from ..dream.run_state import load_state
        last = load_state(self.ws).get("last_run")
        t = _parse(last.get("finished")) if isinstance(last, dict) else None
        return t, last if isinstance(last, dict) else None

    def _new_entries(self) -> int:
        # tick() asks every second: counted again only when history.jsonl or the dream cursor
        # changed on disk (the key is taken before the read, so a later append shows next time);
        # the Workspace's reader parses only what was appended since it last read
        key = (_stat_key(self.ws.history_path), _stat_key(self.ws.dream_cursor_path))
        if self._pending_cache is not None and self._pending_cache[0] == key:
            return self._pending_cache[1]
        dream, _ = read_cursor(self.ws.dream_cursor_path, "memory/.dream_cursor")
        n = self.ws.history().pending_count(dream)
        self._pending_cache = (key, n)
        return n

    @_locked
    def tick(self, now: datetime) -> str | None:
        """The trigger of a run to start now (and mark it running), or None."""
        if self.running is not None or self.refused:
            return None
        if self.queued is None:
            cfg = self.ws.config()
            if cfg.get("enabled"):
                if cfg.get("schedule") == "interval":
                    d = self.deadline
                    if d is not None and now >= d:
                        self.queued = "interval"
                elif self._activity_ready(now, cfg) is None:
                    self.queued = "activity"
        if self.queued is None:
            return None
        trigger, self.queued = self.queued, None
        self.running = {"trigger": trigger, "since": _iso(now), "pass": None, "iteration": 0, "tokens": 0}
        return trigger

    def _activity_ready(self, now: datetime, cfg) -> ScheduleStatus | None:
        """None when an activity dream should start now, else the status that says why not."""
        threshold = int(cfg.get("activityThreshold"))
        n = self._new_entries()
        base: dict[str, Any] = dict(mode="activity", enabled=True, new_entries=n, threshold=threshold)
        if n < threshold:
            return ScheduleStatus(BELOW, f"Waiting for new history: {n} of {threshold} new entries since the last dream.",
                                  **base)
        last, _ = self._last_dream()
        cooldown = timedelta(hours=float(cfg.get("cooldownH")))
        if last is not None and now < last + cooldown:
            until = last + cooldown
            return ScheduleStatus(COOLING, f"Cooling down until {clock.show(until)} "
                                           f"({cfg.get('cooldownH'):g} h after the last dream).", next_at=until, **base)
        idle = timedelta(minutes=float(cfg.get("idleMinutes")))
        latest = self.last_activity or self._history_mtime()
        if latest is not None and now < latest + idle:
            until = latest + idle
            return ScheduleStatus(WAITING_IDLE, f"Waiting for the conversation to settle: dreaming at "
                                                f"{clock.show(until)[11:]} unless a new history line arrives first.",
                                  next_at=until, **base)
        return None

    def _history_mtime(self) -> datetime | None:
        try:
            return datetime.fromtimestamp(self.ws.history_path.stat().st_mtime).astimezone()
        except OSError:
            return None

    @_locked
    def finished(self, now: datetime, outcome: str | None = None, error: str | None = None) -> None:
        """The run that tick() started has ended (any outcome). The last error is kept in
        schedule.json too, so `dreamdesk schedule` in another terminal can say it."""
        self.last_error = error
        self._data.last_error = _LastError(_iso(now), error) if error else None
        cfg = self.ws.config()
        try:
            if cfg.get("schedule") == "interval" and cfg.get("enabled"):
                self._set_deadline(now + timedelta(hours=float(cfg.get("intervalH"))))
            else:
                self._save()
        finally:
            self.running = None      # last: the next deadline is set before a tick may see "idle"

    def _stored_error(self) -> str | None:
        fresh = self._load().last_error      # another process may have written it
        return f"{fresh.error} ({fresh.at})" if fresh is not None else None

    def _run_elsewhere(self) -> RunRecord | None:
        """A Dream run in progress in another process or window: the newest run record says
        "running" and the workspace's job lock is held (a record left "running" by a crash,
        with no lock held, is not a run in progress). list_runs parses only records changed
        since it last looked."""
        from ..dream import records       # (here: the dashboard imports this module before its first paint)
        runs, _ = records.list_runs(self.ws)
        if not runs or runs[0].status != "running":
            return None
        if not lock_is_held(lock_path(self.ws.root, "job")):
            return None
        return runs[0]

    @_locked
    def progress(self, event: dict) -> None:
        if self.running is not None:
            self.running.update({k: event[k] for k in ("pass", "iteration", "tokens") if k in event})

    # -- the answer to "why is no dream running?" ----------------------------------------------
    @_locked
    def status(self, now: datetime, own_job: bool = False) -> ScheduleStatus:
        """`own_job`: the caller itself is running a job on this workspace (so a held job lock
        is its own, not a run elsewhere)."""
        cfg = self.ws.config()
        mode = cfg.get("schedule")
        if self.refused:
            return ScheduleStatus(BY_ASSISTANT, self.refused + ".", mode, False)
        from ..dream.run_state import load_state
        _, last = self._last_dream()
        state = load_state(self.ws)
        stuck = state.get("stuck")
        warnings = []
        for f, n in sorted((state.get("refusal_streak") or {}).items()):
            if n >= 3:
                warnings.append(f"Writes to {f} were refused by its budget on {n} runs in a row.")
        if int(cfg.get("reviewEveryRuns")) < REVIEW_FLOOR:
            warnings.append(f"reviewEveryRuns is {cfg.get('reviewEveryRuns')}, below the floor of {REVIEW_FLOOR}.")
        extra: dict[str, Any] = dict(last_run=last, last_error=self.last_error or self._stored_error(), stuck=stuck,
                                     warnings=warnings, new_entries=self._new_entries())
        other = None if self.running is not None or own_job else self._run_elsewhere()
        if other is not None:
            done = len(other.passes)
            started = _parse(other.started)
            when = f" started {clock.show(started)[11:]}" if started else ""
            text = (f"A Dream run ({other.trigger or 'manual'}){when} is in progress in another window or "
                    f"process — {done} pass{'es' if done != 1 else ''} done so far.")
            return ScheduleStatus(RUNNING, text, mode, bool(cfg.get("enabled")),
                                  running={"trigger": other.trigger, "since": other.started,
                                           "run_id": other.id, "elsewhere": True}, **extra)
        if self.running is not None:
            r = self.running
            where = f" — {r['pass']} pass, iteration {r['iteration']}, {r['tokens']:,} tokens" if r.get("pass") else ""
            return ScheduleStatus(RUNNING, f"Dreaming now ({r['trigger']}){where}.", mode, bool(cfg.get("enabled")),
                                  running=dict(r), **extra)
        if self.queued is not None:
            return ScheduleStatus(QUEUED, f"A {self.queued} dream is queued and starts in a moment.", mode,
                                  bool(cfg.get("enabled")), **extra)
        if not cfg.get("enabled"):
            return ScheduleStatus(DISABLED, "Dream is turned off for this workspace (dream.enabled in config.json). "
                                            "Dream now still works.", mode, False, **extra)
        if mode == "interval":
            d = self.deadline
            if d is None:
                return ScheduleStatus(BY_ASSISTANT, f"Dreamdesk is not scheduling Dream here: the assistant runs it "
                                                    f"every {cfg.get('intervalH'):g} h. Dream now works any time.",
                                      mode, True, **extra)
            return ScheduleStatus(SCHEDULED, f"Next dream at {clock.show(d)} (every {cfg.get('intervalH'):g} h).",
                                  mode, True, next_at=d, **extra)
        why = self._activity_ready(now, cfg)
        if why is None:
            return ScheduleStatus(QUEUED, "A dream is due and starts at the next check.", mode, True, **extra)
        for k, v in extra.items():
            setattr(why, k, v)
        return why


def floor_confirmation_text(value: int) -> str:
    """The dialog text for a review cadence below the floor (the GUI shows it; the engine refuses
    without it)."""
    return (f"Run the review pass every {value} run{'s' if value != 1 else ''}? The recommended minimum is "
            f"{REVIEW_FLOOR}.\n\n{REVIEW_FLOOR_REASON}")
