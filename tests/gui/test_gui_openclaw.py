"""The window on an OpenClaw home (issue 28 items 1-3): it opens the home built by the real
OpenClaw 2026.9.6, the Dashboard shows each bootstrap file against the cap that really applies
with the entries that fall into the cut, the total, the agent; Dreamdesk's own jobs are off with
OpenClaw's reason; and the home is left byte- and mtime-identical."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from PySide6.QtWidgets import QScrollArea

from conftest import open_window, tree_state
from helpers.openclaw_homes import copy_home
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

SHOTS = Path(os.environ.get("DREAMDESK_OPENCLAW_SHOTS") or Path(tempfile.gettempdir()) / "shots-i28-oc-open")
TOTAL = "All bootstrap files (a private session)"


def _grab(win, size: tuple[int, int], name: str) -> None:
    """What a person sees at `size` (offscreen), kept to be looked at."""
    from PySide6.QtWidgets import QApplication
    win.resize(*size)
    QApplication.processEvents()
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert win.grab().save(str(SHOTS / name))


def test_the_dashboard_shows_an_openclaw_home_against_its_own_caps_with_the_cut(gui_env, qtbot, tmp_path):
    home = copy_home("over-cap", tmp_path)
    before = tree_state(home)
    win = open_window(qtbot, home)
    d = win.dashboard
    assert win.ws.root == home / "workspace"
    assert "OpenClaw 2026.9.x" in d.assistant.text() and "openclaw.json" in d.assistant.text()
    # bootstrapMaxChars 6,000 here; USER.md capped at 4,000; the total 60,000 (OpenClaw's counts)
    shown = {p: (g.chars, g.budget, g.state) for p, g in d.gauges.items()}
    assert shown == {"AGENTS.md": (6305, 6000, "over"), "SOUL.md": (1561, 6000, "ok"),
                     "IDENTITY.md": (1398, 6000, "ok"), "USER.md": (5235, 4000, "over"),
                     "MEMORY.md": (8040, 6000, "over"), TOTAL: (22539, 60000, "ok")}
    memory = d.gauges["MEMORY.md"].toolTip()
    assert "8,040 / 6,000 characters" in memory and "promotion budget 6,000" in memory
    assert "USER.md cap 4,000" in d.gauges["USER.md"].toolTip()
    # the cut, named under the gauge: MEMORY.md's middle (facts 33 to 49) never reaches the model
    cut = d.cuts["MEMORY.md"]
    assert cut.isVisible() and "17 entries fall into the cut" in cut.text()
    assert "Over its per-file cap of 6,000 (agents.defaults.bootstrapMaxChars)" in cut.text()
    assert "Over its USER.md cap of 4,000" in d.cuts["USER.md"].text()
    assert "line 36: - Fact 34: the build server rack 34" in cut.text() and "line 35 (in part): - Fact 33" in cut.text()
    assert "Fact 32:" not in cut.toolTip() and "line 51: - Fact 49" in cut.toolTip()
    assert d.cuts["USER.md"].isVisible() and "SOUL.md" not in d.cuts
    # no history.jsonl in an OpenClaw home: its rows are hidden, not shown as zeros
    assert not d.pending.isVisible() and not d.cursors.isVisible() and d.prompt.isVisible()
    # Dreamdesk's jobs would race OpenClaw's own dreaming: off, and they say why
    for b in (win.panel.dream_button, win.panel.dry_button, win.panel.review_button, win.panel.compact_button):
        assert not b.isEnabled() and b.toolTip().startswith("OpenClaw runs its own dreaming")
    assert d.schedule.text().startswith("OpenClaw runs its own dreaming")
    assert win.panel.scope_label.text().startswith("OpenClaw runs its own dreaming") and not win.panel.model_label.text()
    win.tabs.setCurrentWidget(win.settings)
    qtbot.waitUntil(lambda: not win.settings.schedule_here.isEnabled(), timeout=5000)
    assert win.settings.watch_here.isEnabled()       # the watch writes only Dreamdesk's own history (kept apart)
    # the Files view lists its files, daily notes included: MEMORY.md opens for editing, the dream
    # diary read-only with OpenClaw's reason
    win.tabs.setCurrentWidget(win.files)
    win.files.open_path("MEMORY.md")
    qtbot.waitUntil(lambda: win.files.loaded is not None and win.files.loaded.path == "MEMORY.md", timeout=5000)
    assert not win.files.editor.isReadOnly() and not win.files.read_only_note.isVisible()
    win.tabs.setCurrentWidget(d)
    _grab(win, (1280, 820), "openclaw-over-cap-default.png")
    _grab(win, (1280, 720), "openclaw-over-cap-1280x720.png")
    bar = d.findChild(QScrollArea).verticalScrollBar()
    bar.setValue(bar.maximum())
    _grab(win, (1280, 720), "openclaw-over-cap-1280x720-end.png")
    win.close()
    assert tree_state(home) == before


def test_the_window_names_the_other_agents_of_a_home_with_several(gui_env, qtbot, tmp_path):
    """Two agents, none marked the default: the first is shown and the other named; the config
    is JSON5 (a comment, a trailing comma), as a person may write it."""
    home = copy_home("dreamed", tmp_path)
    config = json.loads((home / "openclaw.json").read_text(encoding="utf-8"))
    config["agents"]["entries"]["work"] = {"workspace": str(tmp_path / "work-claw")}
    (home / "openclaw.json").write_text("// two agents now\n" + json.dumps(config, indent=2)[:-2] + ",\n}\n",
                                        encoding="utf-8")
    win = open_window(qtbot, home)
    assert win.ws.root == home / "workspace"
    line = win.dashboard.assistant.text()
    assert "agent main: the home has 2 agents and none is marked the default" in line
    assert "the others: work (dreamdesk … --agent ID opens one)" in line
    notes = win.dashboard.notes
    assert notes.isVisible() and notes.text().startswith("<b>Daily notes:</b> 5, 401 characters in all")
    assert not [p for p in win.state.status.problems if "openclaw.json" in p.file]
    win.close()


def test_dreamdesk_open_takes_what_opens_an_openclaw_home(tmp_path):
    """`dreamdesk open` checks PATH as the window opens it: openclaw.json and a profile folder whose
    workspace lies elsewhere are OpenClaw homes, not "no workspace"."""
    from dreamdesk.gui.app import launcher
    home = copy_home("dreamed", tmp_path)
    moved = tmp_path / "projects" / "claw"
    moved.parent.mkdir()
    (home / "workspace").rename(moved)
    config = json.loads((home / "openclaw.json").read_text(encoding="utf-8"))
    config["agents"]["defaults"]["workspace"] = config["agents"]["entries"]["main"]["workspace"] = str(moved)
    (home / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    assert launcher._not_a_workspace(str(home)) is None
    assert launcher._not_a_workspace(str(home / "openclaw.json")) is None
    assert "does not look like an assistant workspace" in launcher._not_a_workspace(str(tmp_path / "projects"))
