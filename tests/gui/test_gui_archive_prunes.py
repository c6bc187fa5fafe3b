"""The Archive tab on a nanobot-style home whose own Dream pruned lines (issue 13 §2): the rows are
the entries the commits removed, with where each is known from; the origin filter and search
cover them; a commit row restores byte for byte through the confirm flow (and with a pin); a
commit-only row is not deleted; the commit link opens that snapshot in the Snapshots tab."""

from __future__ import annotations

import pytest
from conftest import dark_palette, open_window, tree_state
from helpers.archive_table import Dialogs, anchor_point, cell, select_ids, shown_ids
from helpers.screens import grab
from helpers.prune_history import BOM, FORMS, build, crlf, expected_rows, only_inserted

from dreamdesk.engine.recovery.archive import read_archive, write_memory
from dreamdesk.engine.disk.files import current_hash
from dreamdesk.engine.recovery.pins import pin_states
from dreamdesk.engine.recovery.restore import undo_restore
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.gui.models.archive_model import COL_FROM, COL_ID, COL_NOW, COL_TEXT, ArchiveFilterProxy, ArchiveModel
from dreamdesk.gui.qt import Qt
from dreamdesk.engine.recovery.prune_restores import plan_placements, read_every_prune
from dreamdesk.gui.views.archive_view import ArchiveView
from dreamdesk.gui.context.worker import JobLanes
from helpers.nanobot_repo import git

MISO = "- Has a cat named Miso."


@pytest.fixture
def engine(qtbot):
    e = JobLanes()
    yield e
    e.shutdown()


def show(qtbot, engine, root, size=(1400, 620)) -> ArchiveView:
    view = ArchiveView(engine)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    view.set_workspace(Workspace.open(root))
    qtbot.waitUntil(lambda: view.loaded, timeout=10000)
    return view


def pick(view: ArchiveView, label: str) -> None:
    view.origin_combo.setCurrentIndex(view.origin_combo.findText(label))


def row_of(view: ArchiveView, rid: str) -> int:
    return view.proxy.mapFromSource(view.model.index(view.model.row_for_id(rid), 0)).row()


