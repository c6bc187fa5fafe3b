"""OpenClaw's daily notes as a list (issue 28 item 4): what counts as a note, its day, slug and
hook time, its size in UTF-16 units, OpenClaw's order, and what a bare /new quotes of each, on the
`dreamed` fixture home (built by the real OpenClaw 2026.9.6) and on hand-built folders. The rules
are OpenClaw's code, quoted in engine/assistants/openclaw_notes.py."""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

from conftest import tree_state
from dreamdesk.engine.assistants.openclaw_notes import CUT, LEFT_OUT, SKIPPED, WHOLE, daily_notes
from dreamdesk.engine.assistants.openclaw_prelude import startup_prelude

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw"
NOON = datetime(2026, 12, 6, 12, 0, tzinfo=timezone.utc).timestamp() * 1000     # the fixtures' build day, D0
UTC = {"agents": {"defaults": {"userTimezone": "UTC"}}}


def fixture_workspace(tmp_path: Path, name: str = "dreamed") -> Path:
    ws = tmp_path / name
    shutil.copytree(FIXTURES / name / "home" / "workspace", ws)
    return ws


def notes_folder(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True, exist_ok=True)
    for i, (name, text) in enumerate(files.items()):
        p = ws / "memory" / name
        p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        os.utime(p, ns=(10 ** 18 + i * 10 ** 9,) * 2)          # later files are newer, one second apart
    return ws


def by_path(result) -> dict:
    return {n.path: n for n in result.notes}


def test_the_dreamed_homes_notes_in_openclaws_order_with_what_new_quotes(tmp_path):
    ws = fixture_workspace(tmp_path)
    before = tree_state(ws)
    result = daily_notes(ws, UTC, NOON)
    # newest day first, a day's plain note before its slugged ones (compareDailyMemoryFilesByNewestDay)
    assert [(n.path, n.day, n.slug) for n in result.notes] == [
        ("memory/2026-12-06.md", "2026-12-06", None), ("memory/2026-12-06-standup.md", "2026-12-06", "standup"),
        ("memory/2026-12-05.md", "2026-12-05", None), ("memory/2026-12-05-retro.md", "2026-12-05", "retro"),
        ("memory/2026-12-04.md", "2026-12-04", None)]
    assert [n.chars for n in result.notes] == [74, 47, 86, 82, 117]
    # today and yesterday are quoted whole; D2 is no recent day
    assert result.prelude_days == ("2026-12-06", "2026-12-05") and result.prelude_on
    assert [n.prelude for n in result.notes] == [WHOLE, WHOLE, WHOLE, WHOLE, None]
    prelude = startup_prelude(ws, UTC, NOON)
    assert all(f"[Untrusted daily memory: {n.path}]" in prelude for n in result.notes if n.prelude == WHOLE)
    assert "memory/2026-12-04.md" not in prelude
    assert result.others == () and result.problems == ()
    assert tree_state(ws) == before                     # reading wrote nothing, not even an mtime


def test_the_fixture_homes_without_notes_list_none(tmp_path):
    for name in ("fresh", "over-cap"):
        result = daily_notes(fixture_workspace(tmp_path, name), UTC, NOON)
        assert (result.notes, result.others, result.problems) == ((), (), ())


def test_slugs_and_the_session_memory_hooks_time(tmp_path):
    ws = notes_folder(tmp_path, {"2026-12-06-1432.md": "a", "2026-12-06-1432-2.md": "b", "2026-12-06-0007.md": "c",
                                 "2026-12-06-2460.md": "d", "2026-12-06-vendor-pitch.md": "e"})
    notes = by_path(daily_notes(ws, UTC, NOON))
    assert {p: (n.slug, n.time) for p, n in notes.items()} == {
        "memory/2026-12-06-1432.md": ("1432", "14:32"), "memory/2026-12-06-1432-2.md": ("1432-2", "14:32"),
        "memory/2026-12-06-0007.md": ("0007", "00:07"), "memory/2026-12-06-2460.md": ("2460", None),
        "memory/2026-12-06-vendor-pitch.md": ("vendor-pitch", None)}


