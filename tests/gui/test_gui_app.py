"""The desktop app driven as a person would, offscreen, on real files and a real loopback model."""

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from dreamdesk.engine.home.budgets import measure
from dreamdesk.engine.home.workspace import Workspace
from helpers.gui_waits import counters_shown, jobs_done, settled
from helpers.llm_server import turn
from helpers.screens import grab

import os



def test_gauges_equal_the_engine(main_window, demo_home):
    ws = Workspace.open(demo_home)
    sizes, _ = measure(ws, ws.config())
    gauges = main_window.dashboard.gauges
    assert set(gauges) == {f.path for f in sizes}
    for f in sizes:
        g = gauges[f.path]
        assert (g.chars, g.budget, g.state) == (f.chars, f.budget, f.state)
    assert gauges["memory/MEMORY.md"].state == "near"
    assert "2,866 / 3,000" in gauges["memory/MEMORY.md"].toolTip()
    assert main_window.dashboard.pending.text().startswith("25 entries")
    grab(main_window, "dashboard.png")


def test_outside_write_updates_the_gauge(main_window, demo_home, qtbot):
    path = demo_home / "workspace" / "memory" / "MEMORY.md"
    gauge = main_window.dashboard.gauges["memory/MEMORY.md"]
    text = path.read_text(encoding="utf-8") + "- " + "x" * 300 + "\n"
    tmp = path.with_suffix(".tmp-outside")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)                                      # an atomic save, as the assistant does it
    qtbot.waitUntil(lambda: gauge.chars == len(text), timeout=5000)   # (its speed: tests/bench)
    assert gauge.state == "over"
    path.unlink()
    qtbot.waitUntil(lambda: not gauge.exists, timeout=5000)   # a vanished file is shown, not a crash
    path.write_text("# Memory\n", encoding="utf-8")
    qtbot.waitUntil(lambda: gauge.exists and gauge.chars == len("# Memory\n"), timeout=5000)


def test_memory_folder_removed_moved_and_recreated_stays_watched(main_window, demo_home, qtbot, tmp_path):
    import shutil
    memory = demo_home / "workspace" / "memory"
    gauge = main_window.dashboard.gauges["memory/MEMORY.md"]
    saved = tmp_path / "memory-saved"
    shutil.move(str(memory), str(saved))                    # moved out of the workspace
    qtbot.waitUntil(lambda: not gauge.exists, timeout=5000)
    (saved / "MEMORY.md").write_text("# written in the moved-away folder\n", encoding="utf-8")
    shutil.copytree(saved, memory)                           # a new memory/ folder appears
    qtbot.waitUntil(lambda: gauge.exists, timeout=5000)
    for i in range(3):                                       # and is watched: each write reaches the gauge
        text = f"# Memory\n- write {i} after the folder came back\n"
        (memory / "MEMORY.md").write_text(text, encoding="utf-8")
        qtbot.waitUntil(lambda: gauge.chars == len(text), timeout=5000)
    shutil.rmtree(memory)                                    # deleted outright, then recreated
    qtbot.waitUntil(lambda: not gauge.exists, timeout=5000)
    memory.mkdir()
    (memory / "MEMORY.md").write_text("# Memory again\n", encoding="utf-8")
    qtbot.waitUntil(lambda: gauge.exists and gauge.chars == len("# Memory again\n"), timeout=5000)
    (memory / "MEMORY.md").write_text("# Memory again, longer\n", encoding="utf-8")
    qtbot.waitUntil(lambda: gauge.chars == len("# Memory again, longer\n"), timeout=5000)


def test_files_that_cannot_be_saved_open_read_only_with_the_reason(gui_env, qtbot, make_workspace, tmp_path):

    from conftest import open_window, tree_state
    outside = tmp_path / "outside-user.md"
    outside.write_text("# User kept elsewhere\n", encoding="utf-8")
    root = make_workspace({"SOUL.md": "# Soul\n", "memory/MEMORY.md": b"# Memory\n- caf\xe9 in Latin-1\n"},
                          root=tmp_path / "ws")
    os.symlink(outside, root / "USER.md")
    win = open_window(qtbot, root)
    files = win.files
    win.tabs.setCurrentWidget(files)
    before = tree_state(root), outside.read_bytes()
    for path, reason in (("USER.md", "symlink leading outside"), ("memory/MEMORY.md", "not valid UTF-8")):
        files.open_path(path)
        qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == path, timeout=5000)
        assert files.editor.isReadOnly() and files.read_only_note.isVisible()
        assert reason in files.read_only_note.text(), files.read_only_note.text()
        files.editor.setFocus()
        qtbot.keyClicks(files.editor, "typed")
        assert not files.dirty and not files.save_button.isEnabled()
        files.save()
    assert (tree_state(root), outside.read_bytes()) == before               # nothing written anywhere
    files.open_path("SOUL.md")
    qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == "SOUL.md", timeout=5000)
    assert not files.editor.isReadOnly() and not files.read_only_note.isVisible()
    win.close()


class Dialogs:
    def __init__(self, answers):
        self.answers = list(answers)
        self.asked = []

    def conflict(self, parent, path):
        self.asked.append(("conflict", path))
        return self.answers.pop(0)

    def compare(self, parent, path, disk, mine):
        self.asked.append(("compare", path))


def _open_user_md(win, qtbot):
    win.tabs.setCurrentWidget(win.files)
    win.files.open_path("USER.md")
    qtbot.waitUntil(lambda: win.files.loaded is not None and win.files.loaded.path == "USER.md", timeout=5000)


def test_edit_and_save_archives_removed_entries(main_window, demo_home, qtbot):
    _open_user_md(main_window, qtbot)
    ed = main_window.files.editor
    original = ed.toPlainText()
    from dreamdesk.engine.text.entries import split_entries
    first = next(e for e in split_entries(original) if e.kind == "item")    # the whole entry, every line of it
    lines = original.split("\n")
    ed.setPlainText("\n".join(lines[:first.start] + lines[first.end:]))
    assert main_window.files.dirty and "unsaved" in main_window.files.size_line.text()
    main_window.files.save()
    qtbot.waitUntil(lambda: not main_window.files.dirty, timeout=5000)
    on_disk = (demo_home / "workspace" / "USER.md").read_text(encoding="utf-8")
    assert first.text not in on_disk
    from dreamdesk.engine.recovery.archive import read_archive
    assert [(a.text, a.reason, a.heading) for a in read_archive(Workspace.open(demo_home)).records] == \
        [(first.text, "edit", first.heading)]
    grab(main_window, "files.png")


