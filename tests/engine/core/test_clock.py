"""One clock: every time Dreamdesk shows — history stamps (naive, in the home's zone), ISO times
with an offset (run records, archive, state.json) and git commit times (snapshots) — is shown in
this machine's zone, the same reading for the same instant in every view and CLI command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import REPO, open_window
from dreamdesk.engine.core import clock

BERLIN, TOKYO, NEW_YORK = ZoneInfo("Europe/Berlin"), ZoneInfo("Asia/Tokyo"), ZoneInfo("America/New_York")

# The demo's last Dream run: one instant written four ways (the demo was recorded in Brussels).
RUN = "r-20261120-031744"
ARCHIVED = "a-20261120-4"            # archived_at 2026-11-20T03:18:08+01:00
MACHINE = "Asia/Tokyo"               # this test machine's zone; the home is Europe/Brussels
TOKYO_READING = "2026-11-20 11:18"   # 03:18 in Brussels (UTC+01:00) is 11:18 in Tokyo


# ---- the engine module, zones passed in --------------------------------------------------------

def test_a_history_stamp_is_read_in_the_home_s_zone_and_shown_in_the_user_s():
    t = clock.from_history("2026-11-19 21:18", NEW_YORK)
    assert t == datetime(2026, 11, 20, 2, 18, tzinfo=timezone.utc)
    assert clock.show(t, zone=BERLIN) == "2026-11-20 03:18"
    assert clock.show_history("2026-11-19 21:18", NEW_YORK, BERLIN) == "2026-11-20 03:18"


def test_the_three_shapes_of_one_instant_read_alike():
    instant = datetime(2026, 11, 20, 2, 18, 33, tzinfo=timezone.utc)
    assert clock.show_iso("2026-11-20T03:18:33+01:00", True, TOKYO) == "2026-11-20 11:18:33"
    assert clock.show_iso("2026-11-19T18:18:33-08:00", True, TOKYO) == "2026-11-20 11:18:33"
    assert clock.show_epoch(instant.timestamp(), True, TOKYO) == "2026-11-20 11:18:33"
    assert clock.show_history("2026-11-20 11:18", TOKYO, TOKYO) == clock.show(instant, zone=TOKYO)


def test_summer_time_is_the_offset_of_that_day_not_of_today():
    assert clock.show_history("2026-07-01 12:00", BERLIN, timezone.utc) == "2026-07-01 10:00"
    assert clock.show_history("2026-01-01 12:00", BERLIN, timezone.utc) == "2026-01-01 11:00"


def test_what_is_no_time_is_shown_as_it_is():
    assert clock.show_history("yesterday", BERLIN) == "yesterday" and clock.show_history(None) == "—"
    assert clock.show_iso("soon") == "soon" and clock.show_iso(None) == "—" and clock.show(None) == "—"


@pytest.mark.parametrize("defaults, zone", [
    ({"timezone": "Europe/Berlin"}, BERLIN),
    ({"timezone": "Europe/Berlin", "timezoneMode": "auto"}, BERLIN),
    ({"timezone": "Not/AZone"}, None),
    ({"timezone": 7}, None),
    ({}, None),
])
def test_the_home_s_zone_is_nanobot_s_timezone_setting(make_workspace, defaults, zone):
    from dreamdesk.engine.home.workspace import Workspace
    root = make_workspace({"SOUL.md": "s\n", "config.json": json.dumps({"agents": {"defaults": defaults}})})
    assert clock.home_zone(Workspace.open(root).config()) == zone


def test_nanobot_writes_the_setting_the_home_zone_reads(tmp_path):
    """nanobot 0.3.5 saves agents.defaults.timezone (the zone its machine had) with every config."""
    py = os.environ.get("DREAMDESK_NANOBOT_PYTHON")
    if not py:
        pytest.skip("DREAMDESK_NANOBOT_PYTHON names no python with nanobot")
    code = ("import json, sys; from nanobot.config.schema import Config;"
            "print(json.dumps(Config.model_validate({}).model_dump(mode='json', by_alias=True)))")
    out = subprocess.run([py, "-c", code], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, TZ="Europe/Berlin"))
    saved = json.loads(out.stdout)
    assert saved["agents"]["defaults"]["timezoneMode"] == "auto"
    assert isinstance(saved["agents"]["defaults"]["timezone"], str)
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    (tmp_path / "config.json").write_text(json.dumps({"agents": {"defaults": {"timezone": "Europe/Berlin"}}}))
    from dreamdesk.engine.home.workspace import Workspace
    assert clock.home_zone(Workspace.open(tmp_path / "ws").config()) == BERLIN


def test_the_label_names_the_zone_and_its_offset():
    assert clock.zone_label(TOKYO) == "Times in Asia/Tokyo (UTC+09:00)"
    assert clock.zone_label(ZoneInfo("Asia/Kolkata")) == "Times in Asia/Kolkata (UTC+05:30)"


# ---- every view and command, on a machine in another zone than the home ------------------------

@pytest.fixture
def home(history_home, tmp_path) -> Path:
    """The demo with its past, one more history entry stamped at the last run's end (Brussels)."""
    dest = tmp_path / "home"
    shutil.copytree(history_home, dest, symlinks=True)
    with open(dest / "workspace" / "memory" / "history.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"cursor": 126, "timestamp": "2026-11-20 03:18", "content": "- clock check"}) + "\n")
    return dest


@pytest.fixture
def machine_zone(monkeypatch):
    """This process's zone, as the C library sees it ($TZ), for the test only."""
    monkeypatch.setenv("TZ", MACHINE)
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_home_s_config_names_its_zone(home):
    cfg = json.loads((home / "config.json").read_text())
    assert cfg["agents"]["defaults"]["timezone"] == "Europe/Brussels"


def test_every_view_shows_the_same_reading(home, gui_env, qtbot, machine_zone):
    from dreamdesk.gui.models import archive_model, history_model, runs_model, snapshots_model
    from dreamdesk.gui.qt import Qt
    win = open_window(qtbot, home)

    def cell(model, row, col):
        return model.data(model.index(row, col), Qt.DisplayRole)

    snaps = win.snapshots
    win.tabs.setCurrentWidget(snaps)
    qtbot.waitUntil(lambda: snaps.model.rowCount() > 0, timeout=10000)
    dream = next(s for s in snaps.model.snapshots if s.subject.startswith("dream:"))   # the newest dream commit
    assert cell(snaps.model, snaps.model.row_of(dream.sha), snapshots_model.COL_TIME) == TOKYO_READING

    assert win.dashboard.last_run.text().startswith(f"Last run {TOKYO_READING}:")

    arch = win.archive
    win.tabs.setCurrentWidget(arch)
    qtbot.waitUntil(lambda: arch.model.row_for_id(ARCHIVED) is not None, timeout=10000)
    assert cell(arch.model, arch.model.row_for_id(ARCHIVED), archive_model.COL_ARCHIVED) == TOKYO_READING

    runs = win.runs
    win.tabs.setCurrentWidget(runs)
    qtbot.waitUntil(lambda: runs.model.row_for_id(RUN) is not None, timeout=10000)
    assert cell(runs.model, runs.model.row_for_id(RUN), runs_model.COL_STARTED) == "2026-11-20 11:17:44"
    assert runs.select_run(RUN)
    qtbot.waitUntil(lambda: runs.shown is not None and runs.shown.get("id") == RUN, timeout=10000)
    assert f"{TOKYO_READING}:33" in runs.detail.toPlainText()            # Finished

    hist = win.history.model
    assert cell(hist, hist.row_for_cursor(126), history_model.COL_TIME) == TOKYO_READING

    assert win.clock_label.text() == "Times in Asia/Tokyo (UTC+09:00)"    # named once, for every view
    assert "Europe/Brussels" in win.clock_label.toolTip()
    win.grab().save(str(gui_env / "clock.png"))
    win.close()


def _cli(*args: str) -> str:
    env = dict(os.environ, TZ=MACHINE, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "dreamdesk.engine.cli", *args], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_command_shows_the_same_reading(home):
    h = str(home)
    snaps = json.loads(_cli("snapshots", h, "--json"))["snapshots"]
    dream = next(s for s in snaps if s["subject"].startswith("dream:"))
    assert f"{dream['sha'][:8]}  {TOKYO_READING}  dream" in _cli("snapshots", h)
    assert f"{ARCHIVED}  {TOKYO_READING}  memory/MEMORY.md" in _cli("archive", h)
    assert f"{RUN}  2026-11-20 11:17  " in _cli("runs", h)
    assert f"2026-11-20 11:17:44 → {TOKYO_READING}:33" in _cli("runs", h, "show", RUN)
    assert f"   126  {TOKYO_READING}  " in _cli("history", h)
    entry = json.loads(_cli("history", h, "--json"))["entries"][-1]
    assert entry["timestamp"] == "2026-11-20 03:18" and entry["time"] == "2026-11-20T11:18:00+09:00"
    assert "Clock      Times in Asia/Tokyo (UTC+09:00); history.jsonl is stamped in Europe/Brussels" \
        in _cli("status", h)


def test_the_archive_s_days_are_the_user_s_days(home):
    # 2026-11-20T03:18+01:00 is the 20th in Tokyo, but the 19th in New York
    h = str(home)
    assert ARCHIVED in _cli("archive", h, "--since", "2026-11-20", "--until", "2026-11-20")
    env = dict(os.environ, TZ="America/New_York", PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-m", "dreamdesk.engine.cli", "archive", h, "--since", "2026-11-19",
                          "--until", "2026-11-19"], capture_output=True, text=True, timeout=60, env=env).stdout
    assert f"{ARCHIVED}  2026-11-19 21:18" in out


