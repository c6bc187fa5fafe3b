"""Entries that left MEMORY.md across OpenClaw's pre-images, as records the Archive lists (issue 28
item 6): the merged entry of the home the real OpenClaw dreamed in, and hand-built sequences for
a removal nobody recorded, a compaction, a heading a person wrote, an entry that came back."""

from __future__ import annotations

import hashlib
import json
from datetime import timezone
from pathlib import Path

from conftest import tree_state
from dreamdesk.engine.assistants.openclaw_archive import NO_USER_MD, read_archive
from dreamdesk.engine.assistants.openclaw_state import HostEvent, OpenClawState, PreImage, read_state
from helpers.openclaw_state_db import copy_home

UTC = timezone.utc
T1, T2 = "2026-12-06T03:00:00.000Z", "2026-12-06T15:00:00.000Z"


def pre(at: str, content: str) -> PreImage:
    return PreImage(f"{at}:x", at, content, hashlib.sha256(content.encode()).hexdigest(), True)


def state(*preimages: PreImage, events=()) -> OpenClawState:
    return OpenClawState(Path("state.sqlite"), True, "k", "/ws", tuple(preimages), events=tuple(events))


def workspace(tmp_path: Path, memory: str) -> Path:
    ws = tmp_path / "workspace"
    ws.mkdir()
    (ws / "MEMORY.md").write_text(memory)
    return ws


def test_the_entry_the_real_sweep_merged_is_archived_with_its_sweep_and_its_replacement(tmp_path):
    home = copy_home("dreamed", tmp_path)
    before = tree_state(home)
    arc = read_archive(home / "workspace", read_state(home / "state" / "openclaw.sqlite", home / "workspace"),
                       json.loads((home / "openclaw.json").read_text()), UTC)
    assert tree_state(home) == before
    [r] = arc.records
    assert (r.id, r.file, r.text, r.heading) == ("oc-20261206232057068-1", "MEMORY.md",
                                                 "- The user prefers green tea in the afternoon.", "# Memory")
    assert (r.reason, r.how, r.writer, r.origin, r.back) == ("dream", "merged", "assistant", "assistant", False)
    assert r.run == "openclaw-sweep-2026-12-06T23:20:57.068Z" and r.archived_at == "2026-12-06T23:20:57.068Z"
    assert r.replaced_by.startswith("- The user prefers green tea in the afternoon. Source: memory/2026-12-06-standup.md")
    assert r.subject == "Dreaming sweep: added 0, merged 1, superseded 0" and r.source.startswith("pre-image 2026-12-06T23:20:57.068Z")
    assert arc.notes == [NO_USER_MD] and arc.to_json()["records"][0]["how"] == "merged"


def test_a_removal_nobody_recorded_is_outside_and_a_person_s_heading_is_kept(tmp_path):
    first = "# Memory\n\n## Travel\n\n- Lisbon in May.\n- Window seat.\n"
    second = "# Memory\n\n- Window seat.\n"
    ws = workspace(tmp_path, second + "- Lisbon in May.\n")
    arc = read_archive(ws, state(pre(T1, first), pre(T2, second)), {}, UTC)
    assert [(r.text, r.reason, r.how, r.writer, r.run, r.archived_at, r.back) for r in arc.records] == [
        ("- Lisbon in May.", "outside", "outside", None, None, T2, True),
        ("## Travel", "outside", "outside", None, None, T2, False)]


def test_a_compacted_section_is_the_promotions_and_its_generated_heading_is_no_row(tmp_path):
    old = "## Promoted From Short-Term Memory (2026-11-01)\n\n<!-- openclaw-memory-promotion:old -->\n- Old fact.\n"
    new = "## Promoted From Short-Term Memory (2026-12-06)\n\n<!-- openclaw-memory-promotion:new -->\n- New fact.\n"
    ws = workspace(tmp_path, "# Memory\n\n" + new)
    events = [HostEvent(1, "memory.promotion.applied", T2, {"applied": 1, "candidates": [{"key": "new"}]})]
    arc = read_archive(ws, state(pre(T1, "# Memory\n\n" + old), events=events), {}, UTC)
    assert [(r.text, r.reason, r.how, r.run) for r in arc.records] == [
        ("- Old fact.", "dream", "compacted", f"openclaw-promotion-{T2}")]


def test_no_database_means_no_records_and_says_why(tmp_path):
    ws = workspace(tmp_path, "# Memory\n")
    arc = read_archive(ws, read_state(tmp_path / "none.sqlite", ws), {}, UTC)
    assert arc.records == [] and arc.notes == [NO_USER_MD] and arc.problems == []
