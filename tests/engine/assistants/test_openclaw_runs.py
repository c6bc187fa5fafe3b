"""OpenClaw's dreaming as runs (issue 28 item 5): on the home the real OpenClaw 2026.9.6 dreamed in,
each sweep has DREAMS.md's counts and the MEMORY.md change OpenClaw itself made (oracle/sweeps.json),
`promote --apply` is a run of its own (oracle/promote_apply_diff.json); hand-built homes for what
no build makes: no database, no pre-image, two sweeps on one day under identical headings, a
history block after `## Deep Sleep`, an entry removed between sweeps by someone else, compaction."""

from __future__ import annotations

import hashlib
import json
from datetime import timezone
from pathlib import Path

from conftest import tree_state
from dreamdesk.engine.assistants.openclaw_dreams_file import parse_dreams
from dreamdesk.engine.assistants.openclaw_runs import read_runs
from dreamdesk.engine.assistants.openclaw_state import HostEvent, OpenClawState, PreImage, read_state
from helpers.openclaw_state_db import copy_home, oracle

UTC = timezone.utc


def lines_of(changes) -> list[str]:
    """A run's changes as the non-blank lines they are in the file (markers included)."""
    out = []
    for c in changes:
        if c.entry.lineage:
            out.append(f"<!-- openclaw-memory-lineage:{c.entry.lineage} -->")
        if c.entry.key:
            out.append(f"<!-- openclaw-memory-promotion:{c.entry.key} -->")
        out.append(c.entry.text)
    return sorted(out)


def dreamed(tmp_path):
    home = copy_home("dreamed", tmp_path)
    state = read_state(home / "state" / "openclaw.sqlite", home / "workspace")
    config = json.loads((home / "openclaw.json").read_text())
    return home, state, config


def test_each_real_sweep_has_the_counts_of_dreams_md_and_the_memory_change_openclaw_made(tmp_path):
    home, state, config = dreamed(tmp_path)
    before = tree_state(home)
    got = read_runs(home / "workspace", state, config, UTC)
    assert tree_state(home) == before
    sweeps = [r for r in reversed(got.runs) if r.kind == "sweep"]
    expected = oracle("dreamed", "sweeps.json")
    assert [(r.at, r.history.added, r.history.merged, r.history.superseded) for r in sweeps] == \
        [(h["at"], h["added"], h["merged"], h["superseded"]) for h in expected["history"]]
    for run, want in zip(sweeps, expected["sweeps"]):
        assert lines_of(run.added) == sorted(want["memory_diff"]["added"])
        assert lines_of(run.removed) == sorted(want["memory_diff"]["removed"])
        assert run.preimage.content == want["memory_before"] and run.after == want["memory_after"]
        assert run.diff is not None and run.diff_note is None
    merged = sweeps[1].removed[0]
    assert merged.why == "merged" and merged.other.startswith("- The user prefers green tea in the afternoon. Source:")
    assert got.outside == [] and got.problems == []


def test_promote_apply_is_a_run_of_its_own_with_the_section_it_appended(tmp_path):
    home, state, config = dreamed(tmp_path)
    got = read_runs(home / "workspace", state, config, UTC)
    [promotion] = [r for r in got.runs if r.kind == "promotion"]
    assert promotion.at == "2026-12-06T23:20:14.734Z" and promotion.subject == "memory promote --apply: 1 promoted"
    assert lines_of(promotion.added) == sorted(oracle("dreamed", "promote_apply_diff.json")["added"])
    assert promotion.removed == [] and promotion.preimage is None and promotion.diary == []
    j = promotion.to_json()
    assert (j["writer"], j["author"], j["kind"], j["created_count"], j["removed_count"]) == \
        ("assistant", "OpenClaw", "promotion", 1, 0)


def test_diary_reports_deep_sleep_and_restore_points_go_to_their_sweep(tmp_path):
    home, state, config = dreamed(tmp_path)
    got = read_runs(home / "workspace", state, config, UTC)
    last, first = [r for r in got.runs if r.kind == "sweep"]
    assert [d.text[:15] for d in first.diary] == ["Diary entry 1: ", "Diary entry 2: ", "A memory trace "]
    assert [d.text[:15] for d in last.diary] == ["Diary entry 3: ", "Diary entry 4: ", "A memory trace "]
    assert [(p.phase, p.path, p.outcome, p.latest) for p in first.reports] == [
        (ph, f"memory/dreaming/{ph}/2026-12-06.md", "completed", False) for ph in ("light", "rem", "deep")]
    assert all(p.latest for p in last.reports) and last.reports[0].text.startswith("# Light Sleep")
    assert last.deep_sleep.startswith("- Ranked 1 candidate(s)") and first.deep_sleep is None
    assert [(p.preimage.created_at, p.run) for p in got.restore_points] == [
        (last.at, last.id), (first.at, first.id)]
    j = got.to_json()
    assert j["runs"][0]["subject"] == "Dreaming sweep: added 0, merged 1, superseded 0"
    assert j["restore_points"][0]["hash_ok"] and j["restore_points"][0]["entries"] == 5