def test_sizes_count_utf16_units_like_openclaw(tmp_path):
    # 🍵 is outside the Basic Multilingual Plane: 2 units, 4 bytes; the BOM and each \r count one unit
    ws = notes_folder(tmp_path, {"2026-12-06.md": "- Tea 🍵 at four\n",
                                 "2026-12-05.md": b"\xef\xbb\xbf# Day\r\n\r\n- Line one\r\n"})
    notes = by_path(daily_notes(ws, UTC, NOON))
    emoji, crlf = notes["memory/2026-12-06.md"], notes["memory/2026-12-05.md"]
    assert (emoji.chars, emoji.size) == (17, 19)
    assert (crlf.chars, crlf.size) == (22, 24)
    # both are quoted whole: trim() takes the BOM and the line ends off, as JavaScript's does
    assert (emoji.prelude, crlf.prelude) == (WHOLE, WHOLE)


def test_names_that_are_no_date(tmp_path):
    (tmp_path / "ws" / "memory" / "dreaming" / "deep").mkdir(parents=True)
    ws = notes_folder(tmp_path, {"notes.md": "x", "2026-13-45.md": "x", "2026-12-06.MD": "x", "todo.txt": "x",
                                 "2026-12-06-.md": "x"})
    os.symlink("notes.md", ws / "memory" / "2026-12-05.md")
    result = daily_notes(ws, UTC, NOON)
    notes = by_path(result)
    # OpenClaw's pattern is /^\d{4}-\d{2}-\d{2}(?:-[^/]+)?\.md$/i: digits, not a calendar, and .MD too
    assert set(notes) == {"memory/2026-13-45.md", "memory/2026-12-06.MD"}
    assert notes["memory/2026-13-45.md"].date is None
    assert notes["memory/2026-13-45.md"].problems == (
        "2026-13-45 is no calendar date: OpenClaw still reads memory/2026-13-45.md as that day's note",)
    # the prelude reads `.md` names only
    assert notes["memory/2026-12-06.MD"].prelude == SKIPPED
    assert "ending in .md" in notes["memory/2026-12-06.MD"].prelude_why
    assert {o.path: o.why.split(":")[0] for o in result.others} == {
        "memory/2026-12-05.md": "a symbolic link", "memory/2026-12-06-.md": "not a daily note",
        "memory/notes.md": "not a daily note", "memory/todo.txt": "not a daily note"}


def test_the_prelude_cuts_a_long_note_and_runs_out_of_room(tmp_path):
    # read in this order: today, yesterday, yesterday's slugged notes newest first. Today and yesterday
    # (1,500 characters each) are cut at maxFileChars (1,200) and take 2 × 1,313 of the 2,800; the newer
    # slugged note is cut to the 174 left (its block without text is 101, the cut's marker 18: 55 of its
    # characters); nothing is left for the older one
    ws = notes_folder(tmp_path, {"2026-12-05-older.md": "older note", "2026-12-05-newer.md": "n" * 1500,
                                 "2026-12-06.md": "t" * 1500, "2026-12-05.md": "y" * 1500})
    notes = by_path(daily_notes(ws, UTC, NOON))
    today, yesterday, newer, older = (notes[f"memory/{n}.md"] for n in ("2026-12-06", "2026-12-05", "2026-12-05-newer",
                                                                         "2026-12-05-older"))
    assert (today.prelude, yesterday.prelude, newer.prelude, older.prelude) == (CUT, CUT, CUT, LEFT_OUT)
    assert today.prelude_why == yesterday.prelude_why == "quoted cut: its first 1,200 of 1,500 characters (maxFileChars)"
    assert newer.prelude_why.startswith("quoted cut to about 55 of its 1,500 characters, to fit the prelude's total")
    assert older.prelude_why.startswith("not quoted: the prelude's 2,800 characters were used up before it")
    prelude = startup_prelude(ws, UTC, NOON)
    assert "\n" + "n" * 55 + "\n...[truncated]...\n```" in prelude and "n" * 56 not in prelude
    assert prelude.endswith("...[additional startup memory truncated]...") and "older note" not in prelude