def test_save_with_nothing_to_save_writes_nothing_and_is_disabled(main_window, demo_home, qtbot):
    """Issue 25 item 5: Ctrl+S with no edit neither says "Saved" nor rewrites the file."""
    from PySide6.QtCore import Qt
    _open_user_md(main_window, qtbot)
    files, path = main_window.files, demo_home / "workspace" / "USER.md"
    st = path.stat()
    assert not main_window.save_action.isEnabled() and not files.save_button.isEnabled()
    files.editor.setFocus()
    qtbot.keyClick(files.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    files.save()                                   # even asked directly (a stale shortcut), nothing is written
    assert not main_window.engine.busy             # no save job was queued
    bar = main_window.statusBar()
    assert "Nothing to save" in bar.currentMessage() + bar.toolTip()
    qtbot.keyClicks(files.editor, "x")
    assert main_window.save_action.isEnabled()
    qtbot.keyClick(files.editor, Qt.Key.Key_Backspace)          # typed, then taken back: nothing unsaved
    assert not main_window.save_action.isEnabled()
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (st.st_ino, st.st_mtime_ns)


@pytest.mark.parametrize("answers,expect", [(["compare", "reload"], "disk"), (["overwrite"], "mine"),
                                            (["cancel"], "disk-kept-edit")])
def test_edit_conflict_flow(main_window, demo_home, qtbot, answers, expect):
    _open_user_md(main_window, qtbot)
    files = main_window.files
    files.dialogs = Dialogs(answers)
    path = demo_home / "workspace" / "USER.md"
    mine = files.editor.toPlainText() + "- my own note\n"
    files.editor.setPlainText(mine)
    disk = path.read_text(encoding="utf-8") + "- written by the assistant\n"
    path.write_text(disk, encoding="utf-8")
    qtbot.waitUntil(lambda: files.banner.isVisible(), timeout=5000)      # the editor noticed
    files.save()
    qtbot.waitUntil(lambda: bool(files.dialogs.asked), timeout=5000)
    if expect == "disk":
        assert files.dialogs.asked == [("conflict", "USER.md"), ("compare", "USER.md"), ("conflict", "USER.md")]
        qtbot.waitUntil(lambda: files.editor.toPlainText() == disk, timeout=5000)
        assert path.read_text(encoding="utf-8") == disk
    elif expect == "mine":
        qtbot.waitUntil(lambda: path.read_text(encoding="utf-8") == mine, timeout=5000)
        archive = "".join(p.read_text(encoding="utf-8") for p in (demo_home / "workspace/memory/archive").glob("*.jsonl"))
        assert "written by the assistant" in archive      # overwriting lost nothing
    else:
        assert path.read_text(encoding="utf-8") == disk and files.editor.toPlainText() == mine and files.dirty
    if expect != "disk-kept-edit":      # resolved: the "changed on disk" banner goes, and stays gone
        qtbot.waitUntil(lambda: not files.dirty, timeout=5000)
        settled(qtbot, main_window)     # the watcher's report of the writes, and the disk check it started
        assert not files.banner.isVisible(), files.banner.text()


def test_the_conflict_question_defaults_to_compare_and_compare_shows_the_coloured_diff(qapp, qtbot, gui_engine):
    """Issue 17.5: Overwrite was the default button (Enter overwrote the assistant's write), and
    Compare was uncoloured text with only Close."""
    from dreamdesk.gui.qt import QDialogButtonBox, QMessageBox
    from dreamdesk.gui.views.files_view import ConflictDialogs
    box, choices = ConflictDialogs.conflict_box(None, "USER.md")
    qtbot.addWidget(box)
    assert choices[box.defaultButton()] == "compare"
    assert box.escapeButton() is box.button(QMessageBox.StandardButton.Cancel)
    disk, mine = "# U\n- kept\n- written by the assistant\n", "# U\n- kept\n- my own note\n"
    dlg, view, picks = ConflictDialogs.compare_dialog(None, "USER.md", disk, mine, gui_engine)
    qtbot.addWidget(dlg)
    assert view.toPlainText() == "Preparing diff…"         # at once; the diff comes from the reader thread
    qtbot.waitUntil(lambda: not view.preparing(), timeout=5000)
    html = view.toHtml()
    assert "written by the assistant" in view.toPlainText() and "my own note" in view.toPlainText()
    assert "background-color" in html                      # the diff view's red and green lines
    buttons = dlg.findChild(QDialogButtonBox).buttons()
    assert sorted(picks[b] for b in buttons) == ["back", "overwrite", "reload"]
    assert picks[next(b for b in buttons if b.isDefault())] == "back"
    assert all(not b.autoDefault() for b in buttons if picks[b] != "back")
    over = next(b for b in buttons if picks[b] == "overwrite")
    over.click()
    assert picks[dlg.chosen] == "overwrite"


def test_saving_keeps_undo_and_the_cursor_and_an_outside_write_keeps_the_view(main_window, demo_home, qtbot):
    from PySide6.QtGui import QTextCursor
    _open_user_md(main_window, qtbot)
    files = main_window.files
    ed = files.editor
    ed.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(ed, "- typed, then saved")
    pos = ed.textCursor().position()
    with qtbot.waitSignal(main_window.engine.wrote, timeout=5000,      # our own save, said by its change record
                          check_params_cb=lambda paths: any(p.endswith("/USER.md") for p in paths)):
        files.save()
    qtbot.waitUntil(lambda: not files.dirty, timeout=5000)
    jobs_done(qtbot, main_window.engine)                     # and the check it triggers has answered
    assert ed.document().isUndoAvailable() and ed.textCursor().position() == pos
    path = demo_home / "workspace" / "USER.md"
    ed.moveCursor(QTextCursor.MoveOperation.Start)
    ed.moveCursor(QTextCursor.MoveOperation.Down)
    line_pos = ed.textCursor().position()
    path.write_text(path.read_text(encoding="utf-8") + "- written by the assistant\n", encoding="utf-8")
    qtbot.waitUntil(lambda: ed.toPlainText().endswith("- written by the assistant\n"), timeout=5000)
    assert ed.textCursor().position() == line_pos             # reloaded where the person was reading


def test_a_huge_memory_file_opens_as_plain_text_and_blame_follows_the_cursor(main_window, demo_home, qtbot):
    from PySide6.QtGui import QTextCursor

    from dreamdesk.gui.views.files_view import HIGHLIGHT_LIMIT
    path = demo_home / "workspace" / "memory" / "MEMORY.md"
    big = "# Memory\n\n" + "".join(f"- note {i}: " + "x" * 60 + "\n" for i in range(HIGHLIGHT_LIMIT // 60 + 10))
    path.write_text(big, encoding="utf-8")
    files = main_window.files
    main_window.tabs.setCurrentWidget(files)
    files.open_path("memory/MEMORY.md")
    qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == "memory/MEMORY.md"
                    and len(files.loaded.text) == len(big), timeout=10000)
    assert files.highlighter.document() is None and "highlighting off" in files.size_line.text()
    ed = files.editor
    ed.moveCursor(QTextCursor.MoveOperation.Start)
    for _ in range(3):
        ed.moveCursor(QTextCursor.MoveOperation.Down)
    qtbot.waitUntil(lambda: files.blame.text().startswith("Line 4:"), timeout=2000)
    files.open_path("USER.md")                                # a normal file is highlighted again
    qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == "USER.md", timeout=5000)
    assert files.highlighter.document() is ed.document()


def test_switching_between_workspaces_with_the_same_files_shows_the_new_text(main_window, qtbot, make_workspace,
                                                                             tmp_path):
    win = main_window
    a = make_workspace({"SOUL.md": "# Soul of A\n", "USER.md": "# A\n"}, root=tmp_path / "a")
    b = make_workspace({"SOUL.md": "# Soul of B\n", "USER.md": "# B\n"}, root=tmp_path / "b")
    assert win.open_workspace(str(a))
    win.tabs.setCurrentWidget(win.files)
    qtbot.waitUntil(lambda: win.files.editor.toPlainText() == "# Soul of A\n", timeout=5000)
    assert win.open_workspace(str(b))
    qtbot.waitUntil(lambda: win.files.editor.toPlainText() == "# Soul of B\n", timeout=5000)
    assert win.files.loaded.path == "SOUL.md" and win.files.ws is win.ws


def test_close_with_save_waits_for_the_save_and_a_conflict_keeps_the_window(main_window, demo_home, qtbot):
    """Closing with "Save" while the assistant changed the file: the conflict question comes
    while the window is still open; Cancel keeps window and edit, Overwrite saves then closes."""
    win = main_window
    _open_user_md(win, qtbot)
    files = win.files
    files.dialogs = Dialogs(["cancel", "overwrite"])
    win.unsaved_choice = lambda: "save"
    path = demo_home / "workspace" / "USER.md"
    mine = files.editor.toPlainText() + "- typed just before quitting\n"
    files.editor.setPlainText(mine)
    path.write_text(path.read_text(encoding="utf-8") + "- written by the assistant\n", encoding="utf-8")
    win.close()
    qtbot.waitUntil(lambda: len(files.dialogs.asked) == 1, timeout=5000)
    assert win.isVisible() and files.dirty and files.editor.toPlainText() == mine     # Cancel: all kept
    win.close()
    qtbot.waitUntil(lambda: not win.isVisible(), timeout=5000)                          # Overwrite, then closed
    assert path.read_text(encoding="utf-8") == mine and len(files.dialogs.asked) == 2


def test_switching_workspace_with_save_saves_first_then_opens(main_window, demo_home, qtbot, make_workspace,
                                                             tmp_path):
    win = main_window
    _open_user_md(win, qtbot)
    other = make_workspace({"USER.md": "# Other user\n", "SOUL.md": "# Other soul\n"}, root=tmp_path / "other")
    win.unsaved_choice = lambda: "save"
    mine = win.files.editor.toPlainText() + "- saved on the way out\n"
    win.files.editor.setPlainText(mine)
    assert not win.open_workspace(str(other))                    # not yet: the save goes first
    qtbot.waitUntil(lambda: win.ws is not None and win.ws.root == other, timeout=5000)
    assert (demo_home / "workspace" / "USER.md").read_text(encoding="utf-8") == mine
    qtbot.waitUntil(lambda: win.files.loaded is not None and win.files.loaded.text.startswith("# Other"),
                    timeout=5000)
    assert not win.files.dirty and win.files.ws is win.ws


class Floor:
    def __init__(self, answer):
        self.answer = answer
        self.asked = []

    def confirm_below_floor(self, parent, value):
        self.asked.append(value)
        return self.answer


@pytest.mark.parametrize("answer", [False, True])
def test_settings_review_floor_dialog(main_window, demo_home, qtbot, answer):
    cfg = demo_home / "config.json"
    before = cfg.read_bytes()
    view = main_window.settings
    view.dialogs = Floor(answer)
    main_window.tabs.setCurrentWidget(view)
    view.review.setValue(4)
    view.review.editingFinished.emit()                    # leaving the field asks nothing, writes nothing
    assert view.dialogs.asked == [] and cfg.read_bytes() == before
    view.apply_button.click()
    assert view.dialogs.asked == [4]
    if not answer:
        assert cfg.read_bytes() == before and view.review.value() == 12 and not view.changes()
    else:
        qtbot.waitUntil(lambda: json.loads(cfg.read_text())["agents"]["defaults"]["dream"]["reviewEveryRuns"] == 4,
                        timeout=5000)
        raw = json.loads(cfg.read_text())
        assert "channels" in raw and "tools" in raw              # unknown keys kept


def test_settings_budget_writes_through_the_engine_on_apply(main_window, demo_home, qtbot):
    from dreamdesk.gui.widgets.gauge import STATE_COLOURS
    view = main_window.settings
    main_window.tabs.setCurrentWidget(view)
    label = view.budget_now["memory/MEMORY.md"]
    assert label.text() == "now 2,866 of 3,000 — near" and STATE_COLOURS["near"] in label.styleSheet()
    cfg = demo_home / "config.json"
    before = cfg.read_bytes()
    spin = view.budget_spins["memoryBudgetChars"]
    spin.setValue(2500)                                   # typed: the label previews the field's value
    assert label.text() == "now 2,866 of 2,500 — over by 366" and STATE_COLOURS["over"] in label.styleSheet()
    spin.editingFinished.emit()                           # and left: nothing written
    assert view.pending_line.text() == "1 unapplied change" and view.apply_button.isEnabled()
    counters_shown(qtbot, main_window)
    grab(main_window, "settings.png")
    assert cfg.read_bytes() == before and not main_window.engine.busy
    view.apply_button.click()
    qtbot.waitUntil(lambda: json.loads(cfg.read_text())["agents"]["defaults"]["dream"]["memoryBudgetChars"] == 2500,
                    timeout=5000)
    qtbot.waitUntil(lambda: main_window.dashboard.gauges["memory/MEMORY.md"].state == "over", timeout=5000)
    assert label.text() == "now 2,866 of 2,500 — over by 366" and label.isVisible()    # saved, still there
    assert view.pending_line.text() == "" and not view.apply_button.isEnabled()


def test_tabbing_through_settings_never_rewrites_config_json(gui_env, qtbot, demo_home):
    from PySide6.QtCore import Qt as QtNs
    from PySide6.QtTest import QTest

    from conftest import open_window
    cfg = demo_home / "config.json"
    data = json.loads(cfg.read_text(encoding="utf-8"))
    data["agents"]["defaults"]["dream"].update(memoryBudgetChars=5_000_000, intervalH=1.333, reviewEveryRuns=50_000)
    cfg.write_text(json.dumps(data, indent=2), encoding="utf-8")
    before = cfg.read_bytes()
    win = open_window(qtbot, demo_home)
    view = win.settings
    win.tabs.setCurrentWidget(view)
    assert "memoryBudgetChars is 5,000,000 in config.json" in view.range_note.text() and view.range_note.isVisible()
    view.interval.setFocus()
    for _ in range(10):                                      # through every field, typing nothing
        QTest.keyClick(QApplication.focusWidget(), QtNs.Key.Key_Tab)
    # a write would be queued by the key itself (busy at once): there is nothing to wait for
    assert view.changes() == {} and not win.engine.busy and cfg.read_bytes() == before
    spin = view.budget_spins["userBudgetChars"]              # a real edit is written on Apply
    spin.setValue(2800)
    spin.editingFinished.emit()
    assert view.changes() == {"userBudgetChars": 2800}       # the clamped field is not a change
    view.apply_button.click()
    qtbot.waitUntil(lambda: json.loads(cfg.read_text())["agents"]["defaults"]["dream"]["userBudgetChars"] == 2800,
                    timeout=5000)
    assert json.loads(cfg.read_text())["agents"]["defaults"]["dream"]["memoryBudgetChars"] == 5_000_000
    win.close()


def _use_server(win, url):
    from dreamdesk.gui.app import settings_store
    settings_store.set_model_override(settings_store.ModelOverride(True, url, "test-model", "sk-gui-test-77"))
    win.panel.set_workspace(win.ws)


def test_an_unreachable_model_is_said_in_words(main_window, qtbot, monkeypatch):
    """Issue 25 item 7: not "ConnectError: [Errno 111] …" but what happened, where, what to check."""
    import socket

    from dreamdesk.engine.llm.http import HttpPoster
    one_try = HttpPoster.__init__
    monkeypatch.setattr(HttpPoster, "__init__", lambda self, timeout=120.0, *_a, **_k: one_try(self, timeout, 0))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]                       # closed again: nothing listens there
    _use_server(main_window, f"http://127.0.0.1:{port}/v1")
    qtbot.waitUntil(lambda: "test-model" in main_window.panel.model_label.text(), timeout=5000)
    main_window.panel.run_dream()
    qtbot.waitUntil(lambda: not main_window.panel.running, timeout=15000)
    said = main_window.panel.outcome.text()
    assert said.startswith(f"Dream failed: Could not reach 127.0.0.1:{port}: nothing accepts connections there"), said
    assert "Error" not in said and "Errno" not in said
    grab(main_window, "engine-unreachable.png")