# -- hand-built homes --------------------------------------------------------------------------------
T1, T2 = "2026-12-06T03:00:00.000Z", "2026-12-06T15:00:00.000Z"
PRE1 = "# Memory\n\n- A.\n- The team prefers trunk-based development.\n"
SECTION1 = ("## Consolidated Memory (2026-12-06)\n\n<!-- openclaw-memory-promotion:k1 -->\n"
            "- C. Source: memory/2026-12-06.md#L1-L1 <!-- trigger: c --> <!-- importance: 8 -->\n")
AFTER1 = PRE1 + SECTION1
SECTION2 = ("## Consolidated Memory (2026-12-06)\n\n<!-- openclaw-memory-promotion:k2 -->\n"
            "- The team prefers trunk-based development. Source: memory/2026-12-06-x.md#L2-L2 "
            "<!-- trigger: team --> <!-- importance: 8 -->\n")
AFTER2 = "# Memory\n\n- A.\n" + SECTION1 + SECTION2
DREAMS = f"""# Dream Diary

<!-- openclaw:dreaming:diary:start -->
---

*December 6, 2026 at 3:00 AM UTC*

The first night.

---

*December 6, 2026 at 3:00 PM UTC*

The second nap.

---

*December 4, 2026*

<!-- openclaw:dreaming:backfill-entry day=2026-12-04 -->

A backfilled day.
<!-- openclaw:dreaming:diary:end -->

## Memory Consolidation History

### {T1}

- Added: 1
- Merged: 0
- Superseded: 0

## Deep Sleep
<!-- openclaw:dreaming:deep:start -->
- Promoted 1 candidate(s) into MEMORY.md.
<!-- openclaw:dreaming:deep:end -->

### {T2}

- Added: 0
- Merged: 1
- Superseded: 0
<!-- openclaw-memory-promotion:k2 -->
- `- - The team prefers trunk-based development.`
"""


def pre(at: str, content: str) -> PreImage:
    return PreImage(f"{at}:x", at, content, hashlib.sha256(content.encode()).hexdigest(), True)


def workspace(tmp_path: Path, memory: str | None, dreams: str | None = DREAMS) -> Path:
    ws = tmp_path / "workspace"
    ws.mkdir()
    if memory is not None:
        (ws / "MEMORY.md").write_text(memory)
    if dreams is not None:
        (ws / "DREAMS.md").write_text(dreams)
    return ws


def state(*preimages: PreImage, events=()) -> OpenClawState:
    return OpenClawState(Path("state.sqlite"), True, "k", "/ws", tuple(preimages), events=tuple(events))


def test_two_sweeps_on_one_day_with_identical_headings_each_get_their_own_section(tmp_path):
    ws = workspace(tmp_path, AFTER2)
    got = read_runs(ws, state(pre(T1, PRE1), pre(T2, AFTER1)), {}, UTC)
    second, first = got.runs
    assert (first.at, second.at) == (T1, T2)
    assert first.after == AFTER1 and second.after == AFTER2
    assert [(c.why, c.entry.key) for c in first.added] == [("added", "k1"), ("heading", None)]
    assert [(c.why, c.entry.key, c.entry.start) for c in second.added] == [("merged", "k2", 10), ("heading", None, 7)]
    assert [(c.why, c.entry.text) for c in second.removed] == [("merged", "- The team prefers trunk-based development.")]
    assert [d.text for d in first.diary] == ["The first night."] and [d.text for d in second.diary] == ["The second nap."]
    assert [d.backfill_day for d in got.unplaced_diary] == ["2026-12-04"]
    assert second.deep_sleep == "- Promoted 1 candidate(s) into MEMORY.md." and got.outside == []


