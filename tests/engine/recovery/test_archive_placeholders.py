"""The assistant's untouched onboarding template lines are not prunes: the Archive folds them
under one line, hidden by default, after every real prune; `archive --json` marks them
(issue 25 item 8). nanobot's templates are known by digest; fake_templates stands in."""

import json

import pytest

from dreamdesk.engine.recovery.archive import write_memory
from dreamdesk.engine.recovery.prunes import all_prunes
from dreamdesk.engine.cli import main as cli
from dreamdesk.engine.disk.files import current_hash
from dreamdesk.engine.home.workspace import Workspace
from helpers.fake_templates import TEMPLATES

FACTS = "# User Profile\n\n- Ana, data engineer in Ghent.\n"


def _home(make_workspace, nanobot: bool) -> Workspace:
    files = {"USER.md": TEMPLATES["USER.md"] + "- Likes tea\n", "SOUL.md": "# Soul\n", "memory/MEMORY.md": "# M\n"}
    if nanobot:
        files[".nanobot/workspace-id"] = "ws-1\n"      # the sign nanobot binds a workspace by
    ws = Workspace.open(make_workspace(files))
    write_memory(ws, "USER.md", FACTS, current_hash(ws.root / "USER.md"), "edit")   # the placeholder and tea leave
    return ws


def test_a_nanobot_template_line_that_left_is_a_placeholder_not_a_prune(make_workspace, fake_templates):
    marks = {e.latest.text: e.placeholder for e in all_prunes(_home(make_workspace, nanobot=True))[2]}
    assert marks == {"- **Name**: (your name)": True, "- Likes tea": False}


def test_a_jenny_home_has_no_placeholders(make_workspace, fake_templates):
    assert not any(e.placeholder for e in all_prunes(_home(make_workspace, nanobot=False))[2])


def test_archive_json_marks_them_and_the_text_listing_folds_them(make_workspace, fake_templates, capsys):
    ws = _home(make_workspace, nanobot=True)
    assert cli(["archive", str(ws.root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {e["text"]: e["template_placeholder"] for e in out["entries"]} == {
        "- **Name**: (your name)": True, "- Likes tea": False}
    assert cli(["archive", str(ws.root)]) == 0
    text = capsys.readouterr().out
    assert "- Likes tea" in text and "(your name)" not in text
    assert "template placeholders (1): the assistant's onboarding text" in text
    assert cli(["archive", str(ws.root), "--templates"]) == 0
    listed = capsys.readouterr().out
    assert listed.index("- Likes tea") < listed.index("(your name)")     # after every real prune


@pytest.fixture
def archive_view(qtbot, gui_env, gui_engine, make_workspace, fake_templates):
    from conftest import show_view
    from dreamdesk.gui.views.archive_view import ArchiveView
    view = show_view(qtbot, ArchiveView(gui_engine), _home(make_workspace, nanobot=True))
    qtbot.waitUntil(lambda: view.loaded, timeout=10000)
    return view


def _shown_texts(view) -> list[str]:
    from dreamdesk.gui.models.archive_model import COL_TEXT
    return [view.proxy.index(r, COL_TEXT).data() for r in range(view.proxy.rowCount())]


def test_the_archive_tab_folds_placeholders_under_one_line(archive_view, qtbot, qtmodeltester):
    from PySide6.QtCore import Qt
    from helpers.screens import grab
    view = archive_view
    assert _shown_texts(view) == ["- Likes tea"]
    assert view.count_label.text() == "1 archived entry"
    assert view.placeholder_toggle.isVisible()
    assert view.placeholder_toggle.text() == "template placeholders (1), hidden"
    qtbot.mouseClick(view.placeholder_toggle, Qt.MouseButton.LeftButton)
    assert _shown_texts(view) == ["- Likes tea", "- **Name**: (your name)"]
    for order in (0, 1):                               # after every real prune, whichever way it is sorted
        view.table.sortByColumn(1, Qt.SortOrder(order))
        assert _shown_texts(view)[-1] == "- **Name**: (your name)"
    assert "template placeholder" in view.proxy.index(1, 6).data(
        Qt.ToolTipRole)
    qtmodeltester.check(view.proxy)
    grab(view, "archive-placeholders.png")