def test_dream_from_the_engine_panel(main_window, demo_home, qtbot, llm_server):
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes Belgian waffles", "section": "Preferences",
                                         "sources": [100]})), turn(content="ok")], default=turn(content="nothing"))
    _use_server(main_window, srv.url)
    qtbot.waitUntil(lambda: "test-model" in main_window.panel.model_label.text(), timeout=5000)
    qtbot.mouseClick(main_window.panel.dream_button, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not main_window.panel.running, timeout=15000)
    assert main_window.panel.outcome.text().startswith("Dream completed"), main_window.panel.outcome.text()
    assert "Likes Belgian waffles" in (demo_home / "workspace/USER.md").read_text(encoding="utf-8")
    assert (demo_home / "workspace/memory/.dream_cursor").read_text() == "120"
    assert "add_fact: ok" in main_window.panel.log.toPlainText()
    assert "sk-gui-test-77" not in main_window.panel.log.toPlainText()


def test_cancel_holds_the_cursor_and_the_loop_keeps_ticking(main_window, demo_home, qtbot, llm_server):
    from PySide6.QtCore import QTimer
    srv = llm_server(default={"delay": 20, **turn(content="late")})
    _use_server(main_window, srv.url)
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(20)
    main_window.panel.run_dream()
    qtbot.waitUntil(lambda: len(srv.requests) == 1, timeout=5000)
    n = len(ticks)
    qtbot.waitUntil(lambda: len(ticks) - n >= 5, timeout=5000)     # the GUI thread keeps ticking...
    assert srv.answered == 0 and main_window.panel.running          # ...while the job is held in the model call
    assert main_window.panel.cancel_button.isEnabled()
    main_window.panel.cancel()
    qtbot.waitUntil(lambda: "cancelled" in main_window.panel.outcome.text(), timeout=3000)
    timer.stop()
    assert (demo_home / "workspace/memory/.dream_cursor").read_text() == "99"


def test_demo_replay_runs_offline_from_the_panel(main_window, demo_home, qtbot):
    main_window.panel.run_dream()
    qtbot.waitUntil(lambda: main_window.panel.outcome.text().startswith("Dream completed"), timeout=15000)
    assert "Review pass: freed" in main_window.panel.outcome.text()
    qtbot.waitUntil(lambda: main_window.dashboard.pending.text().startswith("5 entries"), timeout=5000)
    qtbot.waitUntil(lambda: "No Dream run" not in main_window.dashboard.last_run.text(), timeout=5000)
    grab(main_window, "engine.png")                           # the demo's recorded run, played offline


def test_bad_folder_keeps_the_current_workspace(main_window, tmp_path):
    current = main_window.ws.root
    assert main_window.open_workspace(str(tmp_path / "nope")) is False
    assert main_window.ws.root == current


def test_history_and_shortcuts(main_window, qtbot):
    shortcuts = {a.shortcut().toString() for a in main_window.actions()}
    assert {"F5", "Ctrl+S", "Ctrl+D", "Ctrl+Shift+D", "Ctrl+R", "Ctrl+K", "Ctrl+O", "Ctrl+1"} <= shortcuts
    main_window.tabs.setCurrentWidget(main_window.history)
    grab(main_window, "history-window.png")


class Asked:
    def __init__(self):
        self.asked = []

    def confirm(self, parent, title, text):
        self.asked.append(title)
        return False                                        # declined: nothing is written

    def move_cursor_back(self, parent, text):
        self.asked.append("move cursor back?")
        return None                                         # cancelled: nothing is written


