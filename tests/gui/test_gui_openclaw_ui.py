"""The window on an OpenClaw home, what issue 28 still missed there (items 1, 4, 5): a chooser
for a home with several agents, remembered per home; the daily notes in the Files view's list with
their day, slug or time and size, the /new prelude's marked; OpenClaw's saved MEMORY.md versions
in the Dream runs tab, each shown against the current file. Screenshots go to
/tmp/shots-i28-oc-ui to be looked at."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from conftest import open_window, tree_state
from helpers.gui_waits import jobs_done
from helpers.openclaw_homes import copy_home, grab_sizes
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

SHOTS = Path(os.environ.get("DREAMDESK_OPENCLAW_SHOTS") or Path(tempfile.gettempdir()) / "shots-i28-oc-ui")


def grab(win, name: str) -> None:
    grab_sizes(win, SHOTS, name)


def two_agents(tmp_path: Path) -> Path:
    """The dreamed home with a second agent, "work", keeping its own workspace (none marked the default)."""
    home = copy_home("dreamed", tmp_path)
    work = tmp_path / "work-claw"
    work.mkdir()
    (work / "MEMORY.md").write_text("# Memory\n\n- The work agent keeps the release calendar.\n", encoding="utf-8")
    config = json.loads((home / "openclaw.json").read_text(encoding="utf-8"))
    config["agents"]["entries"]["work"] = {"workspace": str(work)}
    (home / "openclaw.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return home


def test_the_dashboard_switches_between_a_homes_agents_and_remembers_the_choice(gui_env, qtbot, tmp_path):
    home = two_agents(tmp_path)
    before = tree_state(home)
    win = open_window(qtbot, home)
    d = win.dashboard
    assert win.ws.root == home / "workspace" and win.ws.layout.agent == "main"
    combo = d.agent_choice
    assert combo.isVisible() and [combo.itemText(i) for i in range(combo.count())] == ["main", "work"]
    assert combo.currentText() == "main"
    combo.activated.emit(1)                       # what choosing "work" in the combo sends
    qtbot.waitUntil(lambda: win.ws.root == tmp_path / "work-claw" and win.state is not None
                    and win.state.status.assistant.agent == "work", timeout=10000)
    assert combo.currentText() == "work" and "agent work; the home&#x27;s other agents: main" in d.assistant.text()
    assert win.ws.home == home
    jobs_done(qtbot, win.engine)
    grab(win, "agent-chooser")
    win.close()
    # opened again as the home (the recent list's path): the agent chosen last
    win = open_window(qtbot, home)
    assert win.ws.root == tmp_path / "work-claw" and win.dashboard.agent_choice.currentText() == "work"
    # an agent's own workspace folder opens that agent, whatever was chosen for the home
    assert win.open_workspace(str(home / "workspace"))
    qtbot.waitUntil(lambda: win.ws.root == home / "workspace", timeout=5000)
    jobs_done(qtbot, win.engine)
    win.close()
    assert tree_state(home) == before


def test_a_home_with_one_agent_shows_no_chooser(gui_env, qtbot, tmp_path):
    win = open_window(qtbot, copy_home("dreamed", tmp_path))
    assert not win.dashboard.agent_choice.isVisible() and not win.dashboard.agent_label.isVisible()
    win.close()