def test_rows_are_the_entries_the_assistants_commits_removed(qtbot, engine, tmp_path, qtmodeltester):
    root = tmp_path / "home"
    shas = build(root)
    before = tree_state(root)
    view = show(qtbot, engine, root)
    want = expected_rows(root, shas)
    assert len(want) == 5 and sorted(shown_ids(view)) == sorted(rid for rid, *_ in want)
    assert view.empty.isHidden() and "5 archived entries" in view.count_label.text()
    for rid, path, text, heading in want:
        r = row_of(view, rid)
        assert cell(view.proxy, r, COL_TEXT).startswith(text.split("\n")[0])
        assert cell(view.proxy, r, COL_FROM) == f"commit {rid[2:10]} · assistant"
        tip = cell(view.proxy, r, COL_FROM, Qt.ToolTipRole)
        assert tip.startswith(f"Removed in commit {rid[2:10]} “dream: periodic memory consolidation” by the assistant, ")
    assert tree_state(root) == before                    # looking writes nothing in the workspace
    model = ArchiveModel()
    qtmodeltester.check(model)
    model.set_entries(read_every_prune(Workspace.open(root))[1])
    qtmodeltester.check(model)
    model.sort(COL_FROM, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(model)
    proxy = ArchiveFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_filter("", origin="assistant")
    qtmodeltester.check(proxy)
    assert proxy.rowCount() == 5


def test_origin_filter_and_search_cover_commit_rows(qtbot, engine, tmp_path):
    root = tmp_path / "home"
    shas = build(root)
    ws = Workspace.open(root)
    text = (root / "USER.md").read_text()                # Dreamdesk removes one: archive and its commit
    write_memory(ws, "USER.md", text.replace("- Runs three times a week.\n", ""), current_hash(root / "USER.md"),
                 "dream", run="r-20261201-100000")
    ours = SnapshotStore(ws).snapshot("dream: run r-20261201-100000")
    view = show(qtbot, engine, root)
    assert view.model.rowCount() == 6
    runs = next(e for e in view.model.entries if e.latest.text == "- Runs three times a week.")
    r = row_of(view, runs.id)
    assert cell(view.proxy, r, COL_FROM) == f"archive + commit {ours[:8]} · Dreamdesk"
    assert cell(view.proxy, r, COL_FROM, Qt.ToolTipRole).startswith("Written to memory/archive/")
    for label, n in (("archive", 1), ("commit", 6), ("the assistant", 5), ("Dreamdesk", 1), ("From anywhere", 6)):
        pick(view, label)
        assert view.proxy.rowCount() == n, label
    pick(view, "the assistant")
    assert "5 of 6 archived entries match" in view.count_label.text()
    view.search_edit.setText("miso")
    qtbot.waitUntil(lambda: view.proxy.rowCount() == 1, timeout=3000)
    assert cell(view.proxy, 0, COL_ID) == f"c-{shas[1][:12]}-1"
    pick(view, "Dreamdesk")
    assert view.proxy.rowCount() == 0
    view.clear_filters()
    assert view.proxy.rowCount() == 6 and view.origin_combo.currentText() == "From anywhere"


@pytest.mark.parametrize("form", FORMS)
def test_restore_a_commit_row_from_the_gui(qtbot, engine, tmp_path, form):
    root = tmp_path / "home"
    shas = build(root, *FORMS[form])
    rid = f"c-{shas[1][:12]}-1"
    original = (root / "USER.md").read_bytes()
    view = show(qtbot, engine, root)
    select_ids(view, [rid])
    assert "Restore and pin" == view.pin_button.text() and view.restore_button.isEnabled()
    placements = plan_placements(Workspace.open(root), [rid])
    assert placements[0].describe() == f"{rid} → USER.md, at the end of the section “## Identity”"
    view.dialogs = Dialogs(True)
    view.restore_selected()
    qtbot.waitUntil(lambda: (root / "USER.md").read_bytes() != original, timeout=10000)
    assert rid in view.dialogs.asked[0][1] and "section “## Identity”" in view.dialogs.asked[0][1]
    now = (root / "USER.md").read_bytes()
    want = (crlf(MISO) if form == "crlf+bom" else MISO).encode()
    assert b"".join(only_inserted(original, now)).strip(b"\r\n") == want
    assert now.startswith(BOM) == original.startswith(BOM) and now.count(b"\r\n") >= original.count(b"\r\n")
    qtbot.waitUntil(lambda: view.model.row_for_id(rid) is not None
                    and cell(view.proxy, row_of(view, rid), COL_NOW).startswith("back"), timeout=10000)
    undone = undo_restore(Workspace.open(root))       # undoable like any restore
    assert undone.files == ["USER.md"] and (root / "USER.md").read_bytes() == original


def test_restore_and_pin_a_commit_row(qtbot, engine, tmp_path):
    root = tmp_path / "home"
    shas = build(root)
    rid = f"c-{shas[2][:12]}-1"                 # "- Backups go to a NAS." from MEMORY.md
    view = show(qtbot, engine, root)
    select_ids(view, [rid])
    view.dialogs = Dialogs(True)
    view.restore_selected(pin=True)
    ws = Workspace.open(root)
    qtbot.waitUntil(lambda: any(s.pin.text == "- Backups go to a NAS." for s in pin_states(ws)), timeout=10000)
    assert b"- Backups go to a NAS." in (root / "memory/MEMORY.md").read_bytes()
    assert all(s.present for s in pin_states(ws))


def test_a_commit_only_row_is_not_deleted(qtbot, engine, tmp_path):
    root = tmp_path / "home"
    shas = build(root)
    rid = f"c-{shas[1][:12]}-1"
    before = tree_state(root)
    view = show(qtbot, engine, root)
    select_ids(view, [rid])
    assert not view.delete_button.isEnabled()
    assert "history is not rewritten" in view.delete_button.toolTip()
    said = []
    view.status.connect(said.append)
    view.dialogs = Dialogs(True)
    view.delete_selected()                      # the Shift+Del path, should it be reached
    assert said == [f"Not deleted: {rid} is known from commit {shas[1][:8]}; the repository's history is "
                    "not rewritten, so there is nothing to delete"]
    assert view.dialogs.asked == [] and tree_state(root) == before and view.model.rowCount() == 5


def test_detail_names_the_commit_and_its_link_opens_the_snapshot(qtbot, gui_env, tmp_path):
    root = tmp_path / "home"
    shas = build(root)
    win = open_window(qtbot, root)
    try:
        win.tabs.setCurrentWidget(win.archive)
        view = win.archive
        rid = f"c-{shas[1][:12]}-1"
        qtbot.waitUntil(lambda: view.model.row_for_id(rid) is not None, timeout=10000)
        select_ids(view, [rid])
        text = view.detail.toPlainText()
        assert f"Commit\n{shas[1][:8]} “dream: periodic memory consolidation” (dream), by the assistant, " in text
        assert "Known from\ncommit " + shas[1][:8] + " · assistant" in text and "Stored in" not in text
        assert "USER.md, under ## Identity" in text
        pos = anchor_point(view.detail, f"snapshot:{shas[1]}", shas[1][:8])
        qtbot.mouseClick(view.detail.viewport(), Qt.MouseButton.LeftButton, pos=pos)
        assert win.tabs.currentWidget() is win.snapshots
        qtbot.waitUntil(lambda: win.snapshots.selected_shas() == [shas[1]], timeout=10000)
        qtbot.waitUntil(lambda: win.snapshots.shown is not None and win.snapshots.shown.shas == (shas[1],),
                        timeout=10000)
    finally:
        win.close()


def test_empty_only_when_neither_archive_nor_commits_removed_anything(qtbot, engine, tmp_path):
    root = tmp_path / "home"
    (root / "memory").mkdir(parents=True)
    git(root, "init", "--quiet")
    (root / "USER.md").write_text("# User\n\n- Likes tea.\n")
    git(root, "add", "USER.md")
    git(root, "commit", "--quiet", "-m", "init: nanobot memory store")
    view = show(qtbot, engine, root)
    assert view.empty.isVisible() and "Nothing removed yet" in view.empty.text()
    (root / "USER.md").write_text("# User\n")
    git(root, "commit", "--quiet", "-am", "dream: periodic memory consolidation")
    assert not read_archive(Workspace.open(root)).records         # no archive file at all
    view.refresh()
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=10000)
    assert view.empty.isHidden() and cell(view.proxy, 0, COL_TEXT) == "- Likes tea."