def test_blank_oversized_and_surplus_slugged_notes_are_skipped(tmp_path):
    files = {f"2026-12-06-s{i}.md": f"slug {i}" for i in range(5)}     # s4 newest
    files |= {"2026-12-06.md": " \n\t\n", "2026-12-05.md": "b" * 200}
    ws = notes_folder(tmp_path, files)
    config = {"agents": {"defaults": {"userTimezone": "UTC", "startupContext": {"maxFileBytes": 100}}}}
    notes = by_path(daily_notes(ws, config, NOON))
    assert notes["memory/2026-12-06.md"].prelude_why == "blank: not quoted"
    assert notes["memory/2026-12-05.md"].prelude == SKIPPED
    assert "over the prelude's 100 bytes a note (maxFileBytes)" in notes["memory/2026-12-05.md"].prelude_why
    # the 4 newest slugged notes are read; the oldest one is not
    assert [notes[f"memory/2026-12-06-s{i}.md"].prelude for i in range(5)] == [SKIPPED] + [WHOLE] * 4
    assert "4 newest slugged notes" in notes["memory/2026-12-06-s0.md"].prelude_why


def test_no_prelude_when_the_config_turns_it_off(tmp_path):
    ws = notes_folder(tmp_path, {"2026-12-06.md": "today"})
    result = daily_notes(ws, {"agents": {"defaults": {"startupContext": {"enabled": False}}}}, NOON)
    assert (result.prelude_on, result.prelude_days) == (False, ())
    assert [n.prelude for n in result.notes] == [None]


def test_the_zone_decides_which_days_are_recent(tmp_path):
    # 23:30 UTC on the 5th is already the 6th in Tokyo (UTC's day is read too, as OpenClaw does)
    ws = notes_folder(tmp_path, {"2026-12-04.md": "d2", "2026-12-05.md": "d1", "2026-12-06.md": "d0"})
    late = datetime(2026, 12, 5, 23, 30, tzinfo=timezone.utc).timestamp() * 1000
    result = daily_notes(ws, {}, late, "Asia/Tokyo")
    assert result.prelude_days == ("2026-12-06", "2026-12-05")
    assert [n.prelude for n in result.notes] == [WHOLE, WHOLE, None]


def test_no_memory_folder_and_json(tmp_path):
    assert daily_notes(tmp_path, UTC, NOON).to_json() == {
        "notes": [], "others": [], "prelude_days": ["2026-12-06", "2026-12-05"], "prelude_on": True, "problems": []}
    ws = notes_folder(tmp_path, {"2026-12-06-0930.md": "x"})
    (note,) = daily_notes(ws, UTC, NOON).to_json()["notes"]
    assert {k: note[k] for k in ("path", "day", "is_date", "slug", "time", "chars", "size", "prelude")} == {
        "path": "memory/2026-12-06-0930.md", "day": "2026-12-06", "is_date": True, "slug": "0930", "time": "09:30",
        "chars": 1, "size": 1, "prelude": WHOLE}


def test_an_unreadable_note_is_a_problem_in_words(tmp_path, monkeypatch):
    import errno

    from dreamdesk.engine.assistants import openclaw_notes

    def refuse(path, limit=0):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))
    ws = notes_folder(tmp_path, {"2026-12-06.md": "secret"})
    monkeypatch.setattr(openclaw_notes, "read_bytes", refuse)        # root reads any file: refused here instead
    (note,) = daily_notes(ws, UTC, NOON).notes
    assert note.chars is None and note.prelude == SKIPPED and note.prelude_why == "unreadable: not quoted"
    assert note.problems == ("memory/2026-12-06.md could not be read (Permission denied)",)