def test_restore_and_archive_actions_have_keys_that_act_on_the_visible_tab(gui_env, qtbot, tmp_path):
    from PySide6.QtCore import Qt as QtNs
    from PySide6.QtTest import QTest

    from conftest import open_window, tree_state
    from dreamdesk.gui.app.app import ensure_demo_copy
    home = ensure_demo_copy(tmp_path / "data")
    win = open_window(qtbot, home)
    shortcuts = {a.shortcut().toString() for a in win.actions()}
    assert {"Ctrl+Q", "F1", "Ctrl+E"} <= shortcuts
    before = tree_state(home / "workspace")
    snaps, archive = win.snapshots, win.archive
    snaps.dialogs, archive.dialogs = Asked(), Asked()

    win.tabs.setCurrentWidget(snaps)
    qtbot.waitUntil(lambda: snaps.model.rowCount() >= 5, timeout=10000)
    snaps.select_shas([snaps.model.snapshots[3].sha])
    qtbot.waitUntil(lambda: snaps.shown is not None and snaps.restore_button.isEnabled(), timeout=10000)
    QTest.keyClick(win, QtNs.Key.Key_R, QtNs.KeyboardModifier.ControlModifier | QtNs.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: len(snaps.dialogs.asked) == 1, timeout=5000)
    assert archive.dialogs.asked == []                      # the hidden tab's button did not fire
    QTest.keyClick(win, QtNs.Key.Key_S, QtNs.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: snaps.split_button.isChecked(), timeout=2000)     # a key click animates: ~100 ms
    QTest.keyClick(win, QtNs.Key.Key_U, QtNs.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: snaps.unified_button.isChecked(), timeout=2000)

    win.tabs.setCurrentWidget(archive)
    qtbot.waitUntil(lambda: archive.model.rowCount() > 0, timeout=10000)
    archive.select_id(archive.model.record(0).id)
    qtbot.waitUntil(lambda: archive.restore_button.isEnabled(), timeout=5000)
    QTest.keyClick(win, QtNs.Key.Key_R, QtNs.KeyboardModifier.ControlModifier | QtNs.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: len(archive.dialogs.asked) == 1, timeout=5000)
    assert len(snaps.dialogs.asked) == 1
    QTest.keyClick(win, QtNs.Key.Key_Delete, QtNs.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: archive.dialogs.asked[-1:] == ["Delete from the archive"], timeout=5000)
    for key in (QtNs.Key.Key_Shift, QtNs.Key.Key_Control, QtNs.Key.Key_Alt):
        QTest.keyRelease(win, key)        # else Qt believes they are still held, into the next test
    assert {k: v for k, v in tree_state(home / "workspace").items() if not k.startswith(".git")} == \
        {k: v for k, v in before.items() if not k.startswith(".git")}          # declined: nothing written
    win.close()


