"""The engine services the GUI calls instead of doing the work itself: the model this machine
runs Dream with, whether a recorded run starts with the review pass, "compact now" under the job
lock, and why a file is read-only, as a value."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import DEMO_HOME, tree_state
from dreamdesk.engine.jobs.consolidator import compact_now
from dreamdesk.engine.disk.files import FileLock, LockHeld
from dreamdesk.engine.llm import choose_model
from dreamdesk.engine.llm.machine import DEMO_REPLAY, MachineModel, choose_for_machine, machine_overrides
from dreamdesk.engine.llm.replay import forces_review, starts_with_review
from dreamdesk.engine.disk.read_only import ReadOnlyKind
from dreamdesk.engine.core.state import lock_path
from dreamdesk.engine.home.workspace import Workspace

CORE = {"SOUL.md": "I am Jenny.\n", "USER.md": "# User\n", "memory/MEMORY.md": "# Memory\n"}


@pytest.mark.parametrize("base_url, model, kind", [
    ("https://api.anthropic.com", "claude-sonnet-4", "anthropic"),
    ("https://api.anthropic.com/v1", "anthropic/claude-sonnet-4", "anthropic"),
    ("http://127.0.0.1:9/v1", "claude-sonnet-4", "openai"),      # a claude name on a local server
    ("https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4", "openai"),
])
def test_the_machine_setting_chooses_as_the_command_line_does(make_workspace, base_url, model, kind):
    ws = Workspace.open(make_workspace(CORE))
    gui, key = choose_for_machine(ws, MachineModel(True, base_url, model, "sk-machine"), None)
    cli, _ = choose_model(ws.config(), base_url=base_url, model=model, workspace=ws.root)
    assert gui.kind == cli.kind == kind
    assert (gui.base_url, gui.sent_model) == (cli.base_url, cli.sent_model)
    assert key == "sk-machine" and any("this machine's model setting" in r for r in gui.reasons)


def test_the_demo_plays_its_recorded_run_unless_this_machine_names_a_model(tmp_path):
    home = tmp_path / "demo"
    shutil.copytree(DEMO_HOME, home, symlinks=True)
    ws = Workspace.open(home)
    assert (home / DEMO_REPLAY).is_file()
    choice, _ = choose_for_machine(ws, MachineModel(), str(home))
    assert choice.kind == "replay" and choice.base_url == str(home / DEMO_REPLAY)
    # a setting that is off, or lacks a model, is no setting
    assert machine_overrides(ws, MachineModel(False, "http://127.0.0.1:9/v1", "m"), str(home)).replay
    assert machine_overrides(ws, MachineModel(True, "http://127.0.0.1:9/v1", ""), str(home)).replay
    on = machine_overrides(ws, MachineModel(True, "http://127.0.0.1:9/v1", "m"), str(home))
    assert (on.replay, on.model) == (None, "m")
    # another workspace is not the demo
    assert not machine_overrides(ws, MachineModel(), str(tmp_path / "elsewhere")).any
    assert machine_overrides(ws, MachineModel(), str(tmp_path / "elsewhere")).replay is None


@pytest.mark.parametrize("text, review", [
    ('// recorded\n\n{"pass": "review", "content": "x"}\n{"pass": "consolidation"}\n', True),
    ('{"pass": "consolidation"}\n{"pass": "review"}\n', False),
    ('{"content": "no pass named"}\n', False),
    ("", False),
    ('{"pass": "review"\n', False),                   # not JSON: the run itself says why
])
def test_a_replay_starts_with_review_only_when_its_first_turn_is_the_review_pass(tmp_path, text, review):
    path = tmp_path / "run.jsonl"
    path.write_text(text, encoding="utf-8")
    assert starts_with_review(path) is review
    choice, _ = choose_model(None, replay=str(path))
    assert forces_review(choice) is review


def test_a_missing_replay_does_not_force_review(tmp_path):
    assert starts_with_review(tmp_path / "gone.jsonl") is False


def test_compact_now_takes_the_job_lock(demo_home, brief_job_lock_wait):
    ws = Workspace.open(demo_home)
    before = tree_state(demo_home / "workspace" / "memory")
    held = FileLock(lock_path(ws.root, "job")).acquire()
    try:
        with pytest.raises(LockHeld):
            compact_now(ws, None)
        assert tree_state(demo_home / "workspace" / "memory") == before
    finally:
        held.release()
    compact_now(ws, None)
    FileLock(lock_path(ws.root, "job")).acquire().release()    # released when the pass ended


def test_why_a_file_is_read_only_is_a_value(make_workspace, tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Not here\n", encoding="utf-8")
    root = make_workspace({**CORE, "memory/MEMORY.md": b"# Memory\n\xff\xfe\n", "skills/x/SKILL.md": "s"})
    os.symlink(outside, root / "SOUL.md.link")
    os.replace(root / "SOUL.md.link", root / "SOUL.md")
    (root / "skills/folder/SKILL.md").mkdir(parents=True)
    ws = Workspace.open(root)
    why = {rel: ws.read_for_edit(rel)[2] for rel in
           ("USER.md", "SOUL.md", "memory/MEMORY.md", "skills/folder/SKILL.md", "skills/none/SKILL.md")}
    assert why["USER.md"] is None and why["skills/none/SKILL.md"] is None       # a missing file may be created
    assert why["SOUL.md"].kind is ReadOnlyKind.LINK_OUTSIDE and why["SOUL.md"].detail == str(outside)
    assert why["memory/MEMORY.md"].kind is ReadOnlyKind.NOT_UTF8 and "byte 9" in why["memory/MEMORY.md"].detail
    assert why["skills/folder/SKILL.md"].kind is ReadOnlyKind.FOLDER
    # read_file still reports the same problems
    assert [p.message for p in ws.read_file("skills/folder/SKILL.md")[1]] == ["is a folder, not a file"]
