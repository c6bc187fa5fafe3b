"""gui/operations (issue 27): each user operation has one wrapper that runs the engine's operation
on the writer lane and says its success (the operation's message, in a real status bar) and its
failure (that line, and a dialog where the operation asks for one) exactly once; what it wrote is
the window's change record; and no view calls JobLanes.write itself any more."""

from __future__ import annotations

import ast
import json
from datetime import date

import pytest

from conftest import REPO
from helpers.gui_waits import jobs_done
from dreamdesk.engine.disk.changes import relative_changes
from dreamdesk.engine.core.state import workspace_state_dir
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.lint.memory_lint import lint
from dreamdesk.engine.llm import LLMError
from dreamdesk.engine.llm.resolve import Overrides, resolve_model
from dreamdesk.engine.ops import edit as edit_op, pin as pin_op
from dreamdesk.engine.ops.result import CLI
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.recovery.restore import plan_undo, recent_restores
from dreamdesk.engine.recovery.watch import since_last_looked, remember_looked
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.gui.operations import (archive_delete, archive_restore, compact, dream, dry_run, edit, lint_fix, pin,
                                      restore, settings, undo_restore, watch)
from dreamdesk.gui.operations.run import Initiator, run_op
from helpers.llm_server import turn

USER = "# User\n\n## Identity\n- Name: Maya\n- Lives in Porto\n\n## Plans\n- Dentist on 3 Nov 2026\n"


@pytest.fixture
def ws(make_workspace) -> Workspace:
    return Workspace.open(make_workspace({
        "SOUL.md": "# Soul\n\n- Be brief.\n", "USER.md": USER, "memory/MEMORY.md": "# Memory\n",
        "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00", "content": "- hi",
                                            "session_key": "x"}) + "\n",
        "memory/.cursor": "1", "memory/.dream_cursor": "0", "config.json": "{}\n"}))


class Said:
    """A real status bar, every line said to it (the same line twice is two), and every message
    box shown (recorded as shown; none blocks)."""

    def __init__(self, bar):
        self.bar, self.lines, self.boxes = bar, [], []

    def show(self, text: str) -> None:
        self.lines.append(text)
        self.bar.showMessage(text)


@pytest.fixture
def said(gui_env, qtbot, qapp, monkeypatch) -> Said:
    from PySide6.QtWidgets import QMessageBox, QStatusBar
    bar = QStatusBar()
    qtbot.addWidget(bar)
    bar.show()
    out = Said(bar)
    monkeypatch.setattr(QMessageBox, "exec", lambda box: out.boxes.append((box.windowTitle(), box.text()))
                        or int(QMessageBox.StandardButton.Cancel))
    monkeypatch.setattr(qapp, "dreamdesk_quiet_errors", False)       # report_error shows its real dialog
    return out


def _run(qtbot, gui_engine, said: Said, start) -> None:
    start(Initiator(gui_engine, "test", said.show))
    jobs_done(qtbot, gui_engine)


# -- what each case needs ---------------------------------------------------------------------------
def _snapshot(ws) -> str:
    store = SnapshotStore(ws)
    v1 = store.snapshot("init: test")
    (ws.root / "USER.md").write_text(USER + "- Runs marathons\n")
    return v1


def _archived(ws) -> dict[str, str]:
    state, _ = ws.read_file("USER.md")
    edit_op.save(ws, "USER.md", "# User\n\n## Identity\n- Name: Maya\n", state.hash, CLI)
    return {r.text: r.id for r in read_archive(ws).records}


def _pinned_gone(ws) -> str:
    p = pin_op.pin(ws, "USER.md", CLI, text="Lives in Porto").value[0]
    (ws.root / "USER.md").write_text(USER.replace("- Lives in Porto\n", ""))
    return p.id


def _undo_plan(ws):
    v1 = _snapshot(ws)
    from dreamdesk.engine.ops.restore import restore as restore_op
    restore_op(ws, v1, CLI, path="USER.md")
    return plan_undo(ws, recent_restores(ws)[0].id)


def _scripted(llm_server, ws):
    srv = llm_server(default=turn(content="nothing to add"))
    return lambda: resolve_model(ws.config(), Overrides(provider="custom", base_url=srv.url, model="m"), ws.root)


def _no_model():
    raise LLMError("no model is set")


