"""MEMORY.md's entries with their provenance from OpenClaw's promotion markers (issue 28 item 4):
which dreaming section and day, score and recalls, the source note and lines, lineage, and the
recall store's counts; entries with no marker are written by hand or by the agent. On the fixture
homes built by the real OpenClaw 2026.9.6 (the `dreamed` one promoted with `memory promote --apply`
and two dreaming sweeps) and on hand-built files; the formats are OpenClaw's writers, quoted in
engine/assistants/openclaw_provenance.py."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from conftest import tree_state
from dreamdesk.engine.assistants.openclaw_recall import recall_of
from dreamdesk.engine.assistants.openclaw_provenance import (BY_HAND, CONSOLIDATED, MARKED, PROMOTED,
                                                             parse_provenance, read_provenance)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw"
KEY = "memory:memory/2026-12-06.md:1:4"


def fixture_workspace(tmp_path: Path, name: str) -> Path:
    ws = tmp_path / name
    shutil.copytree(FIXTURES / name / "home", ws)
    return ws


def recall_rows(home: Path) -> dict:
    """memory-core's short-term-recall rows, as the adapter's state reader would pass them."""
    con = sqlite3.connect(f"file:{home / 'state' / 'openclaw.sqlite'}?mode=ro&immutable=1", uri=True)
    with con:
        values = [json.loads(v)["value"] for (v,) in con.execute(
            "SELECT value_json FROM plugin_state_entries WHERE plugin_id = 'memory-core' "
            "AND namespace = 'short-term-recall'")]
    con.close()
    return {v["key"]: recall_of(v) for v in values}


def test_the_dreamed_homes_memory_with_where_each_entry_came_from(tmp_path):
    home = fixture_workspace(tmp_path, "dreamed")
    before = tree_state(home)
    result = read_provenance(home / "workspace", recall_rows(home))
    assert [(e.entry.start + 1, e.origin, e.section, e.section_date) for e in result.entries] == [
        (3, BY_HAND, None, None), (4, BY_HAND, None, None),
        (8, CONSOLIDATED, CONSOLIDATED, "2026-12-06"),      # sweep 1
        (13, PROMOTED, PROMOTED, "2026-12-06"),             # memory promote --apply
        (17, CONSOLIDATED, CONSOLIDATED, "2026-12-06")]     # sweep 2, merged with the hand-written tea entry
    hand, _, swept, promoted, merged = result.entries
    assert hand.fact == "The user's team ships Project Apollo." and hand.promotions == () and hand.source is None
    # the append-only entry carries its score, signals, recalls and source lines
    assert (promoted.score, promoted.signals, promoted.recalls, promoted.avg, promoted.importance) == (0.806, 3, 3, 0.978, 8)
    assert [p.key for p in promoted.promotions] == [KEY] and promoted.promotions[0].line == 11
    assert promoted.source.to_json() == {"path": "memory/2026-12-06.md", "start_line": 1, "end_line": 4,
                                         "exists": True, "note_lines": 4}
    assert promoted.fact == "# 2026-12-06 - Storage driver patch landed; cluster upgrade can proceed."
    assert promoted.triggers == ("storage", "driver", "patch")
    # a consolidated entry has its Source: link and importance; its recalls come from the recall store
    assert (swept.source.path, swept.source.start_line, swept.source.end_line) == ("memory/2026-12-04.md", 1, 5)
    assert (swept.score, swept.importance) == (None, 8)
    assert swept.store.to_json() == {"recall_count": 4, "unique_queries": 4, "promoted_at": "2026-12-06T23:19:35.817Z",
                                     "last_recalled_at": "2026-12-06T23:19:59.620Z"}
    assert merged.fact == "The user prefers green tea in the afternoon."
    assert merged.source.path == "memory/2026-12-06-standup.md" and merged.store.unique_queries == 3
    assert result.problems == ()
    assert tree_state(home) == before                  # reading wrote nothing, the state database included


def test_homes_without_promotions_are_all_written_by_hand(tmp_path):
    for name in ("over-cap", "over-total"):
        result = read_provenance(fixture_workspace(tmp_path, name) / "workspace")
        assert len(result.entries) == 60 and result.problems == ()
        assert {e.origin for e in result.entries} == {BY_HAND}
    assert read_provenance(fixture_workspace(tmp_path, "fresh") / "workspace").to_json() == {"entries": [],
                                                                                             "problems": []}


def test_lineage_and_several_candidates_sharing_one_entry():
    text = """# Long-Term Memory
## Consolidated Memory (2026-12-07)

