"""memory/history.jsonl: the tolerant reader, the locked appender and the cap (spec section 1)."""

from __future__ import annotations

import json
import multiprocessing
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import tree_state
from dreamdesk.engine.home.history import (
    TIMESTAMP_RE,
    HistoryEntry,
    append_entry,
    enforce_cap,
    parse_history,
    parse_line,
    read_history,
)
from dreamdesk.engine.core.problems import ERROR, INFO, WARNING

TS = "2026-04-03 00:02"


def line(cursor, content="x", timestamp=TS, session_key=None, **extra) -> bytes:
    obj = {"cursor": cursor, "timestamp": timestamp, "content": content}
    if session_key is not None:
        obj["session_key"] = session_key
    obj.update(extra)
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def lines(*raws: bytes) -> bytes:
    return b"".join(r + b"\n" for r in raws)


def write_history(memory: Path, data: bytes) -> Path:
    memory.mkdir(parents=True, exist_ok=True)
    path = memory / "history.jsonl"
    path.write_bytes(data)
    return path


# --------------------------------------------------------------------------------------------
# Reader: valid input


def test_valid_lines_parse_with_line_numbers_and_optional_session_key(tmp_path):
    data = lines(
        line(1, "- [durable] User prefers dark mode", session_key="telegram:chat-1"),
        line(2, "second"),
        line(7, "after a gap", timestamp="2026-04-04 13:59", session_key=""),
    )
    path = write_history(tmp_path / "memory", data)

    hist = read_history(path)

    assert hist.exists
    assert hist.bad_lines == []
    assert hist.problems == []
    assert hist.lines == 3
    assert hist.size == len(data)
    assert hist.last_cursor == 7
    assert [(e.line, e.cursor, e.timestamp, e.content, e.session_key) for e in hist.entries] == [
        (1, 1, TS, "- [durable] User prefers dark mode", "telegram:chat-1"),
        (2, 2, TS, "second", None),
        (3, 7, "2026-04-04 13:59", "after a gap", ""),
    ]
    assert all(isinstance(e, HistoryEntry) for e in hist.entries)
    # byte offsets point at the start of each physical line
    for e in hist.entries:
        assert data[e.offset:].startswith(b'{"cursor": %d' % e.cursor)
    assert [e.cursor for e in hist.pending(2)] == [7]


def test_cursor_zero_is_a_valid_first_entry():
    hist = parse_history(lines(line(0), line(1)))
    assert [e.cursor for e in hist.entries] == [0, 1]
    assert hist.problems == []


def test_parse_line_returns_fields_or_reason():
    obj, why = parse_line(line(3, "héllo", session_key="k"))
    assert why is None
    assert obj == {"cursor": 3, "timestamp": TS, "content": "héllo", "session_key": "k"}

    obj, why = parse_line(b'{"cursor": "3", "timestamp": "t", "content": "c"}')
    assert obj is None
    assert "cursor" in why


def test_missing_file_is_reported_as_info(tmp_path):
    hist = read_history(tmp_path / "memory" / "history.jsonl")
    assert not hist.exists
    assert hist.entries == []
    assert [p.severity for p in hist.problems] == [INFO]


def test_empty_file_has_no_entries_and_no_problems(tmp_path):
    hist = read_history(write_history(tmp_path / "memory", b""))
    assert hist.exists and hist.entries == [] and hist.problems == [] and hist.lines == 0


def test_odd_timestamp_is_kept_with_a_warning():
    hist = parse_history(lines(line(1, timestamp="yesterday")))
    assert [e.timestamp for e in hist.entries] == ["yesterday"]
    assert hist.bad_lines == []
    assert [(p.line, p.severity) for p in hist.problems] == [(1, WARNING)]
    assert "yesterday" in hist.problems[0].message


# --------------------------------------------------------------------------------------------
# Reader: broken lines are reported with their line number, skipped, and never rewritten