def _since(ws):
    remember_looked(ws)
    (ws.root / "USER.md").write_text(USER.replace("- Lives in Porto\n", ""))
    shown = since_last_looked(ws)
    return shown, shown.files[[f.file for f in shown.files].index("USER.md")].removed[0]


# Each case: (name, start(by, ws, context) -> a wrapper called, the status line it starts with,
# the dialog title it shows or None). `context` gives a case what it set up.
SUCCESS = [
    ("pin", lambda by, ws, c: pin.pin_entry(by, ws, "USER.md", 5), "Pinned in USER.md: - Lives in Porto"),
    ("unpin", lambda by, ws, c: (pin_op.pin(ws, "USER.md", CLI, line=5), pin.unpin_entry(by, ws, "USER.md",
                                                                                     "- Lives in Porto")),
     "Unpinned in USER.md: - Lives in Porto"),
    ("unpin by id", lambda by, ws, c: pin.unpin_id(by, ws, pin_op.pin(ws, "USER.md", CLI, line=5).value[0].id),
     "Unpinned in USER.md"),
    ("restore pinned", lambda by, ws, c: pin.restore_pinned(by, ws, _pinned_gone(ws)),
     "Restored the pinned entry into USER.md; Ctrl+Alt+Z undoes it"),
    ("save", lambda by, ws, c: edit.save_edit(by, ws, "USER.md", USER + "- Mine\n", ws.read_file("USER.md")[0].hash),
     "Saved USER.md"),
    ("restore", lambda by, ws, c: restore.restore_snapshot(by, ws, _snapshot(ws), path="USER.md"), "Restored USER.md from"),
    ("undo", lambda by, ws, c: undo_restore.undo(by, ws, _undo_plan(ws)), "Undid the last restore: USER.md"),
    ("archive restore", lambda by, ws, c: archive_restore.restore_entries(by, ws, [_archived(ws)["- Lives in Porto"]], []),
     "Restored 1 entry to USER.md (Undo restore, or Ctrl+Alt+Z, takes it back)"),
    ("runs restore", lambda by, ws, c: archive_restore.restore_entry(by, ws, _archived(ws)["- Lives in Porto"]),
     "Restored a-"),
    ("since restore", lambda by, ws, c: archive_restore.restore_removed(by, ws, "USER.md", _since(ws)[1]),
     "Restored into USER.md"),
    ("archive delete", lambda by, ws, c: archive_delete.delete_entries(by, ws, [_archived(ws)["- Lives in Porto"]]),
     "Deleted 1 archived entry"),
    ("lint fix", lambda by, ws, c: lint_fix.fix_finding(by, ws, next(f for f in lint(ws, date(2026, 12, 2))
                                                                     if f.kind == "past-date")),
     "Fixed: "),
    ("settings", lambda by, ws, c: settings.set_settings(by, ws, {"intervalH": 4}, False), "intervalH = 4 written to"),
    ("re-apply", lambda by, ws, c: settings.reapply(by, ws), "Nothing to re-apply"),
    ("forget", lambda by, ws, c: settings.forget(by, ws, []), "Nothing to forget."),
    ("ceiling", lambda by, ws, c: settings.set_ceiling(by, ws, 50_000), "Each of Dreamdesk's Dream runs here now stops"),
    ("scope", lambda by, ws, c: settings.change_scope(by, ws, "USER.md", False), "Dreamdesk's Dream may no longer write"),
    ("prompt", lambda by, ws, c: settings.set_pass_prompt(by, ws, "deduction", "Find what follows."), "Saved: the "),
    ("dream", lambda by, ws, c: dream.run_dream(by, ws, _scripted(c, ws), "Dream"), "Dream "),
    ("compact", lambda by, ws, c: compact.compact(by, Workspace.open(c), _no_model),
     "Nothing to compact"),
    ("watch off", lambda by, ws, c: watch.watch_off(by, ws), "The watch is off"),
    ("got it", lambda by, ws, c: watch.got_it(by, ws, _since(ws)[0]), None),
]
FAILURE = [
    ("pin", lambda by, ws, c: pin.pin_entry(by, ws, "USER.md", 3), "Not pinned: line 3 of USER.md is a heading",
     "Not pinned"),
    ("unpin", lambda by, ws, c: pin.unpin_entry(by, ws, "USER.md", "- Lives in Porto"), "Not unpinned: ", "Not unpinned"),
    ("unpin by id", lambda by, ws, c: pin.unpin_id(by, ws, "p-nope"), "Not unpinned: no pin with id p-nope", None),
    ("restore pinned", lambda by, ws, c: pin.restore_pinned(by, ws, "p-nope"), "Not restored: no pin with id", None),
    ("save", lambda by, ws, c: edit.save_edit(by, ws, "notes.txt", "x", "missing"),
     "Not saved: notes.txt: not a memory file", "notes.txt was not saved"),
    ("restore", lambda by, ws, c: restore.restore_snapshot(by, ws, "0123456789"), "Restore failed: ", "Restore failed"),
    ("undo", lambda by, ws, c: (lambda plan: ((ws.root / "USER.md").write_text(USER + "- Later\n"),
                                              undo_restore.undo(by, ws, plan)))(_undo_plan(ws)),
     "Undo failed: USER.md changed since that restore", "Undo failed"),
    ("archive restore", lambda by, ws, c: archive_restore.restore_entries(by, ws, ["a-x"] * 101, []),
     "Restore failed: 101 entries are selected", None),
    ("runs restore", lambda by, ws, c: archive_restore.restore_entry(by, ws, "a-nope"),
     "a-nope was not restored: no archive entry with id a-nope", None),
    ("archive delete", lambda by, ws, c: archive_delete.delete_entries(by, ws, ["a-nope"]),
     "Delete failed: no archive entry with id a-nope", None),
    ("settings", lambda by, ws, c: settings.set_settings(by, ws, {"intervalH": "soon"}, False),
     "Settings not written: ", None),
    ("re-apply", lambda by, ws, c: ((ws.root / "config.json").write_text("{oops"), settings.reapply(by, ws)),
     "Not re-applied: ", None),
    ("forget", lambda by, ws, c: settings.forget(by, ws, ["noSuchKey"]), "Not forgotten: unknown config key", None),
    ("ceiling", lambda by, ws, c: settings.set_ceiling(by, ws, 5), "Token ceiling not set: a token ceiling is", None),
    ("scope", lambda by, ws, c: settings.change_scope(by, ws, "AGENTS.md", False), "Dream's scope not changed: ", None),
    ("prompt", lambda by, ws, c: settings.set_pass_prompt(by, ws, "deduction", " "), "Not saved: the deduction pass needs",
     None),
    ("dream", lambda by, ws, c: dream.run_dream(by, ws, _no_model, "Dream"), "Dream failed: no model is set", None),
    ("compact", lambda by, ws, c: compact.compact(by, ws, _no_model), "Compact failed: ", None),
    ("dry-run apply", lambda by, ws, c: dry_run.apply_dry_run(by, ws, {"status": "failed"}),
     "Not applied: this dry run did not complete", None),
]


