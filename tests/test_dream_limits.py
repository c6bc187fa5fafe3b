"""The size rules of Dream's sandbox at their exact boundaries (spec §2): a write may leave a file
AT its budget, one character over is refused; the absolute cap holds at 64,000 characters
whatever the budget, with arguments short enough to pass the argument-length check."""

from __future__ import annotations

import json

import pytest

from dreamdesk.engine.dream.tools import ABSOLUTE_CAP, MAX_ARG_CHARS, DiskBackend, Sandbox
from dreamdesk.engine.workspace import Workspace

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
