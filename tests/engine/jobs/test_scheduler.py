"""The Dream scheduler with an injected clock (no sleeps), and the headless service."""

import json
import os
import signal
import subprocess
import sys
import threading
from datetime import datetime, timedelta

import pytest

from conftest import tree_state
from dreamdesk.engine.cli import main
from dreamdesk.engine.home.config import BelowFloorError, load, set_value
from dreamdesk.engine.dream.run import DreamOptions, run_dream
from dreamdesk.engine.disk.files import LockHeld
from dreamdesk.engine.home.history import append_entry
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.jobs.scheduler import (BELOW, COOLING, DISABLED, QUEUED, RUNNING, WAITING_IDLE, Scheduler,
                              floor_confirmation_text, schedule_path)
from dreamdesk.engine.jobs.service import HistoryWatcher, serve
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import turn

T0 = datetime(2026, 11, 29, 9, 0).astimezone()


def hist(n, start=1):
    return "".join(json.dumps({"cursor": c, "timestamp": "2026-11-29 08:00", "content": f"- [ephemeral] {c}"}) + "\n"
                   for c in range(start, start + n))


def make(make_workspace, dream: dict, n_entries=3, dream_cursor=0):
    root = make_workspace({"USER.md": "# U\n", "memory/history.jsonl": hist(n_entries),
                           "memory/.dream_cursor": str(dream_cursor),
                           "config.json": json.dumps({"agents": {"defaults": {"dream": dream}}})})
    return Workspace.open(root)


def write_last_run(ws, finished: datetime):
    d = ws.memory_dir / "dreams"
    d.mkdir(exist_ok=True)
    (d / "state.json").write_text(json.dumps({"runs": 1, "last_run": {"id": "r-x", "finished": finished.isoformat(),
                                                                      "status": "completed", "outcome": "ok"}}))


def test_status_reads_only_and_says_who_schedules(make_workspace):
    ws = make(make_workspace, {"intervalH": 2})
    st = Scheduler(ws).status(T0)
    assert st.state == "by-the-assistant" and "the assistant runs it every 2 h" in st.text
    assert st.new_entries == 3                              # pending entries are counted in every mode
    assert not schedule_path(ws).exists()


def test_interval_deadline_run_and_next(make_workspace):
    ws = make(make_workspace, {"intervalH": 2})
    s = Scheduler(ws)
    s.start(T0)
    assert s.deadline == T0 + timedelta(hours=2)
    assert s.tick(T0 + timedelta(minutes=119)) is None
    assert s.tick(T0 + timedelta(hours=2)) == "interval"
    assert s.status(T0).state == RUNNING and s.tick(T0 + timedelta(hours=3)) is None   # never two at once
    s.finished(T0 + timedelta(hours=2, minutes=1), "ok")
    assert s.deadline == T0 + timedelta(hours=4, minutes=1)
    assert "Next dream at" in s.status(T0).text


class TellingLock:
    """The scheduler's lock, telling when `who` (a thread) asks for it."""

    def __init__(self, lock, who: threading.Thread, asked: threading.Event):
        self.lock, self.who, self.asked = lock, who, asked

    def __enter__(self):
        if threading.current_thread() is self.who:
            self.asked.set()
        return self.lock.__enter__()

    def __exit__(self, *exc):
        return self.lock.__exit__(*exc)


def test_a_tick_during_finished_never_starts_a_second_run(make_workspace, monkeypatch):
    """The app ticks on its reader thread while finished() runs on its writer thread: a tick
    that lands between "run over" and "next deadline written" must not start another run."""
    ws = make(make_workspace, {"intervalH": 2})
    s = Scheduler(ws)
    s.start(T0)
    assert s.tick(T0 + timedelta(hours=2)) == "interval"
    real_config = ws.config
    halfway, go_on, tick_reached = threading.Event(), threading.Event(), threading.Event()

    def held_config(*a, **kw):
        if threading.current_thread() is finisher:
            halfway.set()                                 # finished() is halfway: no new deadline yet
            assert go_on.wait(5)
        return real_config(*a, **kw)
    monkeypatch.setattr(ws, "config", held_config)
    finisher = threading.Thread(target=s.finished, args=(T0 + timedelta(hours=2, minutes=5), "ok"))
    ticks = []
    ticker = threading.Thread(target=lambda: ticks.append(s.tick(T0 + timedelta(hours=2, minutes=6)))
                              or tick_reached.set())
    s._lock = TellingLock(s._lock, ticker, tick_reached)
    finisher.start()
    assert halfway.wait(5)
    ticker.start()
    assert tick_reached.wait(5)                           # the tick asked for the lock (or answered) mid-finished()
    go_on.set()
    finisher.join(5)
    ticker.join(5)
    assert ticks == [None]                                # it waited for finished(), then saw the new deadline
    assert s.deadline == T0 + timedelta(hours=4, minutes=5)