<!-- openclaw-memory-lineage:lineage:deploys -->
<!-- openclaw-memory-promotion:memory:memory/2026-12-07.md:3:3 -->
- Deploys happen on Wednesdays now. Source: memory/2026-12-07.md#L3-L3 <!-- trigger: deploys --> <!-- importance: 9 -->
<!-- openclaw-memory-promotion:memory:claim:0123456789ab -->
<!-- openclaw-memory-promotion:memory:claim:ba9876543210 -->
- The user prefers green tea. Source: memory/2026-12-06-standup.md#L1-L1 <!-- trigger: tea --> <!-- importance: 6 -->
"""
    deploys, tea = parse_provenance(text).entries
    assert (deploys.lineage, [p.lineage for p in deploys.promotions]) == ("lineage:deploys", ["lineage:deploys"])
    assert (deploys.origin, deploys.importance, deploys.source.end_line) == (CONSOLIDATED, 9, 3)
    assert deploys.source.exists is None                 # no workspace given: not looked at
    assert [p.key for p in tea.promotions] == ["memory:claim:0123456789ab", "memory:claim:ba9876543210"]
    assert tea.lineage is None and tea.source.path == "memory/2026-12-06-standup.md"


def test_project_subsections_of_an_append_only_section():
    text = """## Promoted From Short-Term Memory (2026-12-08)

### Project: github.com/acme/app

<!-- openclaw-memory-promotion:memory:memory/2026-12-08.md:1:2 -->
- Ship on Fridays. [score=0.912 signals=4 recalls=5 avg=0.801 source=memory/2026-12-08.md:1-2] <!-- trigger: ship --> <!-- importance: 9 --> <!-- project: github.com/acme/app -->

### Global