def test_a_history_block_after_deep_sleep_is_read_and_a_skipped_rewrite_is_said():
    text = DREAMS + "\n### 2026-12-07T03:00:00.000Z\n\n- Rewrite skipped: MEMORY.md changed while consolidation was running.\n- Fallback: append-only promotion.\n"
    d = parse_dreams(text)
    assert [(h.at, h.added, h.merged, h.skipped) for h in d.history] == [
        (T1, 1, 0, None), (T2, 0, 1, None),
        ("2026-12-07T03:00:00.000Z", None, None, "MEMORY.md changed while consolidation was running")]
    assert [(x.key, x.sign, x.text) for x in d.history[1].highlights] == [("k2", "-", "- The team prefers trunk-based development.")]
    assert d.deep_sleep == "- Promoted 1 candidate(s) into MEMORY.md."


def test_an_entry_someone_else_removed_between_sweeps_is_not_the_sweeps(tmp_path):
    """The person deleted `- A.` after the first sweep: the step from its pre-image to the next
    holds that removal, but it is nobody's run's; the sweep's own diff shows only its change."""
    pre2 = AFTER1.replace("- A.\n", "")
    ws = workspace(tmp_path, pre2, dreams=None)
    got = read_runs(ws, state(pre(T1, PRE1), pre(T2, pre2)), {}, UTC)
    second, first = got.runs
    assert first.removed == [] and first.after == AFTER1
    assert [(o.sign, o.change.entry.text, o.since, o.until) for o in got.outside] == [("-", "- A.", T1, T2)]
    assert second.added == [] and second.removed == []


def test_no_database_leaves_the_sweeps_dreams_md_tells_of_without_a_diff(tmp_path):
    ws = workspace(tmp_path, AFTER2)
    got = read_runs(ws, read_state(tmp_path / "none.sqlite", ws), {}, UTC)
    assert [(r.kind, r.at, r.history.added) for r in reversed(got.runs)] == [("sweep", T1, 1), ("sweep", T2, 0)]
    assert all(r.diff is None and r.added == [] and "no MEMORY.md pre-image" in r.diff_note for r in got.runs)
    assert got.restore_points == [] and "no state database" in got.notes[0]


def test_runs_older_than_every_pre_image_kept_say_theirs_is_gone(tmp_path):
    ws = workspace(tmp_path, AFTER2)
    got = read_runs(ws, state(pre(T2, AFTER1)), {}, UTC)
    second, first = got.runs
    assert first.diff is None and "last 8" in first.diff_note
    assert second.diff is not None and second.after == AFTER2


def test_with_no_pre_image_at_all_events_still_make_runs(tmp_path):
    ws = workspace(tmp_path, AFTER1, dreams=None)
    events = [HostEvent(1, "memory.dream.completed", T1, {"phase": "light", "outcome": "failed", "error": "boom"}),
              HostEvent(2, "memory.promotion.applied", T2, {"applied": 1, "candidates": [{"key": "k9", "path": "memory/x.md"}]})]
    got = read_runs(ws, state(events=events), {}, UTC)
    promotion, sweep = got.runs
    assert (sweep.kind, sweep.status, promotion.kind) == ("sweep", "failed", "promotion")
    assert promotion.promoted == [{"key": "k9", "path": "memory/x.md"}] and promotion.added == []
    assert sweep.subject == "Dreaming sweep: nothing promoted" and got.restore_points == []


def test_compaction_by_an_appending_promotion_is_the_promotions(tmp_path):
    old = "## Promoted From Short-Term Memory (2026-11-01)\n\n<!-- openclaw-memory-promotion:old -->\n- Old. [score=0.800 signals=3 recalls=3 avg=0.900 source=memory/2026-11-01.md:1-1]\n"
    new = ("## Promoted From Short-Term Memory (2026-12-06)\n\n<!-- openclaw-memory-promotion:new -->\n"
           "- New. [score=0.800 signals=3 recalls=3 avg=0.900 source=memory/2026-12-06.md:1-1]\n")
    ws = workspace(tmp_path, "# Memory\n\n- Mine.\n" + new, dreams=None)
    events = [HostEvent(1, "memory.promotion.applied", T2, {"applied": 1, "candidates": [{"key": "new"}]})]
    got = read_runs(ws, state(pre(T1, "# Memory\n\n- Mine.\n" + old), events=events), {}, UTC)
    [promotion] = [r for r in got.runs if r.kind == "promotion"]
    assert [(c.why, c.entry.text[:6]) for c in promotion.removed] == [("compacted", "- Old."), ("heading", "## Pro")]
    assert [(c.why, c.entry.key) for c in promotion.added] == [("promoted", "new"), ("heading", None)]
    assert got.outside == []
