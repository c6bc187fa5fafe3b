"""The Project Context of OpenClaw 2026.9.6's system prompt and the /new prelude, character for
character (issue 28 item 3), on files and workspaces built here; expected texts follow OpenClaw's
code (dist/system-prompt-params-*.mjs, dist/get-reply-*.mjs), and
tests/interop/openclaw/test_bootstrap_oracle.py checks cases like these against it."""

from __future__ import annotations

import os
from pathlib import Path

from dreamdesk.engine.assistants import openclaw_bootstrap as ob
from dreamdesk.engine.assistants.openclaw_context import (MEMORY_LINE, PERSONAL_LINE, SOUL_LINE, USER_LINE,
                                                          ContextFile, project_context)
from dreamdesk.engine.assistants.openclaw_jsstr import locale_compare
from dreamdesk.engine.assistants.openclaw_prelude import HEADER, startup_prelude

NOW_MS = 1796558400000.0        # 2026-12-06T12:00:00Z
UTC = {"agents": {"defaults": {"userTimezone": "UTC"}}}


def test_a_private_session_renders_header_lines_and_each_file_under_its_absolute_path(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    for name, text in (("AGENTS.md", "# Agents\n\nBe brief.\n"), ("SOUL.md", "Calm.\n"), ("IDENTITY.md", "Claw\n"),
                       ("USER.md", "- Likes tea\n"), ("MEMORY.md", "- Lives in Lisbon\n\n")):
        (ws / name).write_text(text, encoding="utf-8")
    pv = ob.preview(ws)
    # the prompt keeps only non-empty lines: the blank lines of the section and inside files vanish
    assert pv.project_context == "\n".join([
        "# Project Context", "Loaded project context:", SOUL_LINE, MEMORY_LINE, USER_LINE,
        f"## {ws}/AGENTS.md", "# Agents\n\nBe brief.", f"## {ws}/SOUL.md", "Calm.", f"## {ws}/IDENTITY.md", "Claw",
        f"## {ws}/USER.md", "- Likes tea", f"## {ws}/MEMORY.md", "- Lives in Lisbon"])
    group = ob.preview(ws, kind=ob.GROUP)
    assert MEMORY_LINE not in group.project_context and "Lives in Lisbon" not in group.project_context


def test_nothing_injected_means_no_project_context():
    assert project_context([]) == ""


def test_the_order_is_openclaws_with_localecompare_ties_and_user_files_kept_as_they_came():
    files = [ContextFile("/w/MEMORY.md", "m"), ContextFile("/w/C/AGENTS.md", "C"), ContextFile("/w/b/AGENTS.md", "b"),
             ContextFile("/w/a-b/AGENTS.md", "dash"), ContextFile("/w/a_b/AGENTS.md", "underscore"),
             ContextFile("/w/users/ana/USER.md", "personal", True), ContextFile("/w/USER.md", "shared"),
             ContextFile("/w/zz.md", "other"), ContextFile("/w/TOOLS.md", "t"), ContextFile("/w/BOOTSTRAP.md", "boot")]
    text = project_context(files)
    heads = [line[3:] for line in text.split("\n") if line.startswith("## ")]
    # AGENTS (10) by path in ICU order: "_" before "-", "b" before "C" (code points would say "-", "C", "_", "b");
    # then USER (40) in the order given (the comparator says 0), TOOLS 50, BOOTSTRAP 60, MEMORY 70, others last
    assert heads == ["/w/a_b/AGENTS.md", "/w/a-b/AGENTS.md", "/w/b/AGENTS.md", "/w/C/AGENTS.md", "/w/users/ana/USER.md",
                     "/w/USER.md", "/w/TOOLS.md", "/w/BOOTSTRAP.md", "/w/MEMORY.md", "/w/zz.md"]
    assert PERSONAL_LINE in text and SOUL_LINE not in text


def test_locale_compare_is_icus_order_not_code_points():
    assert locale_compare("a", "B") < 0 < locale_compare("B", "a")
    assert locale_compare("a", "A") < 0 and locale_compare("A", "á") < 0 and locale_compare("á", "b") < 0
    assert locale_compare("a_b", "a-b") < 0 and locale_compare("a10", "a2") < 0
    assert locale_compare("é", "e\u0301") == 0


def test_the_heartbeat_block_goes_and_blank_runs_close_up():
    agents = ("x\nDefault heartbeat prompt:\n`Read HEARTBEAT.md if it exists. Reply HEARTBEAT_OK.`\n\n\n\ny")
    # the block goes, the five newlines left close up to two (blank lines inside a file stay: the prompt
    # drops empty lines of the section only)
    assert project_context([ContextFile("/w/AGENTS.md", agents)]).endswith("\n## /w/AGENTS.md\nx\n\ny")


def test_project_scoped_entries_leave_memory_and_user_unless_their_project_is_active():
    memory = "# M\n- kept\n- scoped <!-- project: Acme/site -->\n- two <!-- project: acme/site; beta -->\n## Later\ntext"
    files = [ContextFile("/w/MEMORY.md", memory), ContextFile("/w/AGENTS.md", "- also <!-- project: beta -->")]
    none = project_context(files)
    assert "- kept" in none and "scoped" not in none and "two" not in none and "## Later" in none
    assert "- also <!-- project: beta -->" in none                   # only MEMORY.md and USER.md are filtered
    acme = project_context(files, active_projects=("ACME/site",))    # the owner's case is folded before the "/"
    assert "- scoped <!-- project: Acme/site -->" in acme and "two" not in acme
    assert "two" in project_context(files, active_projects=("acme/site", "beta"))


def test_a_filtered_personal_user_md_loses_its_line_as_in_openclaw():
    files = [ContextFile("/w/USER.md", "- a"), ContextFile("/w/users/x/USER.md", "- b\n- c <!-- project: p -->", True)]
    assert PERSONAL_LINE not in project_context(files)
    assert PERSONAL_LINE in project_context(files, active_projects=("p",))


# -- /new ---------------------------------------------------------------------------------------------------
def notes(tmp_path: Path, **files: str) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    for name, text in files.items():
        (ws / "memory" / name).write_text(text, encoding="utf-8")
    return ws


def block(rel: str, text: str) -> str:
    return f"[Untrusted daily memory: {rel}]\nBEGIN_QUOTED_NOTES\n```text\n{text}\n```\nEND_QUOTED_NOTES"


def test_the_prelude_quotes_today_then_yesterday_and_its_slugged_notes_newest_first(tmp_path):
    ws = notes(tmp_path, **{"2026-12-06.md": "today ```x```\n", "2026-12-05.md": "\n yesterday \n",
                            "2026-12-04.md": "too old", "2026-12-06-b.md": "b", "2026-12-06-A.md": "A",
                            "2026-12-06-0930.md": "nine thirty"})
    for name, t in (("2026-12-06-b.md", 2000), ("2026-12-06-A.md", 2000), ("2026-12-06-0930.md", 3000)):
        os.utime(ws / "memory" / name, (t, t))
    # same mtime: names descending by localeCompare ("b" after "A"): b first
    assert startup_prelude(ws, UTC, NOW_MS) == "\n".join([
        *HEADER, block("memory/2026-12-06.md", "today \\`\\`\\`x\\`\\`\\`"), block("memory/2026-12-06-0930.md", "nine thirty"),
        block("memory/2026-12-06-b.md", "b"), block("memory/2026-12-06-A.md", "A"),
        block("memory/2026-12-05.md", "yesterday")])


def test_the_prelude_cuts_a_long_note_at_1200_and_stops_at_2800(tmp_path):
    ws = notes(tmp_path, **{"2026-12-06.md": "a" * 1500, "2026-12-06-x.md": "c" * 1500, "2026-12-05.md": "b" * 1500,
                            "2026-12-05-y.md": "d"})
    cut = "\n...[truncated]..."
    # each note is cut to 1200 (+ the marker): blocks of 1313 and 1315; 172 are left of 2800 for the third,
    # whose block costs 95 + its text: the longest cut that fits keeps 59 characters (59 + 18 + 95 = 172);
    # nothing is left for the fourth
    assert startup_prelude(ws, UTC, NOW_MS) == "\n".join([
        *HEADER, block("memory/2026-12-06.md", "a" * 1200 + cut), block("memory/2026-12-06-x.md", "c" * 1200 + cut),
        block("memory/2026-12-05.md", "b" * 59 + cut), "...[additional startup memory truncated]..."])
    assert len(block("memory/2026-12-05.md", "b" * 59 + cut)) == 2800 - 1313 - 1315


def test_no_prelude_without_recent_text_when_disabled_or_while_bootstrap_is_pending(tmp_path):
    ws = notes(tmp_path, **{"2026-12-06.md": "  \n", "2026-12-01.md": "old"})
    assert startup_prelude(ws, UTC, NOW_MS) is None
    (ws / "memory" / "2026-12-05.md").write_text("fresh", encoding="utf-8")
    (ws / "BOOTSTRAP.md").write_text("# B", encoding="utf-8")
    assert ob.preview(ws, UTC, new_session=True, now_ms=NOW_MS).prelude is not None
    assert ob.preview(ws, UTC, new_session=True, now_ms=NOW_MS, setup_completed=False).prelude is None
    off = {"agents": {"defaults": {"userTimezone": "UTC", "startupContext": {"enabled": False}}}}
    assert ob.preview(ws, off, new_session=True, now_ms=NOW_MS).prelude is None
    reset_only = {"agents": {"defaults": {"userTimezone": "UTC", "startupContext": {"applyOn": ["reset"]}}}}
    assert ob.preview(ws, reset_only, new_session=True, now_ms=NOW_MS).prelude is None
    assert ob.preview(ws, UTC, now_ms=NOW_MS).prelude is None


def test_a_zone_ahead_of_utc_reads_its_own_today(tmp_path):
    ws = notes(tmp_path, **{"2026-12-07.md": "kiritimati today", "2026-12-05.md": "two days back"})
    text = startup_prelude(ws, {"agents": {"defaults": {"userTimezone": "Pacific/Kiritimati"}}}, NOW_MS)
    # 12:00 UTC is 02:00 on the 7th at UTC+14: the window is the 7th and the 6th; UTC's 6th is in it
    assert "kiritimati today" in text and "two days back" not in text
