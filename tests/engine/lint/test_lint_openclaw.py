"""Memory lint on an OpenClaw home (issue 29 item 5): the junk OpenClaw's dreaming promoted, its
score metadata, copies across USER.md and MEMORY.md, directives left active and the prompt cut,
each fix through the normal edit path (snapshot first, what leaves archived, undoable byte for
byte) and leaving OpenClaw's markers as OpenClaw reads them: an entry goes with its own marker
lines, never with another's, and no marker is left without its entry."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from conftest import tree_state
from dreamdesk.engine.assistants import open_home, openclaw_lint
from dreamdesk.engine.assistants.openclaw_directives import parse_directives
from dreamdesk.engine.assistants.openclaw_provenance import parse_provenance
from dreamdesk.engine.core.lint_finding import FIX, REVIEW
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.core.state import workspace_state_dir
from dreamdesk.engine.lint.lint_fixes import fix_finding
from dreamdesk.engine.lint.memory_lint import lint
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.recovery.restore import undo_restore
from helpers.openclaw_homes import (CANDIDATE_MARKER, COMMAND, COMMAND_MARKER, LAUNCH, LAUNCH_MARKERS, copy_home,
                                    with_promoted_junk)
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)
from helpers.openclaw_state_db import hold_lock

TODAY = date(2026, 12, 7)
KEY = re.compile(r"<!--\s*openclaw-memory-promotion:([^\n]*?)\s*-->")


@pytest.fixture
def junk(tmp_path) -> Path:
    return with_promoted_junk(copy_home("dreamed", tmp_path))


def _finding(ws, kind, file="MEMORY.md"):
    return next(f for f in lint(ws, TODAY) if f.kind == kind and f.target.file == file)


def _memory(home: Path) -> str:
    return (home / "workspace" / "MEMORY.md").read_text(encoding="utf-8")


def _markers_consistent(text: str) -> None:
    """As OpenClaw reads MEMORY.md back: every marker right above an entry, no key on two entries."""
    assert not [p for p in parse_provenance(text).problems if "marker" in p or "key" in p], \
        parse_provenance(text).problems


def test_a_promoted_shell_command_goes_with_its_own_marker_and_keeps_the_next_entrys(junk):
    ws = open_home(junk)
    memory = junk / "workspace" / "MEMORY.md"
    before, text = memory.read_bytes(), _memory(junk)
    f = _finding(ws, "shell-command")
    assert f.target.text.startswith(COMMAND) and f.action == FIX
    assert f.fix_label == "Remove it from MEMORY.md, with its OpenClaw promotion marker"
    assert "a shell command copied from a session" in f.reason and "memory/2026-12-05.md (lines 3–3)" in f.reason
    result = fix_finding(ws, f)
    after = _memory(junk)
    assert COMMAND not in after and COMMAND_MARKER not in after
    assert f"{LAUNCH_MARKERS[0]}\n{LAUNCH_MARKERS[1]}\n{LAUNCH}" in after          # the next entry's, untouched
    assert set(KEY.findall(text)) - set(KEY.findall(after)) == {"memory:memory/2026-12-05.md:3:3"}
    _markers_consistent(after)
    assert after.replace("\n", "") == text.replace(f"{COMMAND_MARKER}\n", "").replace(f.target.text + "\n", "") \
        .replace("\n", "")                                                          # nothing else changed
    # the entry is archived; its marker is no fact of its own (a row would put it back alone)
    assert [r.text for r in read_archive(ws).records] == [f.target.text] and result.commit and result.undo
    undo_restore(ws, result.id)
    assert memory.read_bytes() == before


def test_an_entry_alone_in_its_generated_section_goes_with_the_section_heading(junk):
    ws = open_home(junk)
    text = _memory(junk)
    f = _finding(ws, "raw-candidate")
    assert f.target.text.startswith("- Candidate: User: System:")
    assert f.fix_label.endswith("with its OpenClaw promotion marker and the section heading it alone fills")
    fix_finding(ws, f)
    after = _memory(junk)
    assert CANDIDATE_MARKER not in after and "Candidate:" not in after
    assert text.count("## Promoted From Short-Term Memory (2026-12-07)") == 2
    assert after.count("## Promoted From Short-Term Memory (2026-12-07)") == 1      # the other section keeps its own
    assert after.endswith(f"{LAUNCH} [score=0.850 signals=3 recalls=3 avg=0.900 source=memory/2026-12-05.md:1-1] "
                          "<!-- trigger: apollo --> <!-- importance: 8 -->\n")
    _markers_consistent(after)


def test_score_metadata_is_taken_out_and_the_marker_and_comments_stay(junk):
    ws = open_home(junk)
    f = next(f for f in lint(ws, TODAY) if f.kind == "score-metadata" and LAUNCH in f.target.text)
    assert f.action == FIX and f.rewrite_to == f"{LAUNCH} <!-- trigger: apollo --> <!-- importance: 8 -->"
    fix_finding(ws, f)
    after = _memory(junk)
    assert f"{LAUNCH_MARKERS[1]}\n{LAUNCH} <!-- trigger: apollo --> <!-- importance: 8 -->\n" in after
    assert [(e.fact, e.origin) for e in parse_provenance(after).entries if LAUNCH in e.entry.text] == [
        (LAUNCH[2:], "marked")]                 # what it says unchanged; OpenClaw still sees its marker
    _markers_consistent(after)
    assert not [x for x in lint(ws, TODAY) if x.kind == "score-metadata" and LAUNCH in x.target.text]


def test_a_user_md_directive_promoted_into_memory_md_goes_from_memory_md_with_its_marker(tmp_path):
    home = copy_home("dreamed", tmp_path)
    memory = home / "workspace" / "MEMORY.md"
    copy = "- Prefer green tea; never suggest coffee after noon."
    marker = "<!-- openclaw-memory-promotion:memory:memory/2026-12-06-standup.md:3:3 -->"
    memory.write_text(memory.read_text() + f"{marker}\n{copy} Source: memory/2026-12-06-standup.md#L3-L3 "
                      "<!-- trigger: tea --> <!-- importance: 7 -->\n", encoding="utf-8")
    ws = open_home(home)
    f = _finding(ws, "duplicate")
    assert [p.file for p in f.places] == ["USER.md", "MEMORY.md"]
    assert f.fix_label == "Remove it from MEMORY.md, with its OpenClaw promotion marker (keep the one in USER.md)"
    fix_finding(ws, f)
    after = memory.read_text()
    assert marker not in after and copy not in after and copy in (home / "workspace" / "USER.md").read_text()
    _markers_consistent(after)


def test_a_directive_said_twice_goes_with_its_own_comment(tmp_path):
    home = copy_home("dreamed", tmp_path)
    user = home / "workspace" / "USER.md"
    again = "<!-- observed: 2026-12-06 | status: active -->\n\n- Always give the command first, then one line of explanation.\n"
    user.write_text(user.read_text() + "\n" + again, encoding="utf-8")
    ws = open_home(home)
    f = _finding(ws, "duplicate", "USER.md")
    assert f.target.start == 18 and f.fix_label == ("Keep line 15, remove line 19 of USER.md, with its observed/status "
                                                   "comment")
    fix_finding(ws, f)
    after = user.read_text()
    assert "2026-12-06" not in after and after.count("Always give the command first") == 1
    assert not parse_directives(after).problems                # no comment left without its directive


def test_directive_comments_and_markers_are_never_findings_of_their_own(tmp_path):
    """Before: the over-cap home's repeated `<!-- observed: … -->` lines were "duplicates" offered
    for removal in one click, which would have left their directives unmarked."""
    for name in ("over-cap", "dreamed"):
        ws = open_home(copy_home(name, tmp_path / name))
        found = lint(ws, TODAY)
        assert found and all(f.target.kind == "item" for f in found)
        assert not [f for f in found if "<!--" in f.target.text.split("\n")[0][:4]]


def test_a_directive_left_active_is_for_review_and_its_fix_marks_it_superseded(tmp_path, monkeypatch):
    home = copy_home("dreamed", tmp_path)
    user = home / "workspace" / "USER.md"
    user.write_text(user.read_text().replace("2026-11-30 | status: superseded", "2026-11-30 | status: active"))
    before = user.read_bytes()
    ws = open_home(home)
    f = _finding(ws, "superseded-active", "USER.md")
    assert f.target.text == "- Prefer coffee with every morning check-in."
    assert f.places[0].text == "- Prefer green tea; never suggest coffee after noon."
    assert "observed 2026-12-04" in f.reason and "turns down what the older one asks for (coffee)" in f.reason
    assert f.action == REVIEW and "right 92% of the time" in f.review_note
    with pytest.raises(WorkspaceError, match="not a one-click fix"):
        fix_finding(ws, f)
    assert user.read_bytes() == before
    monkeypatch.setitem(openclaw_lint.PRECISION, "superseded-active", 0.95)     # were it measured at the bar
    f = _finding(ws, "superseded-active", "USER.md")
    assert f.action == FIX and f.fix_label.startswith("Mark it superseded in USER.md (line 5: status active")
    result = fix_finding(ws, f)
    assert user.read_text() == before.decode().replace("2026-11-30 | status: active", "2026-11-30 | status: superseded")
    undo_restore(ws, result.id)
    assert user.read_bytes() == before


@pytest.mark.parametrize("name, file, lines, how", [
    ("over-cap", "MEMORY.md", range(35, 52), "raise bootstrapMaxChars in Settings → Memory"),
    ("over-cap", "USER.md", (71, 79, 83, 87, 91, 95, 103), "no setting raises USER.md's 4,000"),
    ("over-total", "MEMORY.md", range(4, 63), "raise bootstrapTotalMaxChars in Settings → Memory"),
])
def test_entries_in_the_cut_are_for_review_and_no_fix_removes_them(tmp_path, name, file, lines, how):
    home = copy_home(name, tmp_path)
    ws = open_home(home)
    cut = [f for f in lint(ws, TODAY) if f.kind == "in-cut" and f.target.file == file]
    assert [f.target.start + 1 for f in cut] == list(lines)
    assert all(f.action == REVIEW and f.fix is None and how in f.advice for f in cut)
    assert cut[0].advice.startswith("review: it is a fact, so no fix removes it: make room")
    before = tree_state(home / "workspace")
    with pytest.raises(WorkspaceError, match="has no automatic fix"):
        fix_finding(ws, cut[0])
    assert tree_state(home / "workspace") == before


def test_a_fix_is_refused_when_the_marker_is_no_longer_right_above_its_entry(junk):
    ws = open_home(junk)
    f = _finding(ws, "shell-command")
    memory = junk / "workspace" / "MEMORY.md"
    memory.write_text(memory.read_text().replace(f"{COMMAND_MARKER}\n", f"{COMMAND_MARKER}\n- Written since.\n"))
    changed = memory.read_bytes()
    with pytest.raises(WorkspaceError, match="no longer right above it; nothing was written"):
        fix_finding(ws, f)
    assert memory.read_bytes() == changed


def test_a_fix_waits_for_openclaws_lock(junk):
    hold_lock(junk, age_ms=2_000)
    ws = open_home(junk)
    before = tree_state(junk / "workspace")
    with pytest.raises(WorkspaceError, match="^OpenClaw is writing this workspace's memory right now"):
        fix_finding(ws, _finding(ws, "shell-command"))
    assert tree_state(junk / "workspace") == before
    assert not (workspace_state_dir(ws.root) / "snapshots.git").exists()       # refused before the snapshot


def test_the_fixs_change_record_names_openclaws_memory_md(junk):
    """So the window reads MEMORY.md again after the fix (the contract's mapping knows only memory/MEMORY.md)."""
    from dreamdesk.engine.ops.lint_fix import fix
    ws = open_home(junk)
    done = fix(ws, _finding(ws, "shell-command"), "test")
    assert done.changes.files == frozenset({"MEMORY.md"})
    assert done.message == "Fixed: Remove it from MEMORY.md, with its OpenClaw promotion marker; 1 archived."