def test_every_splitter_is_remembered(gui_env, qtbot, demo_home):
    from conftest import open_window
    def show_tab(win, splitter):
        win.tabs.setCurrentWidget(next(w for w in (win.files, win.history, win.prompt, win.snapshots, win.archive,
                                                   win.runs, win.lint) if w.splitter is splitter))
        QApplication.processEvents()                   # the layout a tab shown for the first time posts

    win = open_window(qtbot, demo_home)
    wanted = {}
    for name, splitter in win._splitters():
        show_tab(win, splitter)
        total = sum(splitter.sizes())
        splitter.moveSplitter(total // 4, 1)           # the person drags its handle
        wanted[name] = splitter.sizes()
    size = win.size()
    win.close()
    from dreamdesk.gui.window.main_window import MainWindow
    again = MainWindow()
    qtbot.addWidget(again)
    again.resize(size)            # offscreen's 800×800 screen clamps a restored geometry; a desktop would not
    again.show()
    qtbot.waitExposed(again)
    assert again.open_workspace(str(demo_home))
    qtbot.waitUntil(lambda: again.state is not None, timeout=10000)
    for name, splitter in again._splitters():
        show_tab(again, splitter)

        def restored(name=name, splitter=splitter):         # once the tab's first layout put them back
            assert splitter.sizes() == wanted[name], (name, splitter.sizes(), wanted[name])
        qtbot.waitUntil(restored, timeout=5000)
    again.close()


def test_a_run_s_source_link_opens_that_history_row_in_the_window(gui_env, qtbot, tmp_path):
    """The click-through wired in the real window: run detail → History tab, that entry selected."""
    import re

    from PySide6.QtCore import QUrl

    from conftest import open_window
    from dreamdesk.engine.dream.records import list_runs
    from dreamdesk.gui.app.app import ensure_demo_copy
    home = ensure_demo_copy(tmp_path / "data")
    win = open_window(qtbot, home)
    run = next(r for r in list_runs(win.ws)[0] if any(f.get("sources") for f in r.created))
    win.tabs.setCurrentWidget(win.runs)
    qtbot.waitUntil(lambda: win.runs.model.rowCount() > 0, timeout=10000)
    assert win.runs.select_run(run.id)
    qtbot.waitUntil(lambda: "cursor:" in win.runs.detail.toHtml(), timeout=10000)
    href = re.search(r'href="(cursor:(\d+))"', win.runs.detail.toHtml())
    assert href and int(href.group(2)) in {c for f in run.created for c in f.get("sources") or []}
    win.runs.detail.anchorClicked.emit(QUrl(href.group(1)))               # what a click on the link sends
    assert win.tabs.currentWidget() is win.history
    qtbot.waitUntil(lambda: win.history.selected_item() is not None, timeout=5000)
    assert win.history.selected_item().cursor == int(href.group(2))
    win.close()


def test_open_the_demo_builds_the_copy_off_the_gui_thread(main_window, qtbot, monkeypatch):
    import threading

    import dreamdesk.engine.desktop.demo_copy as app_mod
    from dreamdesk.gui.app import settings_store
    real, threads = app_mod.build_demo_copy, []

    def spy(*a, **kw):
        threads.append(threading.current_thread().name)
        return real(*a, **kw)
    monkeypatch.setattr(app_mod, "build_demo_copy", spy)
    main_window.open_demo()
    qtbot.waitUntil(lambda: main_window.ws is not None and main_window.ws.home is not None
                    and main_window.ws.home.name == "demo" and "xdg-data" in str(main_window.ws.home), timeout=15000)
    assert threads and threading.main_thread().name not in threads
    assert settings_store.demo_home() == str(main_window.ws.home)
    assert (main_window.ws.root / ".git").is_dir()                   # with its recorded past


def test_compact_now_waits_for_no_one_while_another_process_holds_the_job_lock(main_window, demo_home, qtbot,
                                                                                 brief_job_lock_wait):
    import subprocess
    import sys
    from conftest import tree_state
    from dreamdesk.engine.core.state import lock_path
    ws = main_window.ws
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from pathlib import Path; from dreamdesk.engine.disk.files import FileLock;"
        f"l = FileLock(Path({str(lock_path(ws.root, 'job'))!r})).acquire(); print('held', flush=True);"
        "time.sleep(30)")], stdout=subprocess.PIPE, text=True, cwd=str(Path(__file__).parents[2]))
    try:
        assert holder.stdout.readline().strip() == "held"
        before = tree_state(demo_home / "workspace" / "memory")
        main_window.panel.run_compact()
        qtbot.waitUntil(lambda: not main_window.panel.running, timeout=10000)
        assert main_window.panel.outcome.text().startswith("Failed:") and "held by another process" in \
            main_window.panel.outcome.text()
        after = tree_state(demo_home / "workspace" / "memory")
        assert {k: v for k, v in after.items() if not k.endswith(".lock")} == \
            {k: v for k, v in before.items() if not k.endswith(".lock")}
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def test_compact_now_says_why_nothing_was_compacted_while_the_assistant_runs(gui_env, qtbot, demo_home):
    """A nanobot home whose gateway is running: the outcome names the reason (and the pid), not
    the generic "nothing to compact" line."""
    import base64
    import subprocess
    import sys
    from conftest import open_window
    wid = "f" * 32
    (demo_home / "workspace" / ".nanobot").mkdir()
    (demo_home / "workspace" / ".nanobot" / "workspace-id").write_text(wid + "\n")
    folder = demo_home / "sessions" / wid
    folder.mkdir()
    name = base64.urlsafe_b64encode(b"cli:direct").decode().rstrip("=")
    lines = (demo_home / "sessions" / "cli_direct.jsonl").read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace('"last_consolidated": 20', '"last_consolidated": 0')   # 28 live messages
    (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (demo_home / "sessions" / "cli_direct.jsonl").unlink()
    (folder / ".workspace").write_text(str(demo_home / "workspace") + "\n")
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (demo_home / "run").mkdir()
        (demo_home / "run" / "gateway.json").write_text(json.dumps({"pid": live.pid}))
        win = open_window(qtbot, demo_home)
        win.panel.run_compact()
        qtbot.waitUntil(lambda: not win.panel.running, timeout=10000)
        text = win.panel.outcome.text()
        assert "not compacted while the assistant is running" in text and f"pid {live.pid}" in text
        win.close()
    finally:
        live.kill()
        live.wait()


def test_tab_leaves_every_table(main_window, qtbot):
    from PySide6.QtWidgets import QTableView
    for i in range(main_window.tabs.count()):          # a tab's view is built when first shown
        main_window.tabs.setCurrentIndex(i)
    tables = main_window.findChildren(QTableView)
    assert len(tables) >= 5
    assert [t.objectName() or type(t.parent()).__name__ for t in tables if t.tabKeyNavigation()] == []


def test_prompt_preview_parts(main_window, demo_home, qtbot):
    from dreamdesk.engine.assistants.prompt import build_prompt
    ws = Workspace.open(demo_home)
    _, dream, _ = ws.cursors()
    pv = build_prompt(ws, ws.history(), dream)
    view = main_window.prompt
    main_window.tabs.setCurrentWidget(view)
    table = view.table
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == [p.name for p in pv.parts]
    assert [table.item(r, 1).text() for r in range(table.rowCount())] == [f"{p.chars:,}" for p in pv.parts]
    assert f"{pv.total_chars:,} characters" in view.total.text()
    assert [t for _, t, _ in view.bar.parts] == [p.tokens for p in pv.parts if p.included]
    table.selectRow([p.name for p in pv.parts].index("Wikis"))
    assert "(no scope set)" in view.text.toPlainText()
    grab(main_window, "prompt.png")


def test_chart_series_equal_the_size_history(main_window, demo_home, qtbot):
    from dreamdesk.engine.versions.snapshots import SnapshotStore
    main_window.panel.run_dream()                      # the demo's recorded run makes snapshots
    qtbot.waitUntil(lambda: main_window.panel.outcome.text().startswith("Dream completed"), timeout=15000)
    main_window.tabs.setCurrentWidget(main_window.charts)
    charts = main_window.charts
    qtbot.waitUntil(lambda: charts.data is not None and "size" in charts.series, timeout=10000)
    charts.file_combo.setCurrentText("USER.md")
    history = SnapshotStore(Workspace.open(demo_home)).size_history()["USER.md"]
    series = charts.series["size"]
    got = [(int(series.at(i).x() // 1000), int(series.at(i).y())) for i in range(series.count())]
    assert got == [(p.time, p.chars) for p in history if p.chars is not None]
    assert charts.series["budget"].at(0).y() == 3000
    assert charts.series["review"].count() == 1           # the run had a review pass
    grab(main_window, "charts.png")


def test_charts_draws_a_typed_budget_as_not_applied(main_window, demo_home, qtbot):
    """Issue 25 item 11: a budget typed in Settings → Memory and not applied is a labelled what-if line."""
    main_window.panel.run_dream()                      # the demo's recorded run makes snapshots
    qtbot.waitUntil(lambda: main_window.panel.outcome.text().startswith("Dream completed"), timeout=15000)
    settings = main_window.settings
    main_window.tabs.setCurrentWidget(settings)
    settings.budget_spins["memoryBudgetChars"].setValue(2500)          # typed, not applied
    main_window.tabs.setCurrentWidget(main_window.charts)
    charts = main_window.charts
    qtbot.waitUntil(lambda: charts.data is not None and "size" in charts.series, timeout=10000)
    charts.file_combo.setCurrentText("memory/MEMORY.md")
    assert charts.series["budget"].at(0).y() == 3000                   # what config.json says
    what_if = charts.series["what-if"]
    assert what_if.at(0).y() == 2500 and "not applied" in what_if.name()
    grab(main_window, "charts-what-if.png")
    settings.revert_button.click()                                     # back to config.json's value
    assert "what-if" not in charts.series and charts.series["budget"].at(0).y() == 3000


def test_budget_what_if_and_blame_after_a_run(main_window, demo_home, qtbot):
    main_window.panel.run_dream()                      # the demo's recorded run: writes and provenance
    qtbot.waitUntil(lambda: main_window.panel.outcome.text().startswith("Dream completed"), timeout=15000)
    qtbot.waitUntil(lambda: main_window.state is not None and main_window.state.recent_runs == 1, timeout=5000)
    view = main_window.settings
    main_window.tabs.setCurrentWidget(view)
    state = main_window.state
    writes = [(b, a) for f, b, a in state.recent_writes if f == "memory/MEMORY.md"]
    new_budget = 2600
    expected = sum(1 for b, a in writes if a > new_budget and a > b)
    view.budget_spins["memoryBudgetChars"].setValue(new_budget)       # typing, not yet committed
    text = view.budget_now["memory/MEMORY.md"].text()
    assert f"{expected} of the {len(writes)} writes the last 1 run(s) made to it would have been refused" in text
    chars = next(f.chars for f in state.status.files if f.path == "memory/MEMORY.md")
    assert text.startswith(f"now {chars:,} of 2,600 — over by {chars - 2600:,}; ")
    # blame: a line Dream wrote names its run and sources; click-through to the history row
    files = main_window.files
    main_window.tabs.setCurrentWidget(files)
    files.open_path("USER.md")
    qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == "USER.md", timeout=5000)
    lines = files.editor.toPlainText().split("\n")
    wattson = next(i for i, line in enumerate(lines) if "Wattson" in line)
    run_id = next(iter({p.run for p in main_window.state.provenance.values()}))
    assert f"added by Dream run <b>{run_id}</b>" in files.blame_line(wattson)
    assert "written by hand" in files.blame_line(next(i for i, line in enumerate(lines) if line.startswith("- ")
                                                      and ("USER.md", line) not in main_window.state.provenance))
    with qtbot.waitSignal(files.historyCursorRequested) as sig:
        files._blame_link("cursor:116")
    assert sig.args == [116]
    qtbot.waitUntil(lambda: main_window.tabs.currentWidget() is main_window.history, timeout=2000)


def test_dry_run_preview_apply_writes_exactly_the_preview(main_window, demo_home, qtbot):
    from conftest import tree_state
    panel = main_window.panel
    before = tree_state(demo_home)
    seen = {}

    def ask(dlg):
        seen["text"] = dlg.unified
        dlg.show()
        qtbot.waitExposed(dlg)
        qtbot.waitUntil(lambda: not dlg.diff.preparing(), timeout=5000)     # prepared on the reader thread
        seen["shown"] = [f.path for f in dlg.diff.files()]
        seen["scroll"] = dlg.diff.verticalScrollBar().value()
        seen["state"] = tree_state(demo_home)
        dlg.resize(1000, 700)
        grab(dlg, "dry-run.png")
        return True

    panel.ask_apply = ask
    panel.run_dream(dry_run=True)
    qtbot.waitUntil(lambda: "text" in seen, timeout=15000)
    assert seen["state"] == before                       # the preview touched nothing
    qtbot.waitUntil(lambda: panel.outcome.text().startswith("Applied a previewed dry run: "), timeout=15000)
    # the panel says what the run explained (issue 17.4), not only which files were written
    said = panel.outcome.text()
    assert "Review pass: freed" in said and "moved 5 facts" in said, said
    assert not any(w in said for w in ("would move", "would go to", "Dry run")), said     # done, not would
    from dreamdesk.engine.text.diffs import diff_texts
    from conftest import DEMO_HOME
    rels = [line[len("+++ after/"):].strip() for line in seen["text"].splitlines() if line.startswith("+++ after/")]
    assert rels
    applied = "".join(diff_texts((DEMO_HOME / "workspace" / r).read_text(encoding="utf-8"),
                                 (demo_home / "workspace" / r).read_text(encoding="utf-8"), r).unified("before", "after")
                      for r in rels)
    assert applied == seen["text"]
    assert seen["shown"] == rels                          # the dialog shows those very files as a diff
    assert seen["scroll"] == 0                            # from the first file, not scrolled to the last
    assert "Dry run (nothing written)" in panel.log.toPlainText() and "would go to" in panel.log.toPlainText()


def test_model_override_key_stays_out_of_the_workspace(main_window, demo_home, qtbot, llm_server):
    srv = llm_server(default=turn(content="nothing"))
    _use_server(main_window, srv.url)
    main_window.panel.run_dream()
    qtbot.waitUntil(lambda: not main_window.panel.running and main_window.panel.outcome.text() != "", timeout=15000)
    assert srv.headers[0]["authorization"] == "Bearer sk-gui-test-77"
    for p in demo_home.rglob("*"):
        if p.is_file():
            assert b"sk-gui-test-77" not in p.read_bytes(), p
    text = main_window.settings.model_from_config.text()
    assert "openrouter" in text and "sk-" not in text


def test_demo_with_its_recorded_past(gui_env, qtbot, tmp_path):
    """What a fresh install shows: the demo copy with its history, then the recorded run."""
    from conftest import open_window
    from dreamdesk.gui.app.app import ensure_demo_copy
    win = open_window(qtbot, ensure_demo_copy(tmp_path / "data"))
    win.tabs.setCurrentWidget(win.charts)
    qtbot.waitUntil(lambda: "size" in win.charts.series, timeout=10000)
    assert win.charts.series["size"].count() >= 9            # one point per snapshot of the past
    assert win.charts.series["review"].count() >= 1
    grab(win, "charts.png")
    win.tabs.setCurrentWidget(win.runs)
    qtbot.waitUntil(lambda: win.runs.model.rowCount() >= 8, timeout=10000)
    win.close()


def test_scheduling_opt_in_applies_settings_at_once(main_window, demo_home, qtbot):
    from dreamdesk.engine.jobs.scheduler import schedule_path
    view = main_window.settings
    ws = main_window.ws
    assert not schedule_path(ws).exists()                  # opening scheduled nothing
    view.schedule_here.setChecked(True)
    qtbot.waitUntil(lambda: main_window.ctx.upkeep_timer.isActive() and schedule_path(ws).exists(), timeout=5000)
    first = main_window.scheduler.deadline
    view.interval.setValue(5)
    view.apply_button.click()
    qtbot.waitUntil(lambda: main_window.scheduler.deadline != first, timeout=5000)
    assert abs((main_window.scheduler.deadline - first).total_seconds() - 3 * 3600) < 120
    view.enabled.setChecked(False)
    view.apply_button.click()
    qtbot.waitUntil(lambda: main_window.scheduler.status(first).state == "disabled", timeout=5000)
    view.schedule_here.setChecked(False)
    assert not main_window.ctx.upkeep_timer.isActive()


@pytest.fixture
def ticking_window(gui_env, qtbot, demo_home, monkeypatch):
    """The main window on the demo, asking the scheduler every 50 ms instead of every second
    (gui.context.SCHEDULER_TICK_MS): a run made due is started at the next tick."""
    from dreamdesk.gui.context import app_context as context_mod
    from conftest import open_window
    monkeypatch.setattr(context_mod, "SCHEDULER_TICK_MS", 50)
    win = open_window(qtbot, demo_home)
    yield win
    win.close()


def test_a_failed_scheduled_run_leaves_its_error_for_why_not_dreaming(ticking_window, qtbot, llm_server):
    from datetime import datetime, timedelta

    from dreamdesk.engine.jobs.scheduler import Scheduler
    win = ticking_window
    srv = llm_server(default={"status": 401, "body": {"error": {"message": "bad key"}}})
    _use_server(win, srv.url)
    win.settings.schedule_here.setChecked(True)
    qtbot.waitUntil(lambda: win.ctx.upkeep_timer.isActive(), timeout=5000)
    sched = win.scheduler
    win.engine.write("test: make it due", lambda ctx: sched._set_deadline(datetime.now().astimezone()
                                                                              - timedelta(minutes=1)),
                     lambda _r: None)
    qtbot.waitUntil(lambda: bool(srv.requests) and not win.panel.running and sched.running is None
                    and sched.last_error is not None, timeout=20000)
    other = Scheduler(win.ws).status(datetime.now().astimezone())        # `dreamdesk schedule` elsewhere
    assert other.last_error and "failed" in other.last_error.lower(), other.last_error


def test_scheduling_turned_off_while_the_writer_is_busy_stays_off(main_window, qtbot):
    win = main_window
    release = __import__("threading").Event()
    win.engine.write("test: a long job", lambda ctx: release.wait(5), lambda _r: None)
    win.settings.schedule_here.setChecked(True)             # "start" queues behind the long job
    win.settings.schedule_here.setChecked(False)            # and the user changes their mind
    release.set()
    qtbot.waitUntil(lambda: not win.engine.busy, timeout=5000)     # the start job and its callback are done
    assert not win.ctx.upkeep_timer.isActive()


def test_a_due_scheduled_dream_runs_and_the_scheduler_never_works_on_the_gui_thread(ticking_window, demo_home,
                                                                                      qtbot):
    import threading
    from datetime import datetime, timedelta

    from dreamdesk.engine.dream.records import list_runs
    win = ticking_window
    sched = win.scheduler
    threads: dict[str, set[str]] = {}
    for name in ("start", "tick", "finished", "_new_entries"):
        real = getattr(sched, name)

        def spy(*a, _real=real, _name=name, **kw):
            result = _real(*a, **kw)
            threads.setdefault(_name, set()).add(threading.current_thread().name)   # once it has run
            return result
        setattr(sched, name, spy)
    win.settings.schedule_here.setChecked(True)
    qtbot.waitUntil(lambda: win.ctx.upkeep_timer.isActive(), timeout=5000)
    win.engine.write("test: make it due", lambda ctx: sched._set_deadline(datetime.now().astimezone()
                                                                              - timedelta(minutes=1)),
                     lambda _r: None)
    qtbot.waitUntil(lambda: bool(list_runs(win.ws)[0]) and list_runs(win.ws)[0][0].trigger == "interval"
                    and list_runs(win.ws)[0][0].status != "running", timeout=20000)
    qtbot.waitUntil(lambda: "finished" in threads and sched.running is None, timeout=5000)
    assert sched.deadline > datetime.now().astimezone()                    # the next one is set
    main = threading.main_thread().name
    assert set(threads) >= {"start", "tick", "finished"}
    assert all(main not in names for names in threads.values()), threads


def test_floor_dialog_asks_once_per_apply(main_window, demo_home, qtbot):
    jobs_done(qtbot, main_window.engine)             # what opening started (the watch's first look)
    view = main_window.settings
    asked = []

    class Twice:
        def confirm_below_floor(self, parent, value):
            asked.append(value)
            view.apply()                           # Apply pressed again behind the dialog
            return False

    view.dialogs = Twice()
    view.review.setValue(3)
    view.apply_button.click()
    assert asked == [3] and view.review.value() == 12 and not main_window.engine.busy


def test_editor_keys_win_over_window_shortcuts(main_window, qtbot):
    from PySide6.QtCore import Qt
    files = main_window.files
    main_window.tabs.setCurrentWidget(files)
    files.open_path("USER.md")
    qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == "USER.md", timeout=5000)
    files.editor.setFocus()
    qtbot.waitUntil(files.editor.hasFocus, timeout=2000)
    qtbot.keyClick(files.editor, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(files.editor, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    # a shortcut acts inside the key press (a Dream or compaction job is queued at once): nothing to wait for
    assert not main_window.panel.running and not main_window.engine.busy and main_window.panel.outcome.text() == ""
    # a search field too: Esc there must not cancel a running job, Ctrl+K must not compact
    main_window.tabs.setCurrentWidget(main_window.history)
    field = main_window.history.filter_edit
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=2000)
    cancelled = []
    main_window.panel.cancel = lambda: cancelled.append(True)
    main_window.act_cancel.triggered.disconnect()
    main_window.act_cancel.triggered.connect(lambda: main_window.panel.cancel())
    qtbot.keyClick(field, Qt.Key.Key_Escape)
    qtbot.keyClick(field, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert cancelled == [] and not main_window.engine.busy and not main_window.panel.running and main_window.panel.outcome.text() == ""
    main_window.history.table.setFocus()                   # elsewhere, Esc still cancels
    qtbot.waitUntil(main_window.history.table.hasFocus, timeout=2000)
    qtbot.keyClick(main_window.history.table, Qt.Key.Key_Escape)
    assert cancelled == [True]


def test_a_dry_run_that_ends_after_a_workspace_switch_is_never_applied(main_window, demo_home, qtbot, llm_server,
                                                                       tmp_path):
    import shutil

    from conftest import tree_state
    other = tmp_path / "other"
    shutil.copytree(demo_home, other)
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes waffles", "section": "Preferences",
                                         "sources": [100]}), delay=30)], default=turn(content="nothing"))
    _use_server(main_window, srv.url)
    asked = []
    main_window.panel.ask_apply = lambda dlg: asked.append(dlg) or True
    before = tree_state(demo_home / "workspace"), tree_state(other / "workspace")
    main_window.panel.run_dream(dry_run=True)
    qtbot.waitUntil(lambda: bool(srv.requests), timeout=5000)
    assert main_window.open_workspace(str(other))
    srv.release()                                          # the model answers only after the switch
    bar = main_window.statusBar()
    qtbot.waitUntil(lambda: "finished after you switched" in bar.currentMessage() + bar.toolTip(), timeout=15000)
    assert asked == []
    assert main_window.panel.outcome.text() == ""          # the panel shows the open workspace's runs only
    jobs_done(qtbot, main_window.engine)                   # an apply would have been queued by now, and run
    assert (tree_state(demo_home / "workspace"), tree_state(other / "workspace")) == before