def test_missed_deadline_is_caught_up_shortly_after_restart(make_workspace):
    ws = make(make_workspace, {"intervalH": 2})
    Scheduler(ws).start(T0)                               # persisted deadline T0+2h
    later = T0 + timedelta(hours=7)                       # Dreamdesk was closed meanwhile
    s = Scheduler(ws)
    s.start(later)
    assert later < s.deadline <= later + timedelta(minutes=2)
    assert s.tick(later) is None
    assert s.tick(s.deadline) == "interval"


def test_disable_and_enable_apply_at_once(make_workspace):
    ws = make(make_workspace, {"intervalH": 2})
    s = Scheduler(ws)
    s.start(T0)
    set_value(ws.config(), "enabled", "false")
    s.settings_changed(T0)
    assert s.status(T0).state == DISABLED and s.tick(T0 + timedelta(hours=5)) is None
    set_value(ws.config(), "enabled", "true")
    s.settings_changed(T0 + timedelta(hours=5))
    assert s.deadline == T0 + timedelta(hours=7)
    assert s.request("manual") and s.tick(T0 + timedelta(hours=5)) == "manual"


def test_activity_threshold_cooldown_and_idle(make_workspace):
    ws = make(make_workspace, {"schedule": "activity", "activityThreshold": 5, "cooldownH": 8, "idleMinutes": 60},
              n_entries=4)
    s = Scheduler(ws)
    s.start(T0)
    st = s.status(T0)
    assert st.state == BELOW and "4 of 5 new entries" in st.text and s.tick(T0) is None
    append_entry(ws.memory_dir, "- [durable] fifth", timestamp="2026-11-29 09:00")
    write_last_run(ws, T0 - timedelta(hours=2))
    s.note_activity(T0)
    st = s.status(T0)
    assert st.state == COOLING and st.next_at == T0 + timedelta(hours=6) and s.tick(T0) is None
    t = T0 + timedelta(hours=6)
    s.note_activity(t - timedelta(minutes=10))
    st = s.status(t)
    assert st.state == WAITING_IDLE and st.next_at == t + timedelta(minutes=50)
    s.note_activity(t + timedelta(minutes=40))           # a new line restarts the wait
    assert s.tick(t + timedelta(minutes=55)) is None
    assert s.status(t + timedelta(minutes=55)).next_at == t + timedelta(minutes=100)
    assert s.tick(t + timedelta(minutes=100)) == "activity"


def test_manual_request_bypasses_threshold_and_dedupes(make_workspace):
    ws = make(make_workspace, {"schedule": "activity", "activityThreshold": 50}, n_entries=2)
    write_last_run(ws, T0 - timedelta(minutes=5))
    s = Scheduler(ws)
    assert s.request("manual") is True
    assert s.request("manual") is False                   # never two pending
    assert s.status(T0).state == QUEUED
    assert s.tick(T0) == "manual"
    assert s.request("manual") is False                   # nor while one runs
    s.progress({"pass": "consolidation", "iteration": 3, "tokens": 1200})
    assert "consolidation pass, iteration 3, 1,200 tokens" in s.status(T0).text
    s.finished(T0, "ok")
    assert s.request("manual") is True


def test_idle_wait_restarted_by_a_line_from_another_process(make_workspace):
    ws = make(make_workspace, {"schedule": "activity"})
    seen = threading.Event()
    w = HistoryWatcher(ws, seen.set)
    w.start()
    try:
        code = ("from dreamdesk.engine.home.history import append_entry; import sys;"
                f"append_entry({str(ws.memory_dir)!r}, 'from the assistant')")
        subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
        assert seen.wait(5)
    finally:
        w.stop()


