import json
import os

import pytest

from conftest import tree_state
from dreamdesk.engine.home.budgets import budget_state, measure
from dreamdesk.engine.disk.files import MISSING_HASH
from dreamdesk.engine.core.problems import ConflictError, UnsafePathError, WorkspaceError
from dreamdesk.engine.overview.status import read_status
from dreamdesk.engine.home.workspace import Workspace


def test_open_workspace_folder(make_workspace):
    root = make_workspace({"SOUL.md": "s"})
    ws = Workspace.open(root)
    assert ws.root == root and ws.home is None and ws.config_path is None


def test_open_home_finds_workspace_and_config(tmp_path, make_workspace):
    home = tmp_path / "home"
    root = make_workspace({"USER.md": "u"}, root=home / "workspace")
    (home / "config.json").write_text("{}")
    for path in (home, root):
        ws = Workspace.open(path)
        assert ws.root == root and ws.home == home and ws.config_path == home / "config.json"
        assert ws.config_display == "../config.json"


def test_config_in_workspace_wins(tmp_path, make_workspace):
    home = tmp_path / "home"
    root = make_workspace({"USER.md": "u", "config.json": "{}"}, root=home / "workspace")
    (home / "config.json").write_text("{}")
    assert Workspace.open(home).config_path == root / "config.json"


@pytest.mark.parametrize("setup,needle", [
    ("missing", "no such folder"),
    ("file", "not a folder"),
    ("empty", "does not look like an assistant workspace"),
])
def test_open_bad_paths(tmp_path, setup, needle):
    p = tmp_path / "x"
    if setup == "file":
        p.write_text("hi")
    elif setup == "empty":
        p.mkdir()
    with pytest.raises(WorkspaceError, match=needle):
        Workspace.open(p)


def test_memory_files_include_skills(make_workspace):
    root = make_workspace({"SOUL.md": "s", "skills/b/SKILL.md": "b", "skills/a/SKILL.md": "a",
                           "skills/notes/README.md": "no skill file", "skills/.hidden/SKILL.md": "h"})
    ws = Workspace.open(root)
    assert [f.path for f in ws.memory_files()] == ["SOUL.md", "USER.md", "memory/MEMORY.md",
                                                   "skills/a/SKILL.md", "skills/b/SKILL.md"]


@pytest.mark.parametrize("chars,budget,state", [
    (0, 0, "unbudgeted"), (5000, 0, "unbudgeted"), (2699, 3000, "ok"), (2700, 3000, "near"),
    (3000, 3000, "near"), (3001, 3000, "over"), (0, 10, "ok"),
])
def test_budget_state(chars, budget, state):
    assert budget_state(chars, budget) == state


def test_measure_counts_characters_not_bytes(make_workspace):
    text = "é" * 2800 + "€" * 50     # 2,850 characters, 5,750 bytes
    root = make_workspace({"memory/MEMORY.md": text, "USER.md": "x" * 3100, "SOUL.md": "s" * 10,
                           "skills/w/SKILL.md": "k" * 99})
    ws = Workspace.open(root)
    sizes = {f.path: f for f in measure(ws, ws.config())[0]}
    assert sizes["memory/MEMORY.md"].chars == 2850 and sizes["memory/MEMORY.md"].state == "near"
    assert sizes["USER.md"].state == "over" and sizes["USER.md"].fraction == pytest.approx(3100 / 3000)
    assert sizes["SOUL.md"].state == "unbudgeted" and sizes["SOUL.md"].fraction is None
    assert sizes["skills/w/SKILL.md"].chars == 99 and sizes["skills/w/SKILL.md"].budget == 0


def test_missing_and_bad_utf8_files_are_reported(make_workspace):
    root = make_workspace({"SOUL.md": b"ok \xff\xfe broken"})
    st = read_status(Workspace.open(root))
    msgs = {(p.file, p.severity): p.message for p in st.problems}
    assert "not valid UTF-8" in msgs[("SOUL.md", "warning")]
    assert msgs[("USER.md", "info")] == "missing"
    soul = next(f for f in st.files if f.path == "SOUL.md")
    assert soul.chars == len("ok \ufffd\ufffd broken")


