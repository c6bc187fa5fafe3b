"""The size rules of Dream's sandbox at their exact boundaries (spec §2): a write may leave a file
AT its budget, one character over is refused; the absolute cap holds at 64,000 characters
whatever the budget, with arguments short enough to pass the argument-length check."""

from __future__ import annotations

import json

import pytest

from dreamdesk.engine.dream.tools import ABSOLUTE_CAP, MAX_ARG_CHARS, DiskBackend, Sandbox
from dreamdesk.engine.home.workspace import Workspace

MEMORY = "# Memory\n\n- The homelab runs Proxmox.\n"


def _sandbox(make_workspace, budget: int) -> tuple[Workspace, Sandbox]:
    root = make_workspace({"SOUL.md": "I am Jenny.\n", "USER.md": "# User\n", "memory/MEMORY.md": MEMORY})
    ws = Workspace.open(root)
    sb = Sandbox(ws, {"memory/MEMORY.md": budget}, DiskBackend(ws, None), [])
    sb.begin_pass("consolidation", "explicit")
    return ws, sb


def _write(sb: Sandbox, size: int) -> tuple[str, bool]:
    body = MEMORY + "- " + "x" * (size - len(MEMORY) - 3) + "\n"
    assert len(body) == size
    return sb.call("write_file", json.dumps({"path": "memory/MEMORY.md", "content": body}))


@pytest.mark.parametrize("over, allowed", [(-1, True), (0, True), (1, False)])
def test_budget_boundary(make_workspace, over, allowed):
    budget = 500
    ws, sb = _sandbox(make_workspace, budget)
    result, ok = _write(sb, budget + over)
    assert ok is allowed, result
    size = len((ws.root / "memory/MEMORY.md").read_text(encoding="utf-8"))
    assert size == (budget + over if allowed else len(MEMORY))
    assert [r.kind for r in sb.refused] == ([] if allowed else ["budget"])


@pytest.mark.parametrize("over, allowed", [(0, True), (1, False)])
def test_absolute_cap_boundary_without_a_budget(make_workspace, over, allowed):
    """Budget 0 (measure, never refuse): only the cap stops growth. The write is far shorter
    than the argument-length limit, so it is the cap itself that answers."""
    assert ABSOLUTE_CAP + 1000 < MAX_ARG_CHARS
    ws, sb = _sandbox(make_workspace, 0)
    result, ok = _write(sb, ABSOLUTE_CAP + over)
    assert ok is allowed, result[:200]
    if not allowed:
        assert [r.kind for r in sb.refused] == ["cap"] and "absolute cap" in result
        assert (ws.root / "memory/MEMORY.md").read_text(encoding="utf-8") == MEMORY


# -- growth is what is refused: a write that keeps a file's size is not (issue 26) -----------------
def _over(make_workspace, budget: int, kind: str, shrink_only: bool = False) -> tuple[Workspace, Sandbox]:
    """MEMORY.md already over `budget` (or the cap): a rewrite of the same size lands, one
    character more is refused, by the rule named `kind`."""
    size = ABSOLUTE_CAP if kind == "cap" else budget or 300
    big = MEMORY + "- y\n" + "".join(f"- {n:076}\n" for n in range(size // 79))   # many short entries
    root = make_workspace({"SOUL.md": "I am Jenny.\n", "USER.md": "# User\n", "memory/MEMORY.md": big})
    ws = Workspace.open(root)
    sb = Sandbox(ws, {"memory/MEMORY.md": budget}, DiskBackend(ws, None), [])
    sb.begin_pass("review" if shrink_only else "consolidation", "explicit", shrink_only=shrink_only)
    return ws, sb


@pytest.mark.parametrize("kind, budget, shrink_only", [("budget", 500, False), ("cap", 0, False),
                                                       ("shrink-only", 0, True)])
@pytest.mark.parametrize("grow, allowed", [(0, True), (1, False)])
def test_a_rewrite_of_the_same_size_lands_one_more_character_is_refused(make_workspace, kind, budget, shrink_only,
                                                                         grow, allowed):
    ws, sb = _over(make_workspace, budget, kind, shrink_only)
    before = (ws.root / "memory/MEMORY.md").read_text(encoding="utf-8")
    new = before.replace("- y", "- z" + "z" * grow, 1)
    result, ok = sb.call("write_file", json.dumps({"path": "memory/MEMORY.md", "content": new}))
    assert ok is allowed, result[:200]
    assert (ws.root / "memory/MEMORY.md").read_text(encoding="utf-8") == (new if allowed else before)
    assert [r.kind for r in sb.refused] == ([] if allowed else [kind])


def test_a_budget_refusal_says_how_to_make_room(make_workspace):
    ws, sb = _sandbox(make_workspace, 50)
    result, ok = _write(sb, 51)
    assert not ok and result == (
        "Error: refused: memory/MEMORY.md would be 51 characters, over its budget of 50 (now 38). Make room first: "
        "shorten or remove stale, duplicated or resolved entries, or move content where it belongs")


def test_a_file_without_a_budget_is_never_refused_for_its_size(make_workspace):
    """A skill has no budget (0: measured, never refused): only the cap binds it."""
    ws, sb = _sandbox(make_workspace, 500)
    result, ok = sb.call("write_file", json.dumps({"path": "skills/tea/SKILL.md", "content": "# Tea\n" + "x" * 900}))
    assert ok and result == "OK: skills/tea/SKILL.md is now 906 characters (was 0)."
    result, ok = _write(sb, 400)
    assert ok and result == "OK: memory/MEMORY.md is now 400 characters of a 500 budget (was 38)."