def test_reading_the_history_is_not_activity_only_an_append_is(make_workspace):
    """Issue 13.5: serve's own Consolidator reads history.jsonl at start and every minute; those
    opens and closes must not restart the idle wait, or an activity dream never starts."""
    ws = make(make_workspace, {"schedule": "activity"})
    seen, calls = threading.Event(), []
    w = HistoryWatcher(ws, lambda: calls.append("activity") or seen.set())
    w.start()
    try:
        for _ in range(5):
            code = f"open({str(ws.history_path)!r}, 'rb').read(); import os; os.utime({str(ws.history_path)!r})"
            subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
        with open(ws.history_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"cursor": 99, "timestamp": "2026-12-01 10:00", "content": "new"}) + "\n")
        assert seen.wait(5)
        # the file's events arrive in order: by the append's call every read and touch was handled
        assert calls == ["activity"]
    finally:
        w.stop()


def test_two_runs_never_dream_at_once(make_workspace, llm_server, brief_job_lock_wait):
    ws = make(make_workspace, {})
    srv = llm_server(default={"delay": 30, **turn(content="nothing")})     # held until the second run ended
    options = DreamOptions(passes={"deduction": False, "induction": False})
    outcomes = []
    first = threading.Thread(target=lambda: outcomes.append(
        run_dream(Workspace.open(ws.root), OpenAIClient(srv.url, "m"), options).status))
    first.start()
    try:
        assert srv.wait_for_requests(), "the first run never reached the model"
        with pytest.raises(LockHeld):                     # the second starts while the first is in its model call
            run_dream(Workspace.open(ws.root), OpenAIClient(srv.url, "m"), options)
    finally:
        srv.release()
    first.join(30)
    assert outcomes == ["wrote-nothing"] and len(srv.requests) == 1      # the model ran once: never two dreams


