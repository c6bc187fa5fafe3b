"""The bootstrap files OpenClaw 2026.9.6 injects, each against its cap, and the entries its cut
hides (issue 28 item 2), on workspaces built here. Every expected value is worked out from
OpenClaw's code (dist/bootstrap-*.mjs, dist/workspace-*.mjs, dist/bootstrap-files-*.mjs; the
steps are in the comments); tests/interop/openclaw/test_bootstrap_oracle.py runs OpenClaw's own
functions on cases like these."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import tree_state
from dreamdesk.engine.assistants import openclaw_bootstrap as ob
from dreamdesk.engine.assistants.openclaw_jsstr import u16len
from dreamdesk.engine.assistants.openclaw_trim import clamp_to_budget, trim_bootstrap

CORE = {"AGENTS.md": "# Agents\n", "SOUL.md": "# Soul\n", "IDENTITY.md": "# Identity\n"}


def workspace(tmp_path: Path, **files: str) -> Path:
    ws = tmp_path / "ws"
    for name, text in {**CORE, **{k.replace("__", "/"): v for k, v in files.items()}}.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text, encoding="utf-8")
    return ws


def by_name(preview, personal: bool = False) -> dict[str, ob.Injected]:
    return {f.source.name: f for f in preview.files if f.source.personal == personal}


def lines_of_50(n: int) -> str:
    """n list items of exactly 49 characters each, one a line: line i spans [50 i, 50 i + 49)."""
    return "\n".join(f"- entry {i:02d} ".ljust(49, "x") for i in range(n))


# -- the plain cut ------------------------------------------------------------------------------------------
def test_a_file_just_under_and_at_its_cap_is_whole_and_one_over_is_cut(tmp_path):
    config = {"agents": {"defaults": {"bootstrapMaxChars": 300}}}
    for size, cut in ((299, False), (300, False), (301, True)):
        ws = workspace(tmp_path, **{"MEMORY.md": "m" * size + "\n"})
        f = by_name(ob.preview(ws, config))["MEMORY.md"]
        assert (f.length, f.cap, f.is_cut) == (size, 300, cut)
        assert (f.content == "m" * size) is not cut


def test_the_75_25_cut_keeps_head_and_tail_around_the_marker_and_names_the_entries_it_hides(tmp_path):
    # 20 items, 999 units once trimmed. Cap 300, full marker for "…kept 0+0 chars of 999": 50 + 46 + 3 = 99
    # units; content budget 300-99 = 201 -> 150+50, marker 102; 300-102-2 = 196 -> 147+49, again: settled
    # at 147 + 102 + 49 + 2 separators = 300.
    ws = workspace(tmp_path, **{"MEMORY.md": lines_of_50(20) + "\n\n"})
    f = by_name(ob.preview(ws, {"agents": {"defaults": {"bootstrapMaxChars": 300}}}))["MEMORY.md"]
    text = lines_of_50(20)
    marker = "\n[...truncated, read MEMORY.md for full content...]\n…(truncated MEMORY.md: kept 147+49 chars of 999)…\n"
    assert f.content == text[:147] + "\n" + marker + "\n" + text[-49:]
    assert u16len(f.content) == 300 and f.trimmed.kept == ((0, 147), (950, 999))
    # line 2 ([100, 149)) loses its last two characters; lines 3..18 are gone whole; 0, 1 and 19 are kept
    assert [(c.entry.text[:10], c.start, c.end, c.hidden, c.whole) for c in f.cut[:2]] == [
        ("- entry 02", 100, 149, ((147, 149),), False), ("- entry 03", 150, 199, ((150, 199),), True)]
    assert [c.entry.text[:10] for c in f.cut] == [f"- entry {i:02d}" for i in range(2, 19)]
    assert all(c.whole for c in f.cut[1:])
    assert f.note == "999 characters, over its cap of 300: 196 kept, 803 cut"


def test_entries_in_a_file_that_fits_are_never_reported_cut(tmp_path):
    ws = workspace(tmp_path, **{"MEMORY.md": lines_of_50(5)})
    f = by_name(ob.preview(ws))["MEMORY.md"]
    assert not f.is_cut and f.cut == () and f.trimmed.dropped == ()


# -- USER.md ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("max_chars, user_cap", [(None, 4000), (3000, 3000), (30000, 4000)])
def test_user_md_is_capped_at_4000_which_config_can_lower_but_not_raise(tmp_path, max_chars, user_cap):
    config = {"agents": {"defaults": {"bootstrapMaxChars": max_chars}}} if max_chars else {}
    ws = workspace(tmp_path, **{"USER.md": "u" * 5000, "MEMORY.md": "m" * 5000})
    files = by_name(ob.preview(ws, config))
    assert (files["USER.md"].file_cap, files["USER.md"].is_cut) == (user_cap, True)
    assert u16len(files["USER.md"].content) <= user_cap
    assert files["MEMORY.md"].file_cap == (max_chars or 20000)
    assert files["MEMORY.md"].is_cut is (5000 > (max_chars or 20000))


def test_a_personal_user_md_over_its_cap_is_left_out_whole_and_one_under_follows_the_shared_one(tmp_path):
    ws = workspace(tmp_path, **{"USER.md": "- shared\n", "users__ana__USER.md": "- p\n" * 1100, "MEMORY.md": "- m\n",
                                "users__bo__USER.md": "- bo likes tea\n"})
    over = ob.preview(ws, person="ana")
    personal = by_name(over, personal=True)["USER.md"]
    assert personal.content is None and personal.length == 4399 and personal.cap == 4000
    assert "left out whole" in personal.note
    assert "users/ana" not in over.project_context and "The personal users/" not in over.project_context
    under = ob.preview(ws, person="bo")
    assert [(f.source.name, f.source.personal) for f in under.files][3:5] == [("USER.md", False), ("USER.md", True)]
    assert "- bo likes tea" in under.project_context and "The personal users/<profile-id>/USER.md" in under.project_context
    assert ob.preview(ws, person="../ana").files == ob.preview(ws).files      # not a profile id: no personal file


# -- the total budget ------------------------------------------------------------------------------------------
def test_the_total_running_out_mid_list_cuts_the_file_to_what_is_left_and_skips_the_rest(tmp_path):
    # total 1000: AGENTS 400 and SOUL 400 leave 200; IDENTITY (500) is cut to 200: marker for "kept 0+0 of
    # 500" 52 + 48 + 3 = 103, 200-103 = 97 -> 72+24 (marker 105), 200-105-2 = 93 -> 69+23, settled: 199 units.
    # One unit left (< 64): USER.md and MEMORY.md are skipped.
    ws = workspace(tmp_path, **{"AGENTS.md": "a" * 400, "SOUL.md": "s" * 400, "IDENTITY.md": "i" * 500,
                                "USER.md": "- u\n", "MEMORY.md": "- m\n"})
    files = by_name(ob.preview(ws, {"agents": {"defaults": {"bootstrapTotalMaxChars": 1000}}}))
    ident = files["IDENTITY.md"]
    assert (ident.cap, ident.file_cap, ident.budget_left, u16len(ident.content)) == (200, 20000, 200, 199)
    assert ident.content.startswith("i" * 69 + "\n\n[...truncated, read IDENTITY.md") and ident.content.endswith("\n\n" + "i" * 23)
    assert "over the 200 characters left of the total budget" in ident.note
    for name in ("USER.md", "MEMORY.md"):
        assert files[name].content is None and files[name].note.startswith("only 1 characters of the total budget")


def test_under_64_left_skips_even_a_tiny_file_but_a_missing_one_still_gets_its_line_clamped(tmp_path):
    ws = workspace(tmp_path, **{"AGENTS.md": "a" * 500, "SOUL.md": "s" * 450, "MEMORY.md": "- m\n"})
    os.remove(ws / "IDENTITY.md")
    files = by_name(ob.preview(ws, {"agents": {"defaults": {"bootstrapTotalMaxChars": 1000}}}))
    # 50 left: IDENTITY.md is missing, its "[MISSING] Expected at: <path>" line is clamped to 49 + "…"
    expected = clamp_to_budget(f"[MISSING] Expected at: {ws / 'IDENTITY.md'}", 50)
    assert files["IDENTITY.md"].content == expected and u16len(expected) == 50 and expected.endswith("…")
    assert files["MEMORY.md"].content is None and files["MEMORY.md"].note == "the total budget is used up"


def test_with_40_left_a_present_file_is_skipped_by_the_64_minimum(tmp_path):
    ws = workspace(tmp_path, **{"AGENTS.md": "a" * 500, "SOUL.md": "s" * 460, "IDENTITY.md": "tiny"})
    files = by_name(ob.preview(ws, {"agents": {"defaults": {"bootstrapTotalMaxChars": 1000}}}))
    assert files["IDENTITY.md"].content is None
    assert files["IDENTITY.md"].note.startswith("only 40 characters of the total budget were left (under 64)")


def test_the_agent_own_limits_come_before_agents_defaults_and_an_invalid_one_means_the_default(tmp_path):
    config = {"agents": {"defaults": {"bootstrapMaxChars": 100, "bootstrapTotalMaxChars": 5000},
                         "entries": {"main": {"bootstrapMaxChars": 250.9}, "work": {"bootstrapMaxChars": 0}}}}
    assert ob.limits_for(config, "main") == ob.Limits(250, 5000)
    assert ob.limits_for(config, "work") == ob.Limits(20000, 5000)     # 0 is the agent's own: not valid -> default
    assert ob.limits_for(config, "nobody") == ob.Limits(100, 5000)
    assert ob.limits_for({"agents": {"defaults": {"bootstrapMaxChars": True}}}, None) == ob.Limits()


def test_context_injection_never_injects_nothing(tmp_path):
    ws = workspace(tmp_path, **{"MEMORY.md": "- m\n"})
    pv = ob.preview(ws, {"agents": {"defaults": {"contextInjection": "never"}}})
    assert pv.project_context == "" and all(f.content is None for f in pv.files)


# -- tiny caps, AGENTS.md, counting ---------------------------------------------------------------------------
def test_a_tiny_cap_uses_the_compact_marker():
    # cap 90: the full marker alone (99 units for 200) leaves under 16 -> "[…truncated H+T/200]": budget
    # 90-20 = 70 -> 52+17 (marker 22), 90-22 = 68 -> 51+17, settled at 51 + 22 + 17 = 90
    r = trim_bootstrap("m" * 200, "MEMORY.md", 90)
    assert r.content == "m" * 51 + "[…truncated 51+17/200]" + "m" * 17
    # cap 20: even head and tail of 0 do not fit beside it: the marker alone; cap 5: the marker cut to 5
    assert trim_bootstrap("m" * 200, "MEMORY.md", 20).content == "[…truncated 0+0/200]"
    assert trim_bootstrap("abcdefgh", "SOUL.md", 5).content == "[…tru"


def test_non_bmp_characters_count_two_and_are_never_split():
    crabs = "🦀" * 60                                                   # 120 units
    assert u16len(crabs) == 120 and not trim_bootstrap(crabs, "SOUL.md", 120).truncated
    r = trim_bootstrap(crabs, "SOUL.md", 90)
    # the cut asks for 51+17 units: 51 would split the 26th crab, 17 the 9th: 25 and 8 crabs are kept
    assert r.content == "🦀" * 25 + "[…truncated 51+17/120]" + "🦀" * 8
    assert r.kept == ((0, 50), (104, 120))


def test_trailing_whitespace_is_js_whitespace_trimmed_before_counting():
    r = trim_bootstrap("abc \n\t\u00a0\u3000\u2028\ufeff\n\n", "SOUL.md", 100)
    assert (r.content, r.length) == ("abc", 3)
    assert trim_bootstrap("abc\x1c\x85", "SOUL.md", 100).length == 5      # Python's whitespace, not JavaScript's
    assert trim_bootstrap("\ufeffabc", "SOUL.md", 100).length == 4        # a BOM at the start counts one


def test_agents_md_is_cut_with_a_digest_of_its_policy_lines():
    filler = "".join(f"Filler prose sentence number {i:02d} goes here.\n" for i in range(30))
    text = "# Rules\nIntro prose.\n- Never push to main.\n" + filler + "- Run tests.\nEnd."
    r = trim_bootstrap(text, "AGENTS.md", 900)
    # 45 % head, 15 % tail, 35 % for the digest: the heading, the "never" line with the prose above it, the
    # "- " line with the line above it; all fit in 315, so none is omitted
    digest = "# Rules\nIntro prose.\n- Never push to main.\nFiller prose sentence number 29 goes here.\n- Run tests."
    expected = "\n".join([text[:405], "[...truncated, read AGENTS.md for full content...]",
                          "[Policy digest from AGENTS.md]", digest,
                          f"…(truncated AGENTS.md: kept 405+policy {len(digest)}+135 chars of {len(text)})…",
                          text[-135:]])
    assert r.content == expected and r.digest == digest and r.kept == ((0, 405), (len(text) - 135, len(text)))


# -- which files, for which session ------------------------------------------------------------------------------
def test_memory_md_only_in_a_private_session_and_cron_and_subagents_get_their_own_lists(tmp_path):
    ws = workspace(tmp_path, **{"USER.md": "- u\n", "MEMORY.md": "- m\n", "BOOTSTRAP.md": "# B\n"})

    def names(kind):
        return [f.source.name for f in ob.preview(ws, kind=kind, setup_completed=False).files]
    assert names(ob.PRIVATE) == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", "MEMORY.md"]
    assert names(ob.GROUP) == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md"]
    assert names(ob.CRON) == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"]
    assert names(ob.SUBAGENT) == ["AGENTS.md"]
    with pytest.raises(ValueError):
        ob.preview(ws, kind="dm")


def test_bootstrap_md_goes_once_setup_is_completed_and_is_a_missing_line_before(tmp_path):
    ws = workspace(tmp_path)
    before = by_name(ob.preview(ws, setup_completed=False))["BOOTSTRAP.md"]
    assert before.content == f"[MISSING] Expected at: {ws / 'BOOTSTRAP.md'}"
    assert "BOOTSTRAP.md" not in by_name(ob.preview(ws, setup_completed=True))


def test_absent_memory_and_user_are_no_files_but_absent_soul_is_a_missing_line(tmp_path):
    ws = workspace(tmp_path)
    os.remove(ws / "SOUL.md")
    files = by_name(ob.preview(ws))
    assert "MEMORY.md" not in files and "USER.md" not in files
    assert files["SOUL.md"].content == f"[MISSING] Expected at: {ws / 'SOUL.md'}"


def test_odd_files_are_injected_with_openclaws_reasons_and_a_symlinked_memory_is_left_out(tmp_path):
    ws = workspace(tmp_path, **{"real__note.md": "- fact\n"})
    os.remove(ws / "SOUL.md")
    (ws / "SOUL.md").symlink_to("real/note.md")
    (ws / "MEMORY.md").symlink_to("real/note.md")
    os.remove(ws / "AGENTS.md")
    (ws / "AGENTS.md").mkdir()
    with open(ws / "IDENTITY.md", "wb") as fh:
        fh.truncate(ob.MAX_FILE_BYTES + 1)
    files = by_name(ob.preview(ws))
    assert files["SOUL.md"].content == "[UNREADABLE: symlink path component not allowed]"
    assert files["AGENTS.md"].content == "[UNREADABLE: path does not have the required file type]"
    assert files["IDENTITY.md"].content == "[UNREADABLE: File exceeds 2097152 bytes]"
    assert "MEMORY.md" not in files


# -- reading only -----------------------------------------------------------------------------------------
def test_a_preview_writes_nothing(tmp_path):
    ws = workspace(tmp_path, **{"USER.md": "- u\n", "MEMORY.md": lines_of_50(600), "memory__2026-12-06.md": "- n\n"})
    before = tree_state(tmp_path)
    ob.preview(ws, new_session=True, now_ms=1796558400000.0)
    assert tree_state(tmp_path) == before