@pytest.mark.parametrize("name, start, line", SUCCESS, ids=[c[0] for c in SUCCESS])
def test_each_operation_says_its_success_once(qtbot, gui_engine, said, ws, request, name, start, line):
    context = {"dream": "llm_server", "compact": "demo_home"}.get(name)       # what the case needs besides ws
    context = request.getfixturevalue(context) if context else None
    _run(qtbot, gui_engine, said, lambda by: start(by, ws, context))
    if line is None:                    # ("Got it" has nothing to say: the box it answers empties)
        assert said.lines == [] and said.boxes == []
        return
    assert len(said.lines) == 1 and said.lines[0].startswith(line), said.lines
    assert said.bar.currentMessage() == said.lines[0] and said.boxes == []


@pytest.mark.parametrize("name, start, line, title", FAILURE, ids=[c[0] for c in FAILURE])
def test_each_operation_says_its_failure_once(qtbot, gui_engine, said, ws, name, start, line, title):
    _run(qtbot, gui_engine, said, lambda by: start(by, ws, None))
    assert len(said.lines) == 1 and said.lines[0].startswith(line), said.lines
    if title is None:
        assert said.boxes == []
    else:
        (shown_title, text), = said.boxes
        assert shown_title == title and said.lines[0].endswith(text)


def test_an_archive_restore_that_failed_for_one_entry_says_it_in_one_dialog(qtbot, gui_engine, said, ws):
    ids = _archived(ws)
    _run(qtbot, gui_engine, said,
         lambda by: archive_restore.restore_entries(by, ws, [ids["- Lives in Porto"], "a-nope"], []))
    assert len(said.lines) == 1 and said.lines[0].startswith("Restored 1 entry to USER.md. not restored: a-nope")
    assert said.boxes == [("Restore failed", "Not restored: a-nope: no archive entry with id a-nope")]