def test_a_failed_dry_run_offers_no_apply(main_window, demo_home, qtbot, llm_server):
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Keeps tasks in Todoist; the weekly review "
                                                                      "reads the project \"This week\"."}))],
                     default={"status": 500, "headers": {"Retry-After": "0"}})     # retried at once, then failed
    _use_server(main_window, srv.url)
    seen = {}
    main_window.panel.ask_apply = lambda dlg: seen.setdefault("enabled", dlg.apply_button.isEnabled()) or True
    before = (demo_home / "workspace" / "USER.md").read_bytes()
    main_window.panel.run_dream(dry_run=True)
    qtbot.waitUntil(lambda: "enabled" in seen, timeout=15000)
    assert seen["enabled"] is False
    jobs_done(qtbot, main_window.engine)                   # an apply would have been queued by now, and run
    assert (demo_home / "workspace" / "USER.md").read_bytes() == before
    assert main_window.panel.outcome.text().startswith("Dry run failed")


def test_a_watcher_that_cannot_start_says_so(qtbot, tmp_path):
    from dreamdesk.gui.context.watcher import WorkspaceWatcher
    watcher = WorkspaceWatcher(tmp_path / "gone")               # a folder that is not there to watch
    with qtbot.waitSignal(watcher.failed, timeout=5000) as blocker:
        watcher.start()
    assert blocker.args[0]
    watcher.stop()


