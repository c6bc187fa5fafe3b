"""HistoryReader (issue 14, design item 2): history.jsonl read once, then from the last offset
while it grows; every read equals read_history of the whole file."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamdesk.engine.home.history import HistoryReader, parse_history, read_history
from dreamdesk.engine.home.workspace import Workspace


def line(cursor, content="x", timestamp="2026-04-03 00:02") -> bytes:
    return json.dumps({"cursor": cursor, "timestamp": timestamp, "content": content},
                      ensure_ascii=False).encode() + b"\n"


def history(*cursors) -> bytes:
    return b"".join(line(c, f"fact {c}") for c in cursors)


def age(path: Path, seconds: float = 60) -> None:
    """As if the file was last written a while ago (the steady state a cache is for)."""
    then = time.time_ns() - int(seconds * 1e9)
    os.utime(path, ns=(then, then))


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


@pytest.fixture
def hist_path(tmp_path) -> Path:
    (tmp_path / "memory").mkdir()
    path = tmp_path / "memory" / "history.jsonl"
    path.write_bytes(history(1, 2, 3))
    return path


def both(reader: HistoryReader):
    """(what the reader reads now, what read_history gives for the whole file)."""
    return reader.read(), read_history(reader.path)


def test_first_read_is_whole_then_an_append_reads_only_the_new_line(hist_path):
    reader = HistoryReader(hist_path)
    first = reader.read()
    assert [e.cursor for e in first.entries] == [1, 2, 3] and reader.stats == {"full": 1, "tail": 0, "unchanged": 0, "checked": 0}
    append(hist_path, line(4, "new"))
    after = reader.read()
    assert reader.stats == {"full": 1, "tail": 1, "unchanged": 0, "checked": 0}
    assert after == read_history(hist_path)
    new = after.entries[-1]
    assert (new.line, new.cursor, new.content) == (4, 4, "new")
    assert hist_path.read_bytes()[new.offset:].startswith(b'{"cursor": 4')
    assert [e.cursor for e in first.entries] == [1, 2, 3]          # the earlier result is untouched


def test_an_unchanged_file_is_only_stated_and_each_result_is_a_fresh_object(hist_path):
    age(hist_path)
    reader = HistoryReader(hist_path)
    one = reader.read()
    one.entries.clear()
    one.problems.append("scribbled on by a caller")
    two = reader.read()
    assert reader.stats == {"full": 1, "tail": 0, "unchanged": 1, "checked": 0}
    assert two == read_history(hist_path) and len(two.entries) == 3 and two.problems == []
    assert two is not one


def test_a_same_size_rewrite_right_after_a_read_is_seen_though_mtime_did_not_move(hist_path):
    reader = HistoryReader(hist_path)
    reader.read()
    before = hist_path.stat()
    hist_path.write_bytes(hist_path.read_bytes().replace(b"fact 2", b"fact X"))
    os.utime(hist_path, ns=(before.st_atime_ns, before.st_mtime_ns))    # a coarse clock's same tick
    assert hist_path.stat().st_size == before.st_size
    assert [e.content for e in reader.read().entries] == ["fact 1", "fact X", "fact 3"]


def test_an_unfinished_last_line_is_read_again_when_it_is_completed(hist_path):
    append(hist_path, line(4, "half")[:20])
    reader = HistoryReader(hist_path)
    assert [b.line for b in reader.read().bad_lines] == [4]
    append(hist_path, line(4, "half")[20:] + line(5))
    got = reader.read()
    assert reader.stats["tail"] == 1
    assert got == read_history(hist_path)
    assert got.bad_lines == [] and [e.cursor for e in got.entries] == [1, 2, 3, 4, 5]


def test_cursor_rule_and_line_numbers_continue_across_a_tail(hist_path):
    append(hist_path, b"\n")
    reader = HistoryReader(hist_path)
    reader.read()
    append(hist_path, line(2, "stale cursor") + b"not json\r\n" + line(9))
    got = reader.read()
    assert reader.stats["tail"] == 1 and got == read_history(hist_path)
    assert [(b.line, b.reason.split(" (")[0]) for b in got.bad_lines] == [
        (5, "cursor 2 does not follow 3"), (6, "not valid JSON")]
    assert (got.entries[-1].line, got.entries[-1].cursor, got.lines) == (7, 9, 7)


@pytest.mark.parametrize("change", ["shrunk", "replaced", "seam", "same size"])
def test_anything_but_a_growth_is_read_whole(hist_path, change):
    reader = HistoryReader(hist_path)
    reader.read()
    data = hist_path.read_bytes()
    if change == "shrunk":                    # the cap dropped the oldest entries, in place
        hist_path.write_bytes(history(3))
    elif change == "replaced":                # an atomic save: a new inode, larger
        tmp = hist_path.with_name("new")
        tmp.write_bytes(history(1, 2, 3, 4))
        os.replace(tmp, hist_path)
    elif change == "seam":                    # same inode, larger, but its end was rewritten
        hist_path.write_bytes(data.replace(b"fact 3", b"fact Z") + line(4))
    else:
        hist_path.write_bytes(data.replace(b"fact 1", b"fact Y"))
    got = reader.read()
    assert got == read_history(hist_path) and reader.stats["tail"] == 0 and reader.stats["full"] == 2


def test_a_missing_file_then_a_new_one(tmp_path):
    path = tmp_path / "memory" / "history.jsonl"
    reader = HistoryReader(path)
    got = reader.read()
    assert not got.exists and got == read_history(path)
    path.parent.mkdir()
    path.write_bytes(history(1))
    assert [e.cursor for e in reader.read().entries] == [1]
    path.unlink()
    assert reader.read() == read_history(path)


def test_a_folder_in_its_place_is_reported_like_read_history(tmp_path):
    path = tmp_path / "history.jsonl"
    path.mkdir()
    got = HistoryReader(path).read()
    assert not got.exists and got == read_history(path)
    assert "a folder" in got.problems[0].message


def test_the_workspace_keeps_one_reader(make_workspace):
    root = make_workspace({"SOUL.md": "s", "memory/history.jsonl": history(1, 2).decode()})
    ws = Workspace.open(root)
    assert [e.cursor for e in ws.history().entries] == [1, 2]
    append(ws.history_path, line(3))
    assert [e.cursor for e in ws.history().entries] == [1, 2, 3]
    assert ws.history_reader.stats == {"full": 1, "tail": 1, "unchanged": 0, "checked": 0}


def test_readers_on_several_threads_while_the_file_grows_see_whole_prefixes(hist_path):
    reader = HistoryReader(hist_path)
    seen, stop, read_one = [], threading.Event(), threading.Condition()

    def look():
        while not stop.is_set():
            h = reader.read()
            with read_one:
                seen.append(h)
                read_one.notify_all()

    threads = [threading.Thread(target=look) for _ in range(4)]
    for t in threads:
        t.start()
    for c in range(4, 1200, 40):
        append(hist_path, b"".join(line(i, "y" * 200) for i in range(c, c + 40)))
        with read_one:                   # the readers read between appends (not only before or after them)
            n = len(seen)
            assert read_one.wait_for(lambda: len(seen) >= n + 2, timeout=10)
    stop.set()
    for t in threads:
        t.join()
    final = hist_path.read_bytes()
    assert len(seen) > 10
    for h in seen:                  # each result the file as it was at one moment, never a mix
        assert h == parse_history(final[:h.size])
    assert reader.read() == read_history(hist_path)


# -- any sequence of appends, truncations, rewrites and partial lines -----------------------
LINES = st.one_of(
    st.integers(0, 30).map(lambda c: line(c, "é\u2028" if c % 3 else "x")),
    st.sampled_from([b"\n", b"\r\n", b"{oops\n", b"\xef\xbb\xbf" + line(5), b"[1]\n", line(7).replace(b"\n", b"\r\n")]),
)
CHUNK = st.lists(LINES, max_size=6).map(b"".join)
OPS = st.one_of(
    st.tuples(st.just("append"), CHUNK),
    st.tuples(st.just("partial"), CHUNK, st.integers(1, 40)),     # an append cut short
    st.tuples(st.just("truncate"), st.integers(0, 400)),
    st.tuples(st.just("rewrite"), CHUNK),                         # in place, same inode
    st.tuples(st.just("replace"), CHUNK),                         # atomic, a new inode
    st.tuples(st.just("age")),
    st.tuples(st.just("read")),
)


def apply(path: Path, op) -> None:
    kind = op[0]
    if kind == "append":
        append(path, op[1])
    elif kind == "partial":
        append(path, op[1][:max(0, len(op[1]) - op[2])])
    elif kind == "truncate":
        os.truncate(path, min(op[1], path.stat().st_size))
    elif kind == "rewrite":
        path.write_bytes(op[1])
    elif kind == "replace":
        path.with_name("tmp").write_bytes(op[1])
        os.replace(path.with_name("tmp"), path)
    elif kind == "age":
        age(path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=CHUNK, ops=st.lists(OPS, max_size=25))
def test_every_read_equals_read_history_of_the_whole_file(tmp_path, start, ops):
    path = tmp_path / "h.jsonl"
    path.write_bytes(start)
    reader = HistoryReader(path)
    got, whole = both(reader)
    assert got == whole
    for op in ops:
        apply(path, op)
        looks = {"read": 1, "append": 1, "partial": 1, "age": 2}.get(op[0], 0)   # an aged file twice:
        for _ in range(looks):                                                # the second is a stat
            got, whole = both(reader)
            assert got == whole, op
    got, whole = both(reader)
    assert got == whole


def test_whole_second_stamps_keep_a_file_racy_for_two_seconds(hist_path):
    """Where mtimes are whole seconds (FAT, some network shares), a rewrite within the same
    second or two keeps size and mtime: such a file is read again until it is older."""
    reader = HistoryReader(hist_path)
    second = (time.time_ns() // 10**9) * 10**9
    os.utime(hist_path, ns=(second, second))
    reader.read()
    hist_path.write_bytes(hist_path.read_bytes().replace(b"fact 3", b"fact W"))
    os.utime(hist_path, ns=(second, second))
    assert reader.read().entries[-1].content == "fact W"


def test_a_racy_file_that_did_not_change_is_compared_not_parsed(hist_path):
    reader = HistoryReader(hist_path)
    first = reader.read()                      # written a moment ago: racy
    again = reader.read()
    assert again == first and reader.stats == {"full": 1, "tail": 0, "unchanged": 0, "checked": 1}


# -- a file cut short and grown again between two reads (found by the property test above) -------
def test_a_file_cut_short_and_grown_past_its_old_size_between_two_reads_is_read_as_it_is(tmp_path):
    odd = "\u00e9\u2028"
    path = tmp_path / "h.jsonl"
    path.write_bytes(line(0) + line(0))
    reader = HistoryReader(path)
    assert reader.read() == read_history(path)
    os.truncate(path, 75)
    append(path, (line(4, odd) + line(0))[:-1])
    assert reader.read() == read_history(path)
    os.truncate(path, 1)
    # larger than before on the same inode, and lines that end alike: the seam alone matches
    append(path, line(10, odd) + b"\r\n[1]\n" + line(4, odd) + line(0))
    assert reader.read() == read_history(path)
    assert [e.cursor for e in reader.read().entries] == [4]


def test_past_the_compared_prefix_an_append_is_read_at_the_seam(tmp_path, monkeypatch):
    import dreamdesk.engine.home.history as history_mod
    monkeypatch.setattr(history_mod, "PREFIX_CHECKED", 0)       # (as a history of more than 4 MiB)
    path = tmp_path / "h.jsonl"
    path.write_bytes(b"".join(line(c, f"entry {c}") for c in range(1, 50)))
    reader = HistoryReader(path)
    reader.read()
    append(path, line(50, "entry 50"))
    assert reader.read() == read_history(path) and reader.stats["tail"] == 1
    path.write_bytes(b"".join(line(c, f"other {c}") for c in range(1, 60)))     # rewritten in place: new seam
    assert reader.read() == read_history(path) and reader.stats["full"] == 2