BROKEN = {
    # name: (raw line 2, substrings the reason must contain)
    "invalid_json": (b'{"cursor": 2, "timestamp": "x", "content": ', ["JSON"]),
    "invalid_utf8": (b'{"cursor": 2, "timestamp": "' + TS.encode() + b'", "content": "caf\xe9"}',
                     ["UTF-8", "0xe9"]),
    "cursor_string": (b'{"cursor": "57", "timestamp": "2026-04-03 00:02", "content": "c"}',
                      ["cursor", "str", "57"]),
    "cursor_true": (b'{"cursor": true, "timestamp": "2026-04-03 00:02", "content": "c"}',
                    ["cursor", "bool"]),
    "cursor_false": (b'{"cursor": false, "timestamp": "2026-04-03 00:02", "content": "c"}',
                     ["cursor", "bool"]),
    "cursor_float": (b'{"cursor": 2.0, "timestamp": "2026-04-03 00:02", "content": "c"}',
                     ["cursor", "float"]),
    "cursor_negative": (b'{"cursor": -2, "timestamp": "2026-04-03 00:02", "content": "c"}',
                        ["cursor", "-2"]),
    "missing_cursor": (b'{"timestamp": "2026-04-03 00:02", "content": "c"}', ["missing", "cursor"]),
    "missing_timestamp": (b'{"cursor": 2, "content": "c"}', ["missing", "timestamp"]),
    "missing_content": (b'{"cursor": 2, "timestamp": "2026-04-03 00:02"}', ["missing", "content"]),
    "content_not_string": (b'{"cursor": 2, "timestamp": "2026-04-03 00:02", "content": ["a"]}',
                           ["content", "string"]),
    "content_null": (b'{"cursor": 2, "timestamp": "2026-04-03 00:02", "content": null}',
                     ["content", "string"]),
    "timestamp_not_string": (b'{"cursor": 2, "timestamp": 1712102520, "content": "c"}',
                             ["timestamp", "string"]),
    "session_key_not_string": (
        b'{"cursor": 2, "timestamp": "2026-04-03 00:02", "content": "c", "session_key": 5}',
        ["session_key", "string"]),
    "json_array": (b'[1, "2026-04-03 00:02", "c"]', ["object", "list"]),
    "json_string": (b'"just a string"', ["object"]),
    "duplicate_cursor": (b'{"cursor": 1, "timestamp": "2026-04-03 00:02", "content": "dup"}',
                         ["cursor", "1", "increase"]),
    "smaller_cursor": (b'{"cursor": 0, "timestamp": "2026-04-03 00:02", "content": "older"}',
                       ["cursor", "0", "increase"]),
    "bom_mid_file": (b"\xef\xbb\xbf" + line(2), ["BOM"]),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_line_is_reported_skipped_and_left_untouched(tmp_path, name):
    raw, needles = BROKEN[name]
    data = lines(line(1, "first"), raw, line(3, "third"))
    path = write_history(tmp_path / "memory", data)
    before = tree_state(tmp_path)

    hist = read_history(path)

    assert [(e.line, e.cursor, e.content) for e in hist.entries] == [(1, 1, "first"), (3, 3, "third")]
    assert len(hist.bad_lines) == 1
    bad = hist.bad_lines[0]
    assert bad.line == 2
    assert bad.offset == len(line(1, "first")) + 1
    for needle in needles:
        assert needle in bad.reason, (needle, bad.reason)
    assert "truncated" not in bad.reason
    errors = [p for p in hist.problems if p.severity == ERROR]
    assert [(p.line, p.message, p.file) for p in errors] == [(2, bad.reason, "memory/history.jsonl")]
    # the reader never writes: same bytes, same mtimes, no new files
    assert tree_state(tmp_path) == before
    assert path.read_bytes() == data


def test_bom_at_start_of_line_one_is_reported(tmp_path):
    data = b"\xef\xbb\xbf" + lines(line(1, "first"), line(2, "second"))
    path = write_history(tmp_path / "memory", data)

    hist = read_history(path)

    assert [(e.line, e.cursor) for e in hist.entries] == [(2, 2)]
    assert [(b.line, b.offset) for b in hist.bad_lines] == [(1, 0)]
    assert "BOM" in hist.bad_lines[0].reason
    assert [p.line for p in hist.problems] == [1]
    assert path.read_bytes() == data


def test_several_broken_lines_each_get_their_own_line_number():
    data = lines(b"garbage", line(1), b"[]", b"", line(1, "dup"), line(2), b'{"cursor": true}')
    hist = parse_history(data)
    assert [(e.line, e.cursor) for e in hist.entries] == [(2, 1), (6, 2)]
    assert [b.line for b in hist.bad_lines] == [1, 3, 5, 7]
    assert [p.line for p in hist.problems] == [1, 3, 5, 7]


def test_truncated_last_line_is_reported_as_truncated(tmp_path):
    data = lines(line(1), line(2)) + b'{"cursor": 3, "timestamp": "2026-04-03 00:0'
    path = write_history(tmp_path / "memory", data)

    hist = read_history(path)

    assert [e.cursor for e in hist.entries] == [1, 2]
    assert [b.line for b in hist.bad_lines] == [3]
    assert "truncated" in hist.bad_lines[0].reason
    assert [p.line for p in hist.problems] == [3]
    assert path.read_bytes() == data


def test_complete_last_line_without_newline_is_an_entry():
    hist = parse_history(lines(line(1)) + line(2, "no newline"))
    assert [(e.cursor, e.content) for e in hist.entries] == [(1, "x"), (2, "no newline")]
    assert hist.problems == []


def test_blank_lines_are_ignored_but_counted_for_line_numbers():
    data = b"\n" + lines(line(1)) + b"\n   \n\t\n" + lines(line(2)) + b"\r\n\n"
    hist = parse_history(data)
    assert [(e.line, e.cursor) for e in hist.entries] == [(2, 1), (6, 2)]
    assert hist.bad_lines == []
    assert hist.problems == []


def test_unicode_line_separators_inside_strings_do_not_split_lines():
    content = "a\u2028b\u2029c\x85d\x0ce\x1cf\x1dg\x1eh"
    data = lines(line(1, content, session_key="k\u2028k"), line(2, "\u2028"))
    assert "\u2028".encode() in data and "\x85".encode() in data  # written raw, not escaped

    hist = parse_history(data)

    assert hist.problems == []
    assert len(hist.entries) == 2
    assert hist.entries[0].content == content
    assert hist.entries[0].session_key == "k\u2028k"
    assert hist.entries[1].content == "\u2028"
    assert [e.line for e in hist.entries] == [1, 2]


def test_crlf_terminated_file_parses(tmp_path):
    data = line(1, "one") + b"\r\n" + line(2, "two", session_key="s") + b"\r\n"
    path = write_history(tmp_path / "memory", data)

    hist = read_history(path)

    assert hist.problems == []
    assert [(e.line, e.cursor, e.content, e.session_key) for e in hist.entries] == [
        (1, 1, "one", None), (2, 2, "two", "s")]
    assert path.read_bytes() == data


def test_huge_integer_cursor_is_a_bad_line_not_a_crash():
    # Python refuses to convert integers longer than 4300 digits (ValueError, not a
    # JSONDecodeError); the tolerant reader must report such a line, not raise.
    huge = b'{"cursor": ' + b"9" * 5000 + b', "timestamp": "2026-04-03 00:02", "content": "c"}'
    data = lines(line(1), huge, line(2))

    hist = parse_history(data)

    assert [(e.line, e.cursor) for e in hist.entries] == [(1, 1), (3, 2)]
    assert [b.line for b in hist.bad_lines] == [2]


def test_deeply_nested_json_is_a_bad_line_not_a_crash():
    data = lines(line(1), b"[" * 100_000, line(2))
    hist = parse_history(data)
    assert [e.cursor for e in hist.entries] == [1, 2]
    assert [b.line for b in hist.bad_lines] == [2]


# --------------------------------------------------------------------------------------------
# Reader: property test: garbage after a valid history never breaks the valid prefix

_content = st.text(max_size=40)
_entry = st.tuples(st.integers(1, 5), _content, st.none() | st.text(max_size=10))
_garbage = st.binary(max_size=300) | st.text(max_size=200).map(lambda s: s.encode("utf-8"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(_entry, max_size=15), crlf=st.booleans(), garbage=_garbage)
def test_garbage_after_valid_history_never_hides_the_valid_prefix(entries, crlf, garbage):
    cursor = -1
    expected = []
    data = b""
    for step, content, key in entries:
        cursor += step
        expected.append((cursor, content, key))
        data += line(cursor, content, session_key=key) + (b"\r\n" if crlf else b"\n")
    data += garbage

    with tempfile.TemporaryDirectory() as tmp:
        path = write_history(Path(tmp) / "memory", data)
        st_before = os.stat(path)

        hist = read_history(path)

        assert path.read_bytes() == data
        st_after = os.stat(path)
        assert (st_after.st_mtime_ns, st_after.st_size, st_after.st_ino) == (
            st_before.st_mtime_ns, st_before.st_size, st_before.st_ino)
        assert sorted(os.listdir(Path(tmp) / "memory")) == ["history.jsonl"]

    got = [(e.cursor, e.content, e.session_key) for e in hist.entries[:len(expected)]]
    assert got == expected
    assert [e.line for e in hist.entries[:len(expected)]] == list(range(1, len(expected) + 1))
    # anything after the prefix is either a later entry or a reported bad line
    assert all(b.line > len(expected) and b.reason for b in hist.bad_lines)
    assert all(e.cursor > cursor for e in hist.entries[len(expected):])


# --------------------------------------------------------------------------------------------
# Appender


def test_first_append_writes_exact_line_and_cursor(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()

    r1 = append_entry(memory, "héllo ✓ \u2028 日本", timestamp=TS)
    r2 = append_entry(memory, "second", session_key="telegram:chat-1", timestamp=TS)

    assert (r1.entry.cursor, r2.entry.cursor) == (1, 2)
    assert (r1.dropped, r1.started_new_line, r2.started_new_line) == (0, False, False)
    assert (memory / "history.jsonl").read_bytes() == (
        '{"cursor": 1, "timestamp": "2026-04-03 00:02", "content": "héllo ✓ \u2028 日本"}\n'
        '{"cursor": 2, "timestamp": "2026-04-03 00:02", "content": "second", '
        '"session_key": "telegram:chat-1"}\n'
    ).encode("utf-8")
    assert (memory / ".cursor").read_bytes() == b"2"
    hist = read_history(memory / "history.jsonl")
    assert [(e.cursor, e.content, e.session_key) for e in hist.entries] == [
        (1, "héllo ✓ \u2028 日本", None), (2, "second", "telegram:chat-1")]


def test_default_timestamp_is_local_minutes(tmp_path):
    r = append_entry(tmp_path / "memory", "c")
    assert TIMESTAMP_RE.match(r.entry.timestamp)
    assert read_history(tmp_path / "memory" / "history.jsonl").problems == []


def test_append_when_cursor_file_is_ahead_of_history(tmp_path):
    memory = tmp_path / "memory"
    write_history(memory, lines(line(1), line(3)))
    (memory / ".cursor").write_bytes(b"10")

    r = append_entry(memory, "c", timestamp=TS)

    assert r.entry.cursor == 11
    assert (memory / ".cursor").read_bytes() == b"11"
    assert [e.cursor for e in read_history(memory / "history.jsonl").entries] == [1, 3, 11]


def test_append_when_history_is_ahead_of_cursor_file(tmp_path):
    memory = tmp_path / "memory"
    write_history(memory, lines(line(1), line(7), b"not json"))
    (memory / ".cursor").write_bytes(b"2\n")

    r = append_entry(memory, "c", timestamp=TS)

    assert r.entry.cursor == 8
    assert (memory / ".cursor").read_bytes() == b"8"
    assert [e.cursor for e in read_history(memory / "history.jsonl").entries] == [1, 7, 8]


def test_append_after_a_skipped_smaller_cursor_line_stays_readable(tmp_path):
    # The last *line* holds cursor 3 but the reader skips it (3 does not follow 5). The new
    # entry must still get a cursor the reader accepts, i.e. above every valid cursor (> 5).
    memory = tmp_path / "memory"
    write_history(memory, lines(line(5, "five"), line(3, "stale")))

    r = append_entry(memory, "new", timestamp=TS)

    hist = read_history(memory / "history.jsonl")
    assert r.entry.cursor > 5
    assert [(e.cursor, e.content) for e in hist.entries] == [(5, "five"), (r.entry.cursor, "new")]
    assert [b.line for b in hist.bad_lines] == [2]


def test_append_after_truncated_line_starts_a_new_line(tmp_path):
    memory = tmp_path / "memory"
    truncated = b'{"cursor": 2, "timestamp": "2026-04-03 00:0'
    original = lines(line(1, "one")) + truncated
    write_history(memory, original)

    r = append_entry(memory, "after crash", timestamp=TS)

    assert r.started_new_line is True
    assert r.entry.cursor == 2
    data = (memory / "history.jsonl").read_bytes()
    assert data == original + b"\n" + line(2, "after crash") + b"\n"
    hist = read_history(memory / "history.jsonl")
    assert [(e.line, e.cursor, e.content) for e in hist.entries] == [(1, 1, "one"), (3, 2, "after crash")]
    assert [b.line for b in hist.bad_lines] == [2]


def test_append_after_complete_line_without_newline_starts_a_new_line(tmp_path):
    memory = tmp_path / "memory"
    original = line(4, "no newline")
    write_history(memory, original)

    r = append_entry(memory, "next", timestamp=TS)

    assert r.started_new_line is True
    assert r.entry.cursor == 5
    assert (memory / "history.jsonl").read_bytes() == original + b"\n" + line(5, "next") + b"\n"


def test_append_refuses_non_string_content(tmp_path):
    memory = tmp_path / "memory"
    with pytest.raises(TypeError):
        append_entry(memory, 42)
    assert not (memory / "history.jsonl").exists()
    assert not (memory / ".cursor").exists()


# --------------------------------------------------------------------------------------------
# The cap


def _seed(memory: Path, n: int, dream: int | None, extra: bytes = b"") -> None:
    write_history(memory, lines(*(line(i, f"e{i}") for i in range(1, n + 1))) + extra)
    (memory / ".cursor").write_bytes(str(n).encode())
    if dream is not None:
        (memory / ".dream_cursor").write_bytes(str(dream).encode())


def test_cap_drops_oldest_dreamed_entries_first(tmp_path):
    memory = tmp_path / "memory"
    _seed(memory, 5, dream=4)

    r = append_entry(memory, "e6", timestamp=TS, cap=4)

    assert r.dropped == 2
    hist = read_history(memory / "history.jsonl")
    assert [e.cursor for e in hist.entries] == [3, 4, 5, 6]
    assert (memory / ".cursor").read_bytes() == b"6"
    assert (memory / ".dream_cursor").read_bytes() == b"4"


def test_cap_never_drops_undreamed_entries(tmp_path):
    memory = tmp_path / "memory"
    _seed(memory, 5, dream=1)

    r = append_entry(memory, "e6", timestamp=TS, cap=3)

    assert r.dropped == 1
    assert [e.cursor for e in read_history(memory / "history.jsonl").entries] == [2, 3, 4, 5, 6]


def test_cap_without_dream_cursor_drops_nothing(tmp_path):
    memory = tmp_path / "memory"
    _seed(memory, 5, dream=None)
    before = (memory / "history.jsonl").read_bytes()

    r = append_entry(memory, "e6", timestamp=TS, cap=2)

    assert r.dropped == 0
    assert (memory / "history.jsonl").read_bytes() == before + line(6, "e6", timestamp=TS) + b"\n"


def test_cap_keeps_malformed_lines_byte_for_byte(tmp_path):
    memory = tmp_path / "memory"
    bad1 = b"\xef\xbb\xbf{\"cursor\": 0}"
    bad2 = b'{"cursor": "2", "content": "caf\xe9"}\r'      # invalid UTF-8 and a \r, kept as is
    bad3 = b"[1, 2]"
    data = (lines(bad1, line(1, "e1"), line(2, "e2"), bad2) + line(3, "e3") + b"\r\n"
            + lines(line(4, "e4"), bad3, line(5, "e5")))
    write_history(memory, data)
    (memory / ".cursor").write_bytes(b"5")
    (memory / ".dream_cursor").write_bytes(b"3")

    r = append_entry(memory, "e6", timestamp=TS, cap=3)

    assert r.dropped == 3
    expected = lines(bad1, bad2, line(4, "e4"), bad3, line(5, "e5"), line(6, "e6"))
    assert (memory / "history.jsonl").read_bytes() == expected
    hist = read_history(memory / "history.jsonl")
    assert [e.cursor for e in hist.entries] == [4, 5, 6]
    assert [b.line for b in hist.bad_lines] == [1, 2, 4]


def test_cap_rewrite_keeps_a_line_appended_to_the_old_file_during_the_replace(tmp_path, monkeypatch):
    """The assistant appends without our lock. A line it writes through a descriptor opened on
    the old file just before the rename must reach the new file, not vanish with the old inode."""
    import dreamdesk.engine.disk.files as files
    memory = tmp_path / "memory"
    _seed(memory, 5, dream=4)
    real = files.atomic_write_bytes
    late = line(99, "written by the assistant mid-replace") + b"\n"

    def racing_replace(path, data, *args, **kwargs):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)     # opened on the old inode
        try:
            real(path, data, *args, **kwargs)
            os.write(fd, late)                             # lands in the old inode, after the rename
        finally:
            os.close(fd)

    monkeypatch.setattr(files, "atomic_write_bytes", racing_replace)
    r = append_entry(memory, "e6", timestamp=TS, cap=4)
    assert r.dropped == 2
    hist = read_history(memory / "history.jsonl")
    assert [e.cursor for e in hist.entries] == [3, 4, 5, 6, 99]
    assert (memory / "history.jsonl").read_bytes().endswith(late)


def test_enforce_cap_directly_is_a_no_op_under_the_cap(tmp_path):
    memory = tmp_path / "memory"
    _seed(memory, 3, dream=3)
    before = tree_state(memory)
    assert enforce_cap(memory, cap=3) == 0
    assert tree_state(memory) == before


# --------------------------------------------------------------------------------------------
# Two processes appending at once


def _append_many(memory: str, who: str, n: int, barrier) -> None:
    barrier.wait(timeout=60)
    for i in range(n):
        append_entry(Path(memory), f"{who}-{i}", session_key=who, timestamp=TS)


def test_two_processes_appending_at_once_never_share_a_cursor(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    n = 300
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_append_many, args=(str(memory), who, n, barrier)) for who in ("A", "B")]
    for p in procs:
        p.start()
    try:
        for p in procs:
            p.join(timeout=120)
        assert [p.exitcode for p in procs] == [0, 0]
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join()
            p.close()

    hist = read_history(memory / "history.jsonl")
    assert hist.problems == []
    assert len(hist.entries) == 2 * n
    assert [e.cursor for e in hist.entries] == list(range(1, 2 * n + 1))
    contents = sorted(e.content for e in hist.entries)
    assert contents == sorted(f"{who}-{i}" for who in ("A", "B") for i in range(n))
    # each process's own entries are in its own order
    for who in ("A", "B"):
        mine = [e.content for e in hist.entries if e.session_key == who]
        assert mine == [f"{who}-{i}" for i in range(n)]
    assert (memory / ".cursor").read_bytes() == str(2 * n).encode()
    assert sorted(os.listdir(memory)) == [".cursor", "history.jsonl"]   # no lock in memory/


# -- the assistant hands out the same cursor at the same moment (issue 12.4) -------------------------

ASSISTANT_APPEND = r"""
import json, sys
path, mode = sys.argv[1], sys.argv[2]
def last(p):
    top = 0
    for line in open(p, encoding="utf-8"):
        try:
            top = max(top, json.loads(line)["cursor"])
        except Exception:
            pass
    return top
cursor = last(path) + 1             # the assistant's own rule, read before Dreamdesk appends
if mode == "wait":
    print("read", flush=True)
    sys.stdin.readline()
with open(path, "a", encoding="utf-8") as f:
    f.write(json.dumps({"cursor": cursor, "timestamp": "2026-12-01 10:00", "content": "from the assistant"}) + "\n")
"""


@pytest.mark.parametrize("theirs_first", [True, False])
def test_a_cursor_the_assistant_took_at_the_same_moment_moves_ours_and_both_entries_stay(tmp_path, monkeypatch,
                                                                                         theirs_first):
    import subprocess
    import sys
    import dreamdesk.engine.home.history as history_mod
    mem = tmp_path / "memory"
    mem.mkdir()
    (mem / "history.jsonl").write_text(
        json.dumps({"cursor": 1, "timestamp": "2026-12-01 09:00", "content": "old"}) + "\n")
    real = history_mod.append_durably
    state = {}

    def racing(path, data):
        if "done" in state or path.name != "history.jsonl":
            return real(path, data)
        state["done"] = True
        if theirs_first:     # the assistant read cursor 1 and appends 2 before ours lands
            subprocess.run([sys.executable, "-c", ASSISTANT_APPEND, str(path), "now"], check=True)
            return real(path, data)
        # the assistant read cursor 1 before ours landed, and appends 2 after it
        proc = subprocess.Popen([sys.executable, "-c", ASSISTANT_APPEND, str(path), "wait"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "read"
        real(path, data)
        proc.communicate("go\n", timeout=20)
    monkeypatch.setattr(history_mod, "append_durably", racing)
    result = append_entry(mem, "from Dreamdesk")
    hist = read_history(mem / "history.jsonl")
    contents = [e.content for e in hist.entries]
    assert sorted(contents) == ["from Dreamdesk", "from the assistant", "old"]
    assert [e.cursor for e in hist.entries] == sorted({e.cursor for e in hist.entries})   # none skipped
    assert not hist.bad_lines
    assert result.collided_with == 2 and result.entry.cursor == 3
    assert (mem / ".cursor").read_text().strip() == "3"