<!-- openclaw-memory-promotion:memory:memory/2026-12-08.md:4:4 -->
- Lunch at noon. [score=0.750 signals=3 recalls=3 avg=0.700 source=memory/2026-12-08.md:4-4] <!-- trigger: lunch --> <!-- importance: 8 -->
"""
    app, everyone = parse_provenance(text).entries
    assert (app.section, app.section_date, app.entry.heading) == (PROMOTED, "2026-12-08", "### Project: github.com/acme/app")
    assert (app.projects, app.recalls, app.fact) == (("github.com/acme/app",), 5, "Ship on Fridays.")
    assert (everyone.section, everyone.entry.heading, everyone.projects) == (PROMOTED, "### Global", ())


def test_a_marker_split_over_lines_is_no_marker():
    text = ("# Memory\n\n<!-- openclaw-memory-promotion:memory:memory/2026-12-06.md:1:4\n-->\n"
            "- Storage patch landed. [score=0.806 signals=3 recalls=3 avg=0.978 source=memory/2026-12-06.md:1-4]\n")
    result = parse_provenance(text)
    comment, entry = result.entries
    assert comment.entry.kind == "html" and comment.origin == BY_HAND
    # OpenClaw reads markers a line at a time: the entry is not a promoted one to it, nor here
    assert (entry.origin, entry.score, entry.source) == (BY_HAND, None, None)
    assert entry.fact == "Storage patch landed. [score=0.806 signals=3 recalls=3 avg=0.978 source=memory/2026-12-06.md:1-4]"
    assert result.problems == ("MEMORY.md lines 3–4: an openclaw-memory marker split over lines: OpenClaw reads its "
                               "markers one line at a time and does not see it; kept as text",)


def test_orphan_markers_and_a_stray_lineage():
    text = ("<!-- openclaw-memory-promotion:memory:claim:aaaaaaaaaaaa -->\n\n- After a blank line.\n"
            "<!-- openclaw-memory-lineage:lin -->\n\n"
            "<!-- openclaw-memory-lineage:lin2 -->\n- Under a lineage alone.\n"
            "<!-- openclaw-memory-promotion: -->\n- Empty key.\n")
    result = parse_provenance(text)
    assert [(e.entry.text, e.origin) for e in result.entries] == [
        ("- After a blank line.", BY_HAND), ("- Under a lineage alone.", BY_HAND), ("- Empty key.", MARKED)]
    assert result.problems == (
        "MEMORY.md line 1: a promotion marker with no entry right under it (OpenClaw pairs a marker with the next line)",
        "MEMORY.md line 4: a lineage marker with no entry right under it (OpenClaw pairs a marker with the next line)",
        "MEMORY.md line 7: line 6: a lineage marker not right above a promotion marker (OpenClaw does not read it)",
        "MEMORY.md line 9: line 8: a promotion marker with no key (OpenClaw skips it)")


def test_annotations_that_do_not_read_are_kept_as_text_and_said():
    text = ("<!-- openclaw-memory-promotion:memory:memory/2026-12-06.md:1:4 -->\n"
            "- Patch landed. [score=high signals=3 recalls=3 avg=0.9 source=memory/2026-12-06.md:1-4] "
            "<!-- importance: high -->\n"
            "<!-- openclaw-memory-promotion:memory:claim:abcdefabcdef -->\n"
            "- Tea. Source: the standup <!-- importance: 7 -->\n")
    patch, tea = parse_provenance(text).entries
    assert (patch.origin, patch.score, patch.importance) == (MARKED, None, None)
    assert "[score=high" in patch.entry.text and "[score=high" in patch.fact
    # the key still names the note lines
    assert (patch.source.path, patch.source.start_line, patch.source.end_line) == ("memory/2026-12-06.md", 1, 4)
    assert patch.problems == ("MEMORY.md line 2: a [score=…] annotation that does not read (kept as text)",
                              "MEMORY.md line 2: importance 'high' is no number")
    # a claim key names no lines
    assert (tea.origin, tea.source, tea.importance) == (MARKED, None, 7)
    assert tea.problems == ("MEMORY.md line 4: a Source: link that does not read as <path>#L<start>-L<end> "
                            "(kept as text)",)


def test_crlf_a_byte_order_mark_and_an_emoji(tmp_path):
    text = ("# Memory\n\n- Hand-written 🍵 note.\n## Consolidated Memory (2026-12-06)\n\n"
            "<!-- openclaw-memory-promotion:memory:memory/2026-12-06.md:1:2 -->\n"
            "- Tea at four 🍵. Source: memory/2026-12-06.md#L1-L2 <!-- trigger: tea --> <!-- importance: 8 -->\n")
    plain = parse_provenance(text).to_json()
    (tmp_path / "MEMORY.md").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-12-06.md").write_text("- Tea at four.\n")       # 2 lines as OpenClaw counts
    assert read_provenance(tmp_path).to_json() == {"entries": [
        {**e, "source": e["source"] and {**e["source"], "exists": True, "note_lines": 2}} for e in plain["entries"]],
        "problems": []}
    assert [(e["origin"], e["fact"]) for e in plain["entries"]] == [(BY_HAND, "Hand-written 🍵 note."),
                                                                   (CONSOLIDATED, "Tea at four 🍵.")]


def test_source_notes_that_are_gone_shorter_or_outside_the_workspace(tmp_path):
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-12-06.md").write_text("# Day\n\n- One line now.\n")
    (tmp_path / "MEMORY.md").write_text(
        "<!-- openclaw-memory-promotion:memory:memory/2026-12-06.md:1:9 -->\n- Shortened. Source: memory/2026-12-06.md#L1-L9\n"
        "<!-- openclaw-memory-promotion:memory:memory/2026-12-01.md:1:2 -->\n- Gone. Source: memory/2026-12-01.md#L1-L2\n"
        "<!-- openclaw-memory-promotion:memory:../../etc/passwd:1:1 -->\n- Outside. Source: ../../etc/passwd#L1-L1\n")
    shorter, gone, outside = read_provenance(tmp_path).entries
    assert (shorter.source.exists, shorter.source.note_lines) == (True, 4)
    assert shorter.problems == ("MEMORY.md line 2: the source note memory/2026-12-06.md has 4 lines now; lines 1–9 "
                                "were promoted",)
    assert gone.source.exists is False and gone.problems == ("MEMORY.md line 4: the source note memory/2026-12-01.md "
                                                             "is gone",)
    assert outside.source.exists is None and outside.problems == (
        "MEMORY.md line 6: the source ../../etc/passwd is outside the workspace: not opened",)


def test_a_key_on_two_entries_and_a_lineage_kept_twice():
    text = ("<!-- openclaw-memory-lineage:L -->\n<!-- openclaw-memory-promotion:k1 -->\n- First.\n"
            "<!-- openclaw-memory-lineage:L -->\n<!-- openclaw-memory-promotion:k1 -->\n- Second.\n")
    assert parse_provenance(text).problems == (
        "MEMORY.md: the promotion key k1 marks the entries on lines 3, 6",
        "MEMORY.md: the entries on lines 3, 6 share the lineage L; OpenClaw's consolidation keeps one (a superseding "
        "entry replaces every entry of its lineage)")


def test_an_absent_memory_file(tmp_path):
    assert read_provenance(tmp_path).to_json() == {"entries": [], "problems": []}


def test_openclaws_annotations_in_a_hand_written_entry_are_just_words(tmp_path):
    # no marker above it: a person wrote (or copied) the words; nothing is read as a source or a score
    text = ("- Copied: tea at four. Source: memory/2026-12-06.md#L1-L2\n"
            "- Copied too. [score=0.806 signals=3 recalls=3 avg=0.978 source=memory/2026-12-06.md:1-4]\n")
    (tmp_path / "MEMORY.md").write_text(text)
    first, second = read_provenance(tmp_path).entries
    assert (first.origin, first.source, first.fact) == (BY_HAND, None, "Copied: tea at four. Source: "
                                                                        "memory/2026-12-06.md#L1-L2")
    assert (second.origin, second.source, second.score, second.recalls) == (BY_HAND, None, None, None)
    assert first.problems == second.problems == ()