def test_symlink_outside_is_reported_and_never_written(tmp_path, make_workspace):
    outside = tmp_path / "outside.md"
    outside.write_text("secret notes")
    root = make_workspace({"SOUL.md": "s"})
    os.symlink(outside, root / "USER.md")
    ws = Workspace.open(root)
    st = read_status(ws)
    probs = [p for p in st.problems if p.file == "USER.md"]
    assert probs and "symlink leading outside the workspace" in probs[0].message
    state, _ = ws.read_file("USER.md")
    with pytest.raises(UnsafePathError):
        ws.write_file("USER.md", "overwritten", state.hash)
    assert outside.read_text() == "secret notes"


def test_write_file_is_hash_checked(make_workspace):
    root = make_workspace({"USER.md": "one"})
    ws = Workspace.open(root)
    state, _ = ws.read_file("USER.md")
    (root / "USER.md").write_text("changed by the assistant")
    with pytest.raises(ConflictError):
        ws.write_file("USER.md", "mine", state.hash)
    assert (root / "USER.md").read_text() == "changed by the assistant"
    fresh, _ = ws.read_file("USER.md")
    ws.write_file("USER.md", "mine", fresh.hash)
    assert (root / "USER.md").read_text() == "mine"
    ws.write_file("memory/MEMORY.md", "new file", MISSING_HASH)
    assert (root / "memory/MEMORY.md").read_text() == "new file"


def test_status_cursor_consistency_problems(make_workspace):
    hist = "".join(json.dumps({"cursor": c, "timestamp": "2026-01-01 00:00", "content": "x"}) + "\n"
                   for c in (1, 2, 3))
    root = make_workspace({"memory/history.jsonl": hist, "memory/.cursor": "1", "memory/.dream_cursor": "9"})
    st = read_status(Workspace.open(root))
    text = [str(p) for p in st.problems]
    assert any("memory/.cursor: is 1, behind the last history cursor 3" in t for t in text)
    assert any("memory/.dream_cursor: is 9, past the last history cursor 3" in t for t in text)
    assert st.pending == 0 and len(st.history.entries) == 3


def test_opening_writes_nothing(demo_home):
    before = tree_state(demo_home)
    ws = Workspace.open(demo_home)
    st = read_status(ws)
    assert st.files and st.history.entries
    from dreamdesk.engine.assistants.prompt import build_prompt
    build_prompt(ws, st.history, st.dream_cursor)
    ws.config().providers()
    assert tree_state(demo_home) == before


def test_percent_label_never_reads_past_the_state():
    from dreamdesk.engine.home.budgets import budget_state, percent_label
    assert percent_label(2687, 3000) == "89%" and budget_state(2687, 3000) == "ok"      # 89.57 %: not "90%"
    assert percent_label(2700, 3000) == "90%" and budget_state(2700, 3000) == "near"
    assert percent_label(3000, 3000) == "100%" and budget_state(3000, 3000) == "near"
    assert percent_label(3001, 3000) == "101%" and budget_state(3001, 3000) == "over"   # 100.03 %: not "100%"
    assert percent_label(5, 0) == ""
    for chars in range(0, 3200, 7):                                                      # the two always agree
        pct = int(percent_label(chars, 3000)[:-1])
        assert (pct >= 90) == (budget_state(chars, 3000) != "ok") and (pct > 100) == (chars > 3000)


def test_a_skill_folder_without_skill_md_is_reported(make_workspace):
    from dreamdesk.engine.overview.status import read_status
    root = make_workspace({"SOUL.md": "# S\n", "skills/good/SKILL.md": "# Good\n", "skills/draft/notes.md": "x\n"})
    st = read_status(Workspace.open(root))
    assert [(p.file, p.severity) for p in st.problems if p.file.startswith("skills/")] == [("skills/draft", "info")]
    assert [f.path for f in st.files if f.kind == "skill"] == ["skills/good/SKILL.md"]