def test_the_home_config_outside_the_workspace_is_watched_too(qtbot, tmp_path):
    """The assistant's own config save (in the home, beside the workspace) reaches the window at
    once, so a setting it dropped shows on the Dashboard without a reload."""
    from dreamdesk.gui.context.watcher import WorkspaceWatcher
    ws = tmp_path / "home" / "workspace"
    (ws / "memory").mkdir(parents=True)
    cfg = tmp_path / "home" / "config.json"
    cfg.write_text("{}")
    (tmp_path / "home" / "other.json").write_text("{}")
    watcher = WorkspaceWatcher(ws, outside={cfg: "config.json"})
    seen: list[set] = []
    watcher.changed.connect(seen.append)
    with qtbot.waitSignal(watcher.started, timeout=5000):    # and its first look is done
        watcher.start()
    try:
        (tmp_path / "home" / "other.json").write_text('{"x": 1}')     # not ours to report
        tmp = cfg.with_name(".config.json.tmp")
        tmp.write_text('{"agents": {}}')
        tmp.replace(cfg)                                   # an atomic save, as nanobot's
        qtbot.waitUntil(lambda: any("config.json" in s for s in seen), timeout=5000)
        assert all(p == "config.json" or not p.endswith("other.json") for s in seen for p in s)
    finally:
        watcher.stop()


def test_a_nanobot_home_in_the_window(gui_env, qtbot, make_workspace, tmp_path, fake_templates):
    """Issue 10.6/10.7: a home nanobot 0.3.5 wrote (provider "auto", its templates, its own
    prompts/dream.md) shows the assistant on the Dashboard, nanobot's prompt on the Prompt tab,
    and on the Engine panel the model, prompt and reasons the engine chose."""
    from conftest import open_window
    from helpers.fake_templates import TEMPLATES
    home = tmp_path / "nbhome"
    make_workspace({"AGENTS.md": TEMPLATES["AGENTS.md"], "SOUL.md": TEMPLATES["SOUL.md"],
                    "USER.md": TEMPLATES["USER.md"], "memory/MEMORY.md": TEMPLATES["memory/MEMORY.md"],
                    ".nanobot/workspace-id": "0123456789ab", "prompts/dream.md": "Dream my way.\n",
                    "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00",
                                                        "content": "- [durable] likes tea"}) + "\n"},
                   root=home / "workspace")
    (home / "config.json").write_text(json.dumps({"agents": {"defaults": {"provider": "auto", "modelPreset": None}},
                                                  "providers": {"openrouter": {"apiKey": "sk-or-gui-SECRET"}}}))
    win = open_window(qtbot, home)
    try:
        dash = win.dashboard
        assert dash.assistant.text().startswith("<b>Assistant:</b> nanobot 0.3.x")
        assert "workspace-id" in dash.assistant.toolTip()
        assert "not in nanobot's prompt" in dash.pending.text()
        names = [win.prompt.table.item(r, 0).text() for r in range(win.prompt.table.rowCount())]
        assert names[:4] == ["nanobot's own text", "AGENTS.md", "SOUL.md", "USER.md"]
        row = names.index("USER.md")
        assert win.prompt.table.item(row, 3).text() == "nanobot's untouched template: not injected"
        assert "as nanobot 0.3.x builds it" in win.prompt.total.text()
        label = win.panel.model_label
        qtbot.waitUntil(lambda: "openrouter" in label.text(), timeout=5000)
        assert "Prompt: prompts/dream.md (the assistant's own)" in label.text()
        assert "first that has one" in label.text() and "sk-or-gui-SECRET" not in label.text()
        win.resize(1300, 800)
        qtbot.waitUntil(lambda: win.size().toTuple() == (1300, 800), timeout=5000)
        counters_shown(qtbot, win)
        grab(win, "nanobot-home-dashboard.png")
        win.tabs.setCurrentWidget(win.prompt)
        qtbot.waitUntil(win.prompt.isVisible, timeout=5000)
        counters_shown(qtbot, win)
        grab(win, "nanobot-home-prompt.png")
    finally:
        win.close()


def _dream_cfg(home):
    return json.loads((home / "config.json").read_text())["agents"]["defaults"]["dream"]


def test_a_fractional_interval_is_refused_inline_and_nothing_is_written(main_window, demo_home, qtbot):
    from PySide6.QtCore import Qt as QtNs
    from PySide6.QtTest import QTest
    view = main_window.settings
    main_window.tabs.setCurrentWidget(view)
    cfg = demo_home / "config.json"
    before = cfg.read_bytes()
    assert view.interval.text() == "2 h" and view.interval.minimum() == 1 and view.interval.maximum() == 8760
    view.interval.setFocus()
    view.interval.selectAll()
    QTest.keyClicks(view.interval, "1.5")                 # as a person types it
    QTest.keyClick(view.interval, QtNs.Key.Key_Return)
    # said as it is typed, before any Apply; the demo is a Jenny-style home: no word of nanobot
    assert view.error.text() == "Cannot be applied: intervalH must be a whole number ≥ 1 and ≤ 8760, got 1.5"
    assert view.error.isVisible() and not view.apply_button.isEnabled()
    jobs_done(qtbot, main_window.engine)
    counters_shown(qtbot, main_window)
    grab(main_window, "settings-interval-refused.png")
    assert cfg.read_bytes() == before
    view.interval.selectAll()
    QTest.keyClicks(view.interval, "3")
    assert view.error.text() == "" and view.apply_button.isEnabled()
    QTest.keyClick(view.interval, QtNs.Key.Key_Return)      # Enter applies it (issue 25.12)
    qtbot.waitUntil(lambda: _dream_cfg(demo_home)["intervalH"] == 3, timeout=5000)
    assert isinstance(_dream_cfg(demo_home)["intervalH"], int)
    qtbot.waitUntil(lambda: view.error.text() == "", timeout=5000)


def test_on_a_nanobot_home_the_refusal_says_nanobot_refuses_it_too(gui_env, qtbot, demo_home):
    """The words are the home's assistant's (its adapter's config_note): nanobot's own loader
    refuses a fractional interval, and on its home the form says so."""
    from PySide6.QtTest import QTest

    from conftest import open_window
    ws = demo_home / "workspace"
    (ws / ".nanobot").mkdir()
    (ws / ".nanobot" / "workspace-id").write_text("0123456789abcdef0123456789abcdef")
    win = open_window(qtbot, demo_home)
    view = win.settings
    win.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.state is not None and view.state.status.assistant.name == "nanobot", timeout=10000)
    view.interval.setFocus()
    view.interval.selectAll()
    QTest.keyClicks(view.interval, "1.5")
    assert view.error.text() == ("Cannot be applied: intervalH must be a whole number ≥ 1 and ≤ 8760, got 1.5 "
                                 "(nanobot refuses to start on it: it takes a whole number ≥ 1)")
    win.close()


def _nanobot_save(home):
    """nanobot 0.3.5's own config save keeps only the dream keys its schema knows."""
    cfg = home / "config.json"
    raw = json.loads(cfg.read_text())
    dream = raw["agents"]["defaults"]["dream"]
    for k in list(dream):
        if k not in ("enabled", "intervalH", "cron", "modelOverride"):
            del dream[k]
    cfg.write_text(json.dumps(raw, indent=2))


def test_settings_the_assistant_dropped_are_shown_and_reapplied_only_on_the_click(gui_env, qtbot, demo_home):
    from conftest import open_window
    from dreamdesk.engine.home import config as config_mod
    ws = Workspace.open(demo_home)
    config_mod.write_settings(ws, {"memoryBudgetChars": 2500})
    config_mod.write_settings(ws, {"passes.deduction": False})
    _nanobot_save(demo_home)
    before = (demo_home / "config.json").read_bytes()
    win = open_window(qtbot, demo_home)
    dash = win.dashboard
    qtbot.waitUntil(lambda: dash.lost_box.isVisible(), timeout=5000)
    text = dash.lost_text.text()
    assert "agents.defaults.dream.memoryBudgetChars = 2500  (now the default 3000)" in text
    assert "agents.defaults.dream.passes.deduction = false  (now the default true)" in text
    assert any("memoryBudgetChars = 2500, which Dreamdesk wrote, is gone" in dash.problems.item(i).text()
               for i in range(dash.problems.count()))
    assert win.settings.budget_spins["memoryBudgetChars"].value() == 3000   # the default is what is in force
    jobs_done(qtbot, win.engine)                                           # opening has done all it does
    counters_shown(qtbot, win)
    grab(win, "dashboard-lost-settings.png")
    assert (demo_home / "config.json").read_bytes() == before             # opening re-applied nothing
    dash.reapply.click()
    qtbot.waitUntil(lambda: _dream_cfg(demo_home).get("memoryBudgetChars") == 2500, timeout=5000)
    assert _dream_cfg(demo_home)["passes"] == {"deduction": False}
    assert "channels" in json.loads((demo_home / "config.json").read_text())   # the rest kept
    qtbot.waitUntil(lambda: not dash.lost_box.isVisible(), timeout=5000)
    qtbot.waitUntil(lambda: win.settings.budget_spins["memoryBudgetChars"].value() == 2500, timeout=5000)
    win.close()


def test_forget_hides_the_lost_settings_and_touches_no_config(gui_env, qtbot, demo_home):
    from conftest import open_window
    from dreamdesk.engine.home import config as config_mod
    ws = Workspace.open(demo_home)
    config_mod.write_settings(ws, {"cooldownH": 3})
    _nanobot_save(demo_home)
    before = (demo_home / "config.json").read_bytes()
    win = open_window(qtbot, demo_home)
    qtbot.waitUntil(lambda: win.dashboard.lost_box.isVisible(), timeout=5000)
    win.dashboard.forget.click()
    qtbot.waitUntil(lambda: not win.dashboard.lost_box.isVisible(), timeout=5000)
    assert (demo_home / "config.json").read_bytes() == before
    assert config_mod.remembered(ws.root) == {}
    win.close()