def test_dreamdesk_stamps_history_in_the_home_s_zone_as_the_assistant_does(tmp_path):
    """Compacting here, for a home whose assistant runs in New York: the new entries carry New
    York's wall clock, like the stamps around them, so every stamp in the file reads alike."""
    from helpers.sessions import write_session
    from dreamdesk.engine.jobs.consolidator import run_consolidator
    from dreamdesk.engine.home.history import read_history
    from dreamdesk.engine.home.workspace import Workspace
    h = tmp_path / "home"
    (h / "workspace" / "memory").mkdir(parents=True)
    (h / "workspace" / "USER.md").write_text("# User\n")
    (h / "config.json").write_text(json.dumps({"agents": {"defaults": {"timezone": "America/New_York"}}}))
    now = datetime(2026, 11, 20, 2, 18, tzinfo=timezone.utc).astimezone(TOKYO)
    write_session(h / "sessions" / "a.jsonl", "a", 10)
    ws = Workspace.open(h)
    run_consolidator(ws, None, now=now, manual=True)
    stamps = {e.timestamp for e in read_history(ws.history_path).entries}
    assert stamps == {"2026-11-19 21:18"}


STAMP_CHARS = st.sampled_from(list("0123456789- :") + ["٣", "\t", "a"])


@settings(max_examples=400, deadline=None)
@given(stamp=st.one_of(st.text(STAMP_CHARS, min_size=10, max_size=20),
                       st.builds("{}-{:02}-{:02} {:02}:{:02}".format, st.integers(0, 9999), st.integers(0, 13),
                                 st.integers(0, 32), st.integers(0, 25), st.integers(0, 61))),
       home=st.sampled_from([None, BERLIN, ZoneInfo("Asia/Kathmandu"), ZoneInfo("Europe/Amsterdam")]))
@example(stamp="2026-0٣-01 10:00", home=None)
@example(stamp="1920-06-01 10:00", home=ZoneInfo("Europe/Amsterdam"))   # +00:19:32: seconds in the offset          # a digit, but not one strptime reads
@example(stamp=" 2026-02-29 10:00\t", home=BERLIN)
def test_history_stamps_read_as_strptime_reads_them(stamp, home):
    """from_history parses the usual zero-padded shape itself (strptime is 5x slower): the same
    instant, or None, as strptime gives for any text."""
    try:
        naive = datetime.strptime(stamp.strip(), clock.HISTORY_FORMAT)
    except ValueError:
        assert clock.from_history(stamp, home) is None and clock.iso_history(stamp, home) is None
    else:
        assert clock.from_history(stamp, home) == clock.from_wall(naive, home)
        assert clock.iso_history(stamp, home) == clock.iso(clock.from_wall(naive, home))