@pytest.mark.parametrize("dark", [False, True])
def test_screenshots_of_an_assistants_prunes(qtbot, engine, tmp_path, dark):
    root = tmp_path / "home"
    shas = build(root)
    ws = Workspace.open(root)
    text = (root / "USER.md").read_text()
    write_memory(ws, "USER.md", text.replace("- Runs three times a week.\n", ""), current_hash(root / "USER.md"),
                 "edit")
    SnapshotStore(ws).snapshot("edit: USER.md")
    view = show(qtbot, engine, root)
    if dark:
        view.setPalette(dark_palette())
    qtbot.waitUntil(lambda: view.model.rowCount() == 6, timeout=10000)
    select_ids(view, [f"c-{shas[1][:12]}-2"])           # the oolong entry: replaced, under a heading
    assert "Replaced by" in view.detail.toPlainText()
    grab(view, f"archive-assistant-prunes{'-dark' if dark else ''}.png")


def test_the_cli_refuses_to_delete_a_commit_row_in_words(tmp_path, capsys):
    from dreamdesk.engine.cli import main
    root = tmp_path / "home"
    shas = build(root)
    before = tree_state(root)
    rid = f"c-{shas[1][:12]}-1"
    assert main(["archive", "delete", str(root), rid, "--yes"]) != 0
    out, err = capsys.readouterr()
    assert err.strip().endswith(f"{rid} is known from commit {shas[1][:8]}; the repository's history is not "
                                "rewritten, so there is nothing to delete") and err.count("\n") == 1
    assert tree_state(root) == before
    assert main(["archive", str(root), "--search", "miso"]) == 0
    assert f"from commit {shas[1][:8]} · assistant" in capsys.readouterr().out
