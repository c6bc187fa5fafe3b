"""What Dream's sandbox records of each write it lets through (the run record's writes, removed
and created facts, and whether a size refusal is still outstanding), and what it says when a
pinned entry stops a write: the sandbox driven directly, as a pass's tool calls drive it."""

from __future__ import annotations

import json

import pytest

from dreamdesk.engine.recovery import pins
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.dream.tools import DiskBackend, Sandbox
from dreamdesk.engine.home.workspace import Workspace

USER = "# User\n\n## Facts\n- Lives in Lyon.\n- Has a cat.\n"
MEMORY = "# Memory\n\n## Homelab\n- Proxmox on the NUC.\n"


@pytest.fixture
def ws(make_workspace) -> Workspace:
    return Workspace.open(make_workspace({"SOUL.md": "I am Jenny.\n", "USER.md": USER, "memory/MEMORY.md": MEMORY}))


def sandbox(ws: Workspace, budgets: dict | None = None, kind: str = "deductive") -> Sandbox:
    sb = Sandbox(ws, budgets or {}, DiskBackend(ws, "r-test"), [4, 5])
    sb.begin_pass("deduction", kind)
    return sb


def call(sb: Sandbox, tool: str, **args) -> str:
    result, ok = sb.call(tool, json.dumps(args))
    assert ok, result
    return result


def test_a_replaced_fact_is_recorded_with_its_archive_row_and_its_replacement(ws):
    sb = sandbox(ws)
    call(sb, "remove_fact", path="USER.md", text="- Lives in Lyon.", replacement="Lives in Paris.", sources=[4, 5])
    [row] = read_archive(ws).records
    assert (row.text, row.replaced_by) == ("- Lives in Lyon.", "- Lives in Paris.")
    assert [w.to_json() for w in sb.writes] == [{"file": "USER.md", "before": len(USER), "size": len(USER) + 1,
                                                 "pass": "deduction", "tool": "remove_fact", "archived": [row.id]}]
    assert [r.to_json() for r in sb.removed] == [{"file": "USER.md", "text": "- Lives in Lyon.", "archive_id": row.id,
                                                  "replaced_by": "- Lives in Paris.", "pass": "deduction"}]


def test_an_edit_records_what_it_rewrote_and_what_it_added(ws):
    """edit_file names no facts: they are read from the entries before and after. A rewritten
    entry is a removal replaced by its new text, and its new text is created with the added one."""
    sb = sandbox(ws)
    call(sb, "edit_file", path="USER.md", old_text="- Has a cat.\n", new_text="- Has a cat named Miso.\n- Runs.\n")
    [row] = read_archive(ws).records
    assert [r.to_json() for r in sb.removed] == [{"file": "USER.md", "text": "- Has a cat.", "archive_id": row.id,
                                                  "replaced_by": "- Has a cat named Miso.", "pass": "deduction"}]
    assert [c.to_json() for c in sb.created] == [
        {"file": "USER.md", "text": text, "kind": "deductive", "confidence": None, "sources": [4, 5],
         "pass": "deduction", "heading": "## Facts"} for text in ("- Has a cat named Miso.", "- Runs.")]


def test_a_refusal_is_outstanding_until_a_write_to_its_file_or_what_it_wanted_lands_elsewhere(ws):
    sb = sandbox(ws, {"USER.md": len(USER) + 5})
    big = "- Walks to work every day.\n"
    assert not sb.call("edit_file", json.dumps({"path": "USER.md", "old_text": "- Has a cat.\n",
                                                "new_text": "- Has a cat.\n" + big}))[1]
    assert sb.outstanding_refusals() == ["USER.md"]
    call(sb, "remove_fact", path="USER.md", text="- Has a cat.")               # USER.md written: not outstanding
    assert sb.outstanding_refusals() == []
    cycles = "- Cycles to the office and back home.\n"
    assert not sb.call("edit_file", json.dumps({"path": "USER.md", "old_text": "- Lives in Lyon.\n",
                                                "new_text": "- Lives in Lyon.\n" + cycles}))[1]
    assert sb.outstanding_refusals() == ["USER.md"]
    call(sb, "add_fact", path="memory/MEMORY.md", text="Walks to work every day.", sources=[4])   # the old wish
    assert sb.outstanding_refusals() == ["USER.md"]           # not what the refusal now outstanding wanted
    call(sb, "add_fact", path="memory/MEMORY.md", text="Cycles to the office and back home.", sources=[5])
    assert sb.outstanding_refusals() == []                    # moved where it belongs


def test_a_pin_refusal_quotes_the_entry_cut_at_120_characters(ws):
    long = "- " + "Allergic to penicillin, amoxicillin and every other beta-lactam antibiotic; " * 3
    (ws.root / "USER.md").write_text(USER + long.strip() + "\n")
    pins.pin(ws, "USER.md", long.strip())
    result, ok = sandbox(ws).call("remove_fact", json.dumps({"path": "USER.md", "text": long.strip()}))
    one = " ".join(long.split())
    assert not ok and result == (f"Error: refused: the entry {one[:120]!r} in USER.md is pinned by the user; leave it "
                                 "as it is (do not remove or reword it)")


def test_an_entry_removed_from_soul_md_is_recorded_without_an_archive_row(ws):
    """Only USER.md and MEMORY.md are archived: a removal elsewhere has no row to point to."""
    (ws.root / "SOUL.md").write_text("# Soul\n\n- Be brief.\n- Be kind.\n")
    sb = sandbox(ws)
    call(sb, "remove_fact", path="SOUL.md", text="- Be kind.")
    assert [r.to_json() for r in sb.removed] == [{"file": "SOUL.md", "text": "- Be kind.", "archive_id": None,
                                                  "replaced_by": None, "pass": "deduction"}]
    assert read_archive(ws).records == [] and sb.writes[0].archived == []
