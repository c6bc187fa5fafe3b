"""engine/core/rules.py, row by row: which paths are memory files (and that Dream, the listing, a pin
and a restore all follow that one rule), a size against its budget at each boundary (and the
Dream prompt saying the same state), a history entry's status, and how a cursor's text reads."""

from __future__ import annotations

import pytest

from dreamdesk.engine.core import rules
from dreamdesk.engine.dream.prompts import files_text
from dreamdesk.engine.dream.tools import ToolError, normalise_path
from dreamdesk.engine.home.workspace import Workspace

MEMORY_PATHS = [
    ("SOUL.md", True, "soul"),
    ("USER.md", True, "user"),
    ("memory/MEMORY.md", True, "memory"),
    ("skills/weekly-review/SKILL.md", True, "skill"),
    ("skills/My Notes/SKILL.md", True, "skill"),          # nanobot loads any folder holding SKILL.md
    ("skills/.hidden/SKILL.md", False, None),             # a dot folder is hidden
    ("skills/a/b/SKILL.md", False, None),                 # one folder deep only
    ("skills/x/README.md", False, None),
    ("skills/" + "n" * 129 + "/SKILL.md", False, None),   # a name is short enough for any disk
    ("memory/USER.md", False, None),
    ("AGENTS.md", False, None),
    ("config.json", False, None),
    ("memory/history.jsonl", False, None),
]


@pytest.mark.parametrize("path, memory, kind", MEMORY_PATHS)
def test_memory_path_rule(path, memory, kind):
    assert rules.is_memory_path(path) is memory
    if memory:
        assert rules.kind_of_memory_path(path) == kind


@pytest.mark.parametrize("path, memory, kind", [r for r in MEMORY_PATHS if r[0].startswith("skills/")])
def test_one_rule_for_a_skill_in_the_listing_and_in_dream(make_workspace, path, memory, kind):
    """The Files list, Dream's tools and a restore agree on what a skill is."""
    root = make_workspace({"SOUL.md": "s\n", "USER.md": "u\n", "memory/MEMORY.md": "m\n"})
    target = root / path
    if len(target.parent.name) < 128 or memory:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("---\nname: x\n---\n", encoding="utf-8")
    listed = [f.path for f in Workspace.open(root).memory_files()]
    assert (path in listed) is memory
    try:
        accepted = normalise_path(path) == path
    except ToolError as exc:
        assert "not a memory file" in str(exc)
        accepted = False
    assert accepted is memory


def test_listing_is_core_files_then_sorted_skills(make_workspace):
    root = make_workspace({"skills/b/SKILL.md": "b", "skills/a/SKILL.md": "a", "skills/empty/notes.md": "n",
                           "skills/.git/SKILL.md": "g"})
    assert rules.memory_paths(root) == ["SOUL.md", "USER.md", "memory/MEMORY.md",
                                        "skills/a/SKILL.md", "skills/b/SKILL.md"]


# budget 1,000: near from 900 (90%), still near AT the budget, over from 1,001
BUDGET_ROWS = [
    (0, 1000, "ok", ""),
    (899, 1000, "ok", ""),
    (900, 1000, "near", " — near its budget"),
    (1000, 1000, "near", " — near its budget"),
    (1001, 1000, "over", " — OVER BUDGET: free space before adding"),
    (5000, 0, "unbudgeted", " chars (no budget)"),
]


@pytest.mark.parametrize("chars, budget, state, prompt_says", BUDGET_ROWS)
def test_budget_boundaries_in_the_state_and_in_the_dream_prompt(chars, budget, state, prompt_says):
    assert rules.budget_state(chars, budget) == state
    label = files_text({"USER.md": "x" * chars}, {"USER.md": budget}).split("\n", 1)[0]
    assert label.endswith(prompt_says) if prompt_says else "—" not in label
    assert ("OVER BUDGET" in label) is (state == "over")


def test_every_core_file_has_a_budget_key_and_archived_files_are_core():
    assert set(rules.BUDGET_KEYS) == set(rules.CORE_FILES)
    assert set(rules.ARCHIVED_FILES) == {"USER.md", "memory/MEMORY.md"}


@pytest.mark.parametrize("cursor, status", [(3, "dreamed"), (5, "dreamed"), (6, "pending+prompt"), (7, "pending")])
def test_entry_status(cursor, status):
    assert rules.entry_status(cursor, 5, {6}) == status


@pytest.mark.parametrize("text, value", [
    ("12", 12), (" 7\n", 7), ("0", 0), ("", None), ("-1", None), ("1e3", None), ("4.0", None),
    ("²", None), ("٣", None), ("9" * 5000, None),        # past int()'s digit limit
])
def test_cursor_value(text, value):
    assert rules.cursor_value(text) == value


def test_a_superscript_dream_cursor_in_a_snapshot_reads_as_no_cursor(make_workspace):
    """restore --move-cursor on a snapshot whose .dream_cursor holds '²': no crash, cursor kept."""
    from dreamdesk.engine.recovery.restore import restore_snapshot
    from dreamdesk.engine.versions.snapshots import SnapshotStore
    root = make_workspace({"SOUL.md": "s\n", "USER.md": "u\n", "memory/MEMORY.md": "m\n",
                           "memory/.dream_cursor": "²"})
    ws = Workspace.open(root)
    store = SnapshotStore(ws)
    sha = store.snapshot("snapshot: test")
    (root / "memory/.dream_cursor").write_text("4", encoding="utf-8")
    result = restore_snapshot(ws, sha, move_cursor=True, store=store)
    assert result.cursor is None and (root / "memory/.dream_cursor").read_text() == "4"