def test_a_bug_in_an_operation_is_never_silent_its_dialog_keeps_the_traceback(qtbot, gui_engine, said, monkeypatch):
    """A view's failure callback handles what it expects; a bug still gets the dialog any job's gets."""
    from PySide6.QtWidgets import QMessageBox
    details = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: details.append((box.windowTitle(), box.detailedText())) or 0)
    seen = []
    run_op(Initiator(gui_engine, "lint", said.show), "lint fix x", lambda ctx, who: 1 / 0, failure="Not fixed",
           failed=seen.append)
    jobs_done(qtbot, gui_engine)
    assert said.lines == ["Not fixed: division by zero"] and seen == ["division by zero"]
    (title, traceback), = details
    assert title == "lint fix x failed" and "ZeroDivisionError" in traceback


def test_the_initiator_reaches_the_engine(qtbot, gui_engine, said, ws):
    got = []
    by = Initiator(gui_engine, "files", said.show)
    pin.pin_entry(by, ws, "USER.md", 5, done=got.append)
    jobs_done(qtbot, gui_engine)
    assert [r.initiator for r in got] == ["files"]


def test_a_view_alone_is_refreshed_by_its_operation_and_in_the_window_by_the_record(qtbot, gui_engine, said, ws):
    refreshed = []
    for routed in (False, True):
        gui_engine.routed = routed
        run_op(Initiator(gui_engine, "files", said.show), "pin",
               lambda ctx, who: pin_op.pin(ws, "USER.md", who, line=5), failure="Not pinned",
               refresh=lambda routed=routed: refreshed.append(routed))
        jobs_done(qtbot, gui_engine)
    assert refreshed == [False]


def test_the_operations_record_is_the_change_record_the_window_routes(qtbot, gui_engine, said, ws):
    """One record for what a write changed: the lane's (routed by the window) and the result's."""
    wrote, got = [], []
    gui_engine.wrote.connect(wrote.append)
    by = Initiator(gui_engine, "archive", said.show)
    rid = _archived(ws)["- Lives in Porto"]
    archive_restore.restore_entries(by, ws, [rid], [rid], done=got.append)
    jobs_done(qtbot, gui_engine)
    (result,), (paths,) = got, wrote
    assert result.changes == relative_changes(paths, ws.root, ws.config_path, workspace_state_dir(ws.root))
    assert result.changes.files == frozenset({"USER.md"}) and result.changes.snapshots and result.changes.state


def test_a_failing_operation_is_reported_to_a_views_own_dialog(qtbot, gui_engine, said, ws):
    """A view whose dialogs tests replace (Snapshots) hands its own: that one is asked, not Qt's."""
    asked = []
    by = Initiator(gui_engine, "snapshots", said.show, lambda title, text: asked.append(title))
    restore.restore_snapshot(by, ws, "0123456789")
    jobs_done(qtbot, gui_engine)
    assert asked == ["Restore failed"] and said.boxes == []


# -- no view writes by itself ------------------------------------------------------------------------
ALLOWED_WRITERS: set[str] = set()       # view modules that may still call .write( (none: empty on purpose)


def _writes(path) -> list[int]:
    """Lines of `path` that call something's .write(...) (JobLanes.write: a job on the writer lane)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "write"]


def test_no_view_calls_engine_write_only_the_operations_do():
    views = {p.stem: _writes(p) for p in sorted((REPO / "gui" / "views").glob("*.py"))}
    assert {name: lines for name, lines in views.items() if lines and name not in ALLOWED_WRITERS} == {}
    ops = {p.stem: _writes(p) for p in sorted((REPO / "gui" / "operations").glob("*.py"))}
    assert {name for name, lines in ops.items() if lines} == {"run"}        # the one place that runs them


def test_the_check_above_sees_a_write(tmp_path):
    (tmp_path / "v.py").write_text("def f(self):\n    self.engine.write('x', job, done)\n")
    assert _writes(tmp_path / "v.py") == [2]