def test_a_reapply_the_file_refuses_is_said_on_the_dashboard(gui_env, qtbot, demo_home):
    from conftest import open_window
    from dreamdesk.engine.home import config as config_mod
    ws = Workspace.open(demo_home)
    config_mod.write_settings(ws, {"memoryBudgetChars": 2500})
    _nanobot_save(demo_home)
    win = open_window(qtbot, demo_home)
    qtbot.waitUntil(lambda: win.dashboard.lost_box.isVisible(), timeout=5000)
    raw = json.loads((demo_home / "config.json").read_text())
    raw["agents"]["defaults"]["dream"] = "off"                # changed under the window
    (demo_home / "config.json").write_text(json.dumps(raw))
    before = (demo_home / "config.json").read_bytes()
    win.dashboard.reapply.click()
    qtbot.waitUntil(lambda: "Not re-applied" in win.dashboard.lost_error.text(), timeout=5000)
    assert "dream is not an object" in win.dashboard.lost_error.text()
    assert (demo_home / "config.json").read_bytes() == before
    win.close()


@pytest.mark.parametrize("old_version", [False, True])
def test_a_splitter_never_shown_is_not_restored_squeezed(gui_env, qtbot, demo_home, old_version):
    """Issue 17.2: a start where the Prompt tab was never shown saved that splitter unlaid-out;
    the next start restored it and the parts table shrank to about a row and a half."""
    from conftest import open_window
    from dreamdesk.gui.window.main_window import MainWindow

    from dreamdesk.gui.app import settings_store
    win = open_window(qtbot, demo_home)          # the Dashboard only: Prompt is never shown
    size = win.size()
    unlaid = win.prompt.splitter.saveState()
    win.close()
    if old_version:                              # what earlier versions saved for it
        settings_store.settings().setValue("splitters/prompt", unlaid)
    again = MainWindow()
    qtbot.addWidget(again)
    again.resize(size)
    again.show()
    qtbot.waitExposed(again)
    assert again.open_workspace(str(demo_home))
    qtbot.waitUntil(lambda: again.state is not None, timeout=10000)
    again.tabs.setCurrentWidget(again.prompt)
    QApplication.processEvents()                 # the layout a tab shown for the first time posts
    table, rows = again.prompt.table, again.prompt.table.verticalHeader().defaultSectionSize()
    assert table.height() >= 3 * rows, (table.height(), again.prompt.splitter.sizes())
    again.close()


def test_a_file_without_a_budget_shows_no_bar_length(qtbot):
    """Issue 17.8: the grey bar of a file without a budget had a length that meant nothing (its
    size over 10,000). Now the track carries no length: two sizes paint the same bar area, while a
    budgeted file's bar still grows with its size."""
    from dreamdesk.gui.widgets.gauge import Gauge

    def bar_area(chars: int, budget: int, state: str):
        g = Gauge("skills/x/SKILL.md")
        qtbot.addWidget(g)
        g.resize(400, g.sizeHint().height())
        g.set_value(chars, budget, state)
        image = g.grab().toImage()
        top = g.fontMetrics().height() + 6
        return image.copy(0, top, image.width(), image.height() - top), g.toolTip()

    small, tip = bar_area(1_000, 0, "unbudgeted")
    large, _ = bar_area(9_000, 0, "unbudgeted")
    assert small == large and "1,000 characters" in tip
    assert bar_area(1_000, 3_000, "ok")[0] != bar_area(2_000, 3_000, "ok")[0]


def test_the_window_title_names_dreamdesk_once(main_window, demo_home, qapp):
    """Issue 17.7: the title was "Dreamdesk — PATH", to which the window system adds the
    application's display name again ("… — Dreamdesk")."""
    from PySide6.QtGui import QGuiApplication
    assert main_window.windowTitle() == str(demo_home / "workspace")
    assert "Dreamdesk" not in main_window.windowTitle()
    assert QGuiApplication.applicationDisplayName()     # what the platform appends


def test_the_editor_wraps_lines_longer_than_it_and_keeps_lines_that_fit_whole(main_window, qtbot):
    """Issue 25.6 (which replaces the rule of 17.7): a hand-wrapped file was shown unwrapped, so
    at 1280×720 every line over ~90 characters ran out of sight behind a horizontal scroll bar.
    Nothing is cut off now: a line longer than the editor wraps to its width; where the editor is
    wide enough, each line stays one line (nothing is re-wrapped into ragged tails)."""
    win = main_window
    ed = win.files.editor

    def visual_lines() -> list[int]:
        doc, out = ed.document(), []
        block = doc.begin()
        while block.isValid():
            out.append(block.layout().lineCount())
            block = block.next()
        return out

    win.resize(1900, 800)
    _open_user_md(win, qtbot)
    text = (win.ws.root / "USER.md").read_text(encoding="utf-8")
    longest = max(map(len, text.split("\n")))
    columns = lambda: ed.viewport().width() // ed.fontMetrics().horizontalAdvance("x")   # noqa: E731
    qtbot.waitUntil(lambda: columns() > longest, timeout=5000)
    qtbot.waitUntil(lambda: set(visual_lines()) == {1}, timeout=5000)          # wide: line for line
    win.resize(900, 700)
    qtbot.waitUntil(lambda: columns() < longest, timeout=5000)                 # narrower than its lines
    qtbot.waitUntil(lambda: max(visual_lines()) > 1, timeout=5000)
    assert not ed.horizontalScrollBar().isVisible()


def test_quitting_while_a_job_writes_asks_first(main_window, qtbot):
    """Issue 17.7: File → Quit closed the window while a job was writing, without asking."""
    import threading
    win, asked, ended = main_window, [], threading.Event()

    def dream(ctx):          # stands for a Dream run: it ends when cancelled (bounded whatever happens)
        ctx.cancel.wait(10)
        ended.set()

    from dreamdesk.gui.context.job_names import WATCH_JOB
    job = win.engine.write("dream", dream, lambda result: None)
    win.engine.write(f"{WATCH_JOB}commits", lambda ctx: ctx.cancel.wait(10), lambda result: None, bookkeeping=True)
    assert win.engine.busy
    win.confirm_quit_while_busy = lambda jobs: asked.append(jobs) or False
    win.close()
    # the watch's bookkeeping is not the user's job: only the Dream is named
    assert asked == [["dream"]] and win.isVisible() and not job.cancel.is_set()      # No: nothing happens
    win.confirm_quit_while_busy = lambda jobs: True
    win.close()
    assert not win.isVisible() and job.cancel.is_set() and ended.wait(5)           # Yes: cancelled, then closed


def test_a_long_status_message_stops_before_the_counters(main_window, qtbot):
    """Issue 17.7: status-bar messages ran under the counters on the right."""
    win = main_window
    qtbot.waitUntil(lambda: win.status_label.text() != "", timeout=5000)
    text = "Dry run (nothing written): " + ", ".join(f"skills/skill-{i}/SKILL.md" for i in range(40))
    win.show_message(text)
    bar = win.statusBar()
    shown = bar.currentMessage()
    assert shown != text and shown.endswith("…") and text.startswith(shown[:-1])
    assert bar.fontMetrics().horizontalAdvance(shown) < win.status_label.x()      # ends before the counters
    assert bar.toolTip() == text                                                   # the whole of it
    win.show_message("Saved USER.md")
    assert bar.currentMessage() == "Saved USER.md" and bar.toolTip() == ""


def test_a_finished_write_is_reported_at_once_and_a_burst_is_gathered(qtbot, tmp_path, monkeypatch):
    """A write that is complete (closed after writing, or renamed into place) is said without
    waiting out the debounce; the events of a write still under way wait for it. The debounce is
    ten minutes and the watcher's clock is the test's: only "at once" can be seen here."""
    from types import SimpleNamespace

    from dreamdesk.gui.context import watcher as watcher_mod
    clock = [10_000.0]
    monkeypatch.setattr(watcher_mod, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    watcher = watcher_mod.WorkspaceWatcher(ws, debounce_ms=600_000)
    seen: list[set] = []
    watcher.changed.connect(seen.append)
    with qtbot.waitSignal(watcher.started, timeout=5000):    # and its first look is done
        watcher.start()
    try:
        (ws / "USER.md").write_text("# U\n")                  # opened, written, closed: complete
        qtbot.waitUntil(lambda: any("USER.md" in s for s in seen), timeout=5000)
        clock[0] += 601
        seen.clear()
        with (ws / "memory" / "MEMORY.md").open("w") as f:    # still open: not complete yet
            f.write("# M\n")
            f.flush()
            qtbot.waitUntil(lambda: "memory/MEMORY.md" in watcher._pending, timeout=5000)   # in hand...
            assert seen == []                                                              # ...not said
        qtbot.waitUntil(lambda: any("memory/MEMORY.md" in s for s in seen), timeout=5000)   # closed now
    finally:
        watcher.stop()
