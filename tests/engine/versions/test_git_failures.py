"""A git failure is reported clearly and never loses working files. Dream refuses, writing
nothing, when its snapshot fails (it could not be undone as a whole); only on a machine with no
git at all does it run without one (the spec's best effort: the archive still holds)."""

import json
from contextlib import ExitStack
from pathlib import Path

import pytest

from dreamdesk.engine.dream.run import DreamOptions, run_dream
from dreamdesk.engine.recovery.edits import save_edit
from dreamdesk.engine.disk.files import current_hash
from dreamdesk.engine.llm.replay import ReplayClient
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.versions.snapshots import SnapshotError, SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

from conftest import tree_state
from helpers.lock_holder import holding


@pytest.fixture
def ws(make_workspace, tmp_path):
    root = make_workspace({"USER.md": "# User\n\n- Likes tea\n", "SOUL.md": "# Soul\n",
                           "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00",
                                                               "content": "- [durable] Likes green tea"}) + "\n"})
    w = Workspace.open(root)
    SnapshotStore(w).snapshot("init: first")
    return w


def replay(tmp_path, *turns):
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(json.dumps(t) for t in turns) + "\n")
    return ReplayClient(p)


@pytest.fixture
def stack():
    with ExitStack() as s:
        yield s


def break_git(ws, how, monkeypatch, tmp_path, stack):
    if how == "locked index":                   # a git at work: a live process holds it
        (ws.root / ".git" / "index.lock").write_text("")
        stack.enter_context(holding(ws.root / ".git" / "index.lock"))
    elif how == "corrupt repository":
        (ws.root / ".git" / "HEAD").write_text("garbage\n")
        for p in (ws.root / ".git" / "objects").rglob("*"):
            if p.is_file():
                p.write_bytes(b"not an object")
    elif how == "no git binary":
        empty = tmp_path / "empty-bin"
        empty.mkdir()
        monkeypatch.setenv("PATH", str(empty))


@pytest.mark.parametrize("how,needle", [("locked index", "index.lock"), ("corrupt repository", "git"),
                                        ("no git binary", "git is not installed")])
def test_failure_is_reported_and_files_survive(ws, how, needle, monkeypatch, tmp_path, stack):
    before = (ws.root / "USER.md").read_bytes()
    break_git(ws, how, monkeypatch, tmp_path, stack)
    (ws.root / "USER.md").write_text("# User\n\n- Likes coffee\n")
    with pytest.raises(SnapshotError) as info:
        SnapshotStore(ws).snapshot("edit: USER.md")
    assert needle in str(info.value) and "Traceback" not in str(info.value)
    assert (ws.root / "USER.md").read_text() == "# User\n\n- Likes coffee\n"     # untouched by the failure
    assert before != (ws.root / "USER.md").read_bytes()


def _remove_tea(tmp_path):
    return replay(tmp_path, {"pass": "consolidation", "tool_calls": [{"name": "remove_fact", "arguments": {
        "path": "USER.md", "text": "- Likes tea", "replacement": "Likes green tea", "sources": [1]}}]},
        {"content": "done"})


def test_without_git_dream_still_runs_and_records_why_there_is_no_snapshot(ws, monkeypatch, tmp_path, stack):
    break_git(ws, "no git binary", monkeypatch, tmp_path, stack)
    res = run_dream(ws, _remove_tea(tmp_path), DreamOptions(passes={"deduction": False, "induction": False}))
    assert res.status == "completed" and res.cursor_after == 1
    assert "- Likes green tea" in (ws.root / "USER.md").read_text()
    assert res.record["snapshot_error"]                      # said, not hidden
    assert "No snapshot was taken before the run" in res.outcome
    arc = list((ws.memory_dir / "archive").glob("*.jsonl"))
    assert arc and "- Likes tea" in arc[0].read_text()       # the archive is the net that still holds


@pytest.mark.parametrize("how", ["locked index", "corrupt repository"])
def test_dream_whose_snapshot_fails_writes_nothing_and_says_why(ws, how, monkeypatch, tmp_path, stack):
    break_git(ws, how, monkeypatch, tmp_path, stack)
    before = tree_state(ws.root)
    with pytest.raises(WorkspaceError) as info:
        run_dream(ws, _remove_tea(tmp_path), DreamOptions(passes={"deduction": False, "induction": False}))
    said = str(info.value)
    assert said.startswith("Dream did not run: the snapshot taken before every run failed")
    assert "Nothing was written" in said and ("held by process" in said if how == "locked index" else "git" in said)
    assert tree_state(ws.root) == before                     # no record, no archive, no cursor, no file


def test_applying_a_dry_run_whose_snapshot_fails_writes_nothing(ws, monkeypatch, tmp_path, stack):
    from dreamdesk.engine.dream.run import apply_preview
    res = run_dream(ws, _remove_tea(tmp_path), DreamOptions(dry_run=True, passes={"deduction": False,
                                                                                  "induction": False}))
    assert res.preview["files"]
    break_git(ws, "locked index", monkeypatch, tmp_path, stack)
    before = tree_state(ws.root)
    with pytest.raises(WorkspaceError, match="The dry run was not applied: the snapshot taken before"):
        apply_preview(ws, res.preview)
    assert tree_state(ws.root) == before


def test_an_edit_lands_with_a_warning_when_git_fails(ws, monkeypatch, tmp_path, stack):
    break_git(ws, "locked index", monkeypatch, tmp_path, stack)
    res = save_edit(ws, "USER.md", "# User\n", current_hash(ws.root / "USER.md"))
    assert (ws.root / "USER.md").read_text() == "# User\n"
    assert res.warnings and "snapshot" in res.warnings[0]
    assert res.archived and res.archived[0].text == "- Likes tea"


def test_without_git_a_fresh_process_gets_one_clear_line(ws, tmp_path):
    """gitpython's import fails without git, with a 20-line notice; the user sees one line."""
    import os
    import subprocess
    import sys
    empty = tmp_path / "empty-path"
    empty.mkdir()
    code = ("import sys; from dreamdesk.engine.versions.snapshots import SnapshotStore, SnapshotError; from dreamdesk.engine.home.workspace import Workspace\n"
            "try:\n    SnapshotStore(Workspace.open(sys.argv[1])).snapshot('edit: x')\n"
            "except SnapshotError as e:\n    print('ERR', e)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(PATH=str(empty), PYTHONPATH=str(Path(__file__).parents[3]))
    proc = subprocess.run([sys.executable, "-c", code, str(ws.root)], capture_output=True, text=True, env=env,
                          timeout=60)
    assert proc.stdout.strip() == "ERR git is not installed (snapshots need the git program)", proc.stdout + proc.stderr