def test_status_sees_a_dream_running_in_another_process(make_workspace, llm_server, capsys):
    """`dreamdesk schedule` in one terminal while `dreamdesk dream` (or serve, or the app) runs
    in another: the running record plus the held job lock say a run is in progress."""
    ws = make(make_workspace, {})
    srv = llm_server(default={"delay": 30, **turn(content="nothing")})     # held until released below
    env = dict(os.environ, DD_KEY="sk-test")
    proc = subprocess.Popen([sys.executable, "-m", "dreamdesk.engine.cli", "dream", str(ws.root), "--base-url", srv.url,
                             "--model", "m", "--api-key-env", "DD_KEY"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert srv.wait_for_requests(), "the dream never reached the model"
        st = Scheduler(Workspace.open(ws.root)).status(datetime.now().astimezone())
        assert st.state == RUNNING and "in progress in another window or process" in st.text
        assert st.running["elsewhere"] and st.running["trigger"] == "manual"
        assert main(["schedule", str(ws.root)]) == 0
        assert "in progress in another window or process" in capsys.readouterr().out
        # the app running its own job is not told its own run is elsewhere
        assert Scheduler(Workspace.open(ws.root)).status(datetime.now().astimezone(), own_job=True).state != RUNNING
    finally:
        srv.release()                                     # the model answers: the run can end
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()
    assert Scheduler(Workspace.open(ws.root)).status(datetime.now().astimezone()).state != RUNNING


def test_a_run_record_left_running_by_a_crash_is_not_a_run_in_progress(make_workspace):
    ws = make(make_workspace, {})
    d = ws.memory_dir / "dreams"
    d.mkdir()
    (d / "r-20261129-090000.json").write_text(json.dumps({"id": "r-20261129-090000", "started": T0.isoformat(),
                                                          "trigger": "interval", "status": "running"}))
    before = tree_state(ws.root)
    assert Scheduler(ws).status(T0).state != RUNNING
    assert tree_state(ws.root) == before                 # the lock probe created no lock file


def test_last_error_of_the_service_reaches_another_process(make_workspace):
    ws = make(make_workspace, {"intervalH": 2})
    s = Scheduler(ws)
    s.start(T0)
    assert s.tick(T0 + timedelta(hours=2)) == "interval"
    s.finished(T0 + timedelta(hours=2), error="the model server answered 401")
    other = Scheduler(Workspace.open(ws.root)).status(T0 + timedelta(hours=2))
    assert other.last_error.startswith("the model server answered 401")
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["schedule", str(ws.root)]) == 0
    assert "Last error: the model server answered 401" in out.getvalue()
    assert s.request("manual") and s.tick(T0 + timedelta(hours=3)) == "manual"
    s.finished(T0 + timedelta(hours=3), "Dream completed")             # a good run clears it
    assert Scheduler(Workspace.open(ws.root)).status(T0).last_error is None


def test_floor_is_enforced_in_the_engine_with_the_measured_reason(tmp_path):
    p = tmp_path / "config.json"
    p.write_text("{}")
    with pytest.raises(BelowFloorError):
        set_value(load(p), "reviewEveryRuns", 6)
    text = floor_confirmation_text(6)
    assert "3,524 to 1,626" in text and "every 6 runs" in text
    assert set_value(load(p), "reviewEveryRuns", 6, confirm_below_floor=True).get("reviewEveryRuns") == 6
    assert json.loads(p.read_text())["agents"]["defaults"]["dream"]["reviewEveryRuns"] == 6


def test_serve_runs_a_due_dream_and_stops(make_workspace, tmp_path):
    ws = make(make_workspace, {"intervalH": 1})
    replay = tmp_path / "r.jsonl"
    replay.write_text(json.dumps({"content": "nothing to add"}) + "\n")
    (ws.memory_dir / "dreams").mkdir()
    schedule_path(ws).write_text(json.dumps({"next_deadline": (T0 - timedelta(hours=3)).isoformat()}))
    clock = {"t": T0}
    lines = []
    stop = threading.Event()

    def log(line):
        lines.append(line)
        if line.startswith("dream: ") and "starting" not in line:
            stop.set()
        clock["t"] += timedelta(seconds=30)               # time moves on with every decision

    from dreamdesk.engine.llm.replay import ReplayClient
    th = threading.Thread(target=serve, args=(ws, lambda: ReplayClient(replay), stop, log),
                          kwargs={"now": lambda: clock["t"], "tick_seconds": 0.01, "watch": False})
    th.start()
    th.join(20)
    assert not th.is_alive()
    assert lines[0] == f"serving {ws.root}" and lines[-1] == "stopped"
    assert "dream: starting (interval)" in lines
    assert any(line.startswith("dream: Dream completed") for line in lines), lines
    assert (ws.memory_dir / ".dream_cursor").read_text() == "3"


def test_serve_applies_dream_turned_on_in_config_json_at_once(make_workspace, tmp_path):
    ws = make(make_workspace, {"enabled": False, "intervalH": 1})
    replay = tmp_path / "r.jsonl"
    replay.write_text(json.dumps({"content": "nothing to add"}) + "\n")
    clock = {"t": T0}
    lines = []
    stop = threading.Event()

    def log(line):
        lines.append(line)
        if line.startswith("schedule: Dream is turned off"):
            # the user turns Dream on in config.json while the service runs
            set_value(Workspace.open(ws.root).config(), "enabled", "true")
        if line.startswith("dream: ") and "starting" not in line:
            stop.set()

    def now():
        clock["t"] += timedelta(minutes=1)                # a minute passes at every look at the clock
        return clock["t"]

    from dreamdesk.engine.llm.replay import ReplayClient
    th = threading.Thread(target=serve, args=(ws, lambda: ReplayClient(replay), stop, log),
                          kwargs={"now": now, "tick_seconds": 0.01, "watch": False})
    th.start()
    th.join(20)
    stop.set()
    th.join(5)
    assert "settings: enabled=True, schedule=interval, intervalH=1" in lines, lines
    assert any(line.startswith("schedule: Next dream at") for line in lines), lines
    assert "dream: starting (interval)" in lines and lines[-1] == "stopped"


def test_serve_stops_cleanly_on_sigterm(make_workspace):
    ws = make(make_workspace, {"intervalH": 5})
    proc = subprocess.Popen([sys.executable, "-m", "dreamdesk.engine.cli", "serve", str(ws.root), "--tick", "0.05"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert "serving" in first
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert out.strip().endswith("stopped") and "Traceback" not in err
    leftovers = [p for p in ws.root.rglob("*.tmp")]
    assert leftovers == []


def test_a_config_json_caught_mid_save_is_not_a_settings_change(make_workspace):
    from dreamdesk.engine.jobs.service import _schedule_settings
    ws = make(make_workspace, {"intervalH": 3})
    assert _schedule_settings(ws) == (True, "interval", 3)
    (ws.home or ws.root).joinpath("config.json").write_text('{"agents": {"defaults": {"dream": {"interv')
    assert _schedule_settings(Workspace.open(ws.root)) is None        # its defaults are not the user's settings
