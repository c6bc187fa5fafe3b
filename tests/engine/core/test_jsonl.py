"""One JSON-lines reader (engine/core/jsonl.py) for history, archive, sessions and the restore log:
the shared splitting and decoding rules, and what each format's hook makes of a bad line. Also
the msgspec shapes of the consolidator journal and schedule.json."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import msgspec
import pytest

from dreamdesk.engine.recovery import archive, restore_log
from dreamdesk.engine.core import jsonl
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.jobs.consolidator import journal_path, run_consolidator
from dreamdesk.engine.home.history import parse_history
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.recovery.restore_log import FileWrite, RestoreEntry
from dreamdesk.engine.jobs.scheduler import Scheduler, schedule_path
from dreamdesk.engine.assistants.sessions import read_session
from dreamdesk.engine.home.workspace import Workspace

BOM_WHY = "starts with a UTF-8 byte-order mark (BOM); nanobot's reader cannot parse it"


# -- the shared reader ------------------------------------------------------------------------

@pytest.mark.parametrize("raw, why", [
    (b'\xef\xbb\xbf{"a": 1}', BOM_WHY),
    (b'{"a": "caf\xe9"}', "not valid UTF-8 (byte 0xe9 at column 11)"),
    (b'{"a": 1', "not valid JSON (Expecting ',' delimiter, column 8)"),
    (b"[" * 100_000 + b"]" * 100_000, "not valid JSON (nested too deeply)"),
    (b"1" * 5000, "not valid JSON (Exceeds the limit (4300 digits) for integer string conversion: "
                  "value has 5000 digits; use sys.set_int_max_str_digits() to increase the limit)"),
])
def test_each_kind_of_bad_line_is_reported_in_words(raw, why):
    assert jsonl.loads(raw) == (None, why)


@pytest.mark.parametrize("data, rows", [
    (b'{"a":1}\n{"b":2}\n', [(1, 0, b'{"a":1}', True), (2, 8, b'{"b":2}', True)]),
    (b'{"a":1}\r\n{"b":2}\r\n', [(1, 0, b'{"a":1}', True), (2, 9, b'{"b":2}', True)]),      # CRLF
    (b'{"a":1}\n{"b":2}', [(1, 0, b'{"a":1}', True), (2, 8, b'{"b":2}', False)]),          # no final \n
    (b'{"a":1}\r', [(1, 0, b'{"a":1}', False)]),
    (b'\n  \n\t\r\n{"a":1}\n\n', [(4, 7, b'{"a":1}', True)]),                             # blanks count
    (b'{"s":"a\xe2\x80\xa8b\xc2\x85c"}\n', [(1, 0, b'{"s":"a\xe2\x80\xa8b\xc2\x85c"}', True)]),  # U+2028, U+0085
    (b"", []),
])
def test_lines_split_on_newline_only_drop_cr_and_skip_blanks(data, rows):
    assert list(jsonl.lines(data)) == rows


def test_lines_continue_the_numbers_and_offsets_of_what_came_before():
    assert list(jsonl.lines(b'{"a":1}\n', line=7, offset=100)) == [(8, 100, b'{"a":1}', True)]
    assert jsonl.count(b"a\n\nb") == 3 and jsonl.count(b"a\n") == 1 and jsonl.count(b"") == 0


def test_physical_lines_give_back_every_byte():
    data = b'{"a":1}\r\n\n  \nlast'
    got = list(jsonl.physical(data))
    assert [n for n, *_ in got] == [1, 2, 3, 4]
    assert b"".join(raw + (b"\n" if term else b"") for _, _, raw, term in got) == data


DATA = b'{"n": 1}\n[2]\n{"n": 3}\n{"n": \n{"n": 5}'


def _objects(obj):
    return (obj, None) if isinstance(obj, dict) else (None, "not a JSON object")


@pytest.mark.parametrize("verdict, values", [
    (jsonl.SKIP, [1, 3, 5]),
    (jsonl.STOP, [1]),
    (jsonl.KEEP, [1, "bad 2: not a JSON object", 3, "bad 4: not valid JSON (Expecting value, column 7)", 5]),
])
def test_the_hook_decides_what_a_bad_line_means(verdict, values):
    seen = []

    def hook(bad: jsonl.Bad) -> str:
        seen.append(bad.line)
        return verdict
    rows = list(jsonl.read(DATA, hook, _objects))
    got = [f"bad {r.value.line}: {r.value.reason}" if isinstance(r.value, jsonl.Bad) else r.value["n"] for r in rows]
    assert got == values
    assert seen == ([2] if verdict == jsonl.STOP else [2, 4])
    assert rows[-1].terminated is (verdict == jsonl.STOP)     # line 5 has no newline


def test_a_fast_decoder_takes_the_common_line_and_refuses_the_rest_to_the_slow_path():
    class N(msgspec.Struct):
        n: int
    slow = []

    def convert(obj):
        slow.append(obj)
        return _objects(obj)
    rows = list(jsonl.read(b'{"n": 1}\n{"n": "two"}\n\xef\xbb\xbf{"n": 3}\n{"n": 4}', lambda bad: jsonl.KEEP, convert,
                           fast=msgspec.json.Decoder(N).decode))
    assert [r.value for r in rows] == [N(1), {"n": "two"}, rows[2].value, N(4)]
    assert rows[2].value.reason == BOM_WHY and slow == [{"n": "two"}]


# -- each format's hook ---------------------------------------------------------------------

def test_history_keeps_a_bad_line_in_place_and_reads_crlf_and_a_last_line_without_newline():
    good = [json.dumps({"cursor": c, "timestamp": "2026-11-29 08:00", "content": f"e{c}"}).encode() for c in (1, 2, 3)]
    data = good[0] + b"\r\n\xef\xbb\xbf" + good[1] + b"\r\n\n" + good[2]
    hist = parse_history(data)
    assert [(e.line, e.cursor) for e in hist.entries] == [(1, 1), (4, 3)]
    assert [(b.line, b.reason) for b in hist.bad_lines] == [(2, BOM_WHY)]
    assert hist.lines == 4 and hist.entries[1].offset == data.rindex(b"{")


def test_history_says_a_bad_last_line_without_newline_was_truncated():
    hist = parse_history(b'{"cursor": 1, "timestamp": "2026-11-29 08:00", "content": "a"}\n{"cursor": 2, "tim')
    assert [e.cursor for e in hist.entries] == [1]
    assert hist.bad_lines[0].reason.startswith("truncated last line (no newline at the end")


ARCHIVED = {"id": "a-20261129-1", "archived_at": "2026-11-29T09:00:00+01:00", "file": "USER.md",
            "text": "- Has a cat.", "reason": "dream", "run": None, "replaced_by": None, "heading": "Facts"}


def test_archive_lines_each_shape_and_what_a_bad_one_means(make_workspace):
    lines = [json.dumps(ARCHIVED),
             json.dumps(dict(ARCHIVED, id="a-20261129-2", text="- Gone.")),
             json.dumps({"id": "a-20261129-2", "voided_at": "2026-11-29T09:01:00+01:00"}),
             json.dumps({"id": "a-20261129-1", "commit": "c0ffee", "noted_at": "2026-11-29T09:02:00+01:00"}),
             json.dumps({"id": "a-20261129-3", "deleted_at": "2026-11-29T09:03:00+01:00"}),
             '{"id": "a-20261129-4", "file": "USER.md"',           # torn
             json.dumps({"id": "a-20261129-5", "file": "USER.md", "text": 7}),
             json.dumps({"id": "a-20261129-6", "noted_at": "x", "commit": 5}),
             json.dumps(dict(ARCHIVED, id="a-20261129-7", run=12, reason=3))]     # lenient extras
    root = make_workspace({"memory/archive/2026-11.jsonl": "\r\n".join(lines)})
    arc = read_archive(Workspace.open(root))
    assert [(r.id, r.line, r.commit, r.run, r.reason) for r in arc.records] == [
        ("a-20261129-1", 1, "c0ffee", None, "dream"), ("a-20261129-7", 9, None, None, "3")]
    assert [(p.line, p.message) for p in arc.problems] == [
        (6, "not a valid archive line; skipped"), (7, "archive line without id, file and text; skipped"),
        (8, "archive line without id, file and text; skipped")]


TRICKY = [json.dumps(dict(ARCHIVED, id="a-20261129-9", text="dup")).replace('"text"', '"text": "first", "text"', 1),
          json.dumps(dict(ARCHIVED, id="a-20261129-10", text="\ud800 lone")),
          json.dumps(dict(ARCHIVED, id="a-20261129-11", run=2 ** 70, reason=None, archived_at=1.5)),
          json.dumps(dict(ARCHIVED, id="a-20261129-12", text="U+2028 \u2028 and \u0085"), ensure_ascii=False),
          '{"id": "a-20261129-13", "file": "USER.md", "text": "nan", "run": NaN}',
          '{"id": "a-20261129-14", "file": "USER.md", "text": "tab\there"}',
          json.dumps({"id": "a-20261129-15", "file": "USER.md"}),
          '["a-20261129-16"]']


def test_archive_fast_decoder_reads_each_line_as_the_slow_path_does(make_workspace, monkeypatch):
    root = make_workspace({"memory/archive/2026-11.jsonl": "\n".join(TRICKY) + "\n"})

    def records():
        arc = read_archive(Workspace.open(root))
        return [(r.id, r.text, r.run, r.reason, r.archived_at) for r in arc.records], \
            [(p.line, p.message) for p in arc.problems]
    fast = records()
    monkeypatch.setattr(archive, "_fast_record", lambda raw: msgspec.json.decode(b"["))   # always refuses
    (root / "memory/archive/2026-11.jsonl").write_text("\n".join(TRICKY) + "\n\n")     # a new stat: parsed again
    assert records() == fast
    assert [i for i, *_ in fast[0]] == [f"a-20261129-{n}" for n in (9, 10, 11, 12, 13)]
    assert fast[1] == [(6, "not a valid archive line; skipped"), (7, "archive line without id, file and text; skipped"),
                       (8, "archive line without id, file and text; skipped")]


def _session(tmp_path, *lines: bytes):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b"".join(lines))
    return read_session(p, "sessions/s.jsonl")


def test_a_session_skips_a_bad_line_with_its_reason_and_reads_crlf(tmp_path):
    meta = json.dumps({"_type": "metadata", "key": "k", "last_archived": 1}).encode()
    s = _session(tmp_path, meta + b"\r\n", b'{"role": "user", "content": "a"}\r\n', b"\xef\xbb\xbf{}\r\n",
                 b'"text"\r\n', b'{"role": "assistant", "content": "b"}')
    assert s.key == "k" and s.last_consolidated == 1
    assert [(m["_line"], m["content"]) for m in s.messages] == [(2, "a"), (5, "b")]
    assert [(p.line, p.message) for p in s.problems] == [(3, BOM_WHY + "; skipped"), (4, "not a JSON object; skipped")]


@pytest.mark.parametrize("meta, offset, warned", [
    ({"last_archived": 2, "last_consolidated": 1}, 2, None),
    ({"last_archived": "2", "last_consolidated": 1}, 1, None),      # the next key that is a whole number
    ({"last_archived": True}, 0, "True"),
    ({"last_consolidated": 1.0}, 0, "1.0"),
    ({"last_archived": -3}, 0, "-3"),
])
def test_a_session_offset_is_a_whole_number_as_the_assistant_takes_one(tmp_path, meta, offset, warned):
    line = json.dumps({"_type": "metadata", "key": "k", **meta}).encode() + b"\n"
    s = _session(tmp_path, line, b'{"role": "user", "content": "a"}\n' * 3)
    assert s.last_consolidated == offset
    warnings = [p.message for p in s.problems]
    assert warnings == ([] if warned is None else
                        [f"last_archived must be a whole number ≥ 0, got {warned}; reading it as 0"])


def _restore(rid: str) -> bytes:
    e = RestoreEntry(rid, "2026-11-29T09:00:00+01:00", "snapshot 1a2b3c4d USER.md", "snapshot", "abc", "def",
                     [FileWrite("USER.md", "h1", "h2")])
    return (json.dumps(e.to_json()) + "\n").encode()


def test_the_restore_log_skips_torn_and_foreign_lines_silently(tmp_path):
    path = restore_log.log_path(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_restore("r-1") + b'{"id": "r-x", "kind": "nonsense"}\n' + b"\xff\n" + _restore("r-2")
                     + _restore("r-1") + _restore("r-3")[:-9])
    assert [e.id for e in restore_log.read_log(tmp_path)] == ["r-1", "r-2"]


# -- msgspec shapes ---------------------------------------------------------------------------

@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    (h / "workspace" / "memory").mkdir(parents=True)
    (h / "workspace" / "USER.md").write_text("# User\n")
    return h


@pytest.mark.parametrize("change, why", [
    ({"from": "0"}, "Expected `int`, got `str` - at `$.from`"),
    ({"to": True}, "Expected `int`, got `bool` - at `$.to`"),
    ({"entries": [{"content": "x"}]}, "Object missing required field `timestamp` - at `$.entries[0]`"),
    ({"display": None}, "Expected `str`, got `null` - at `$.display`"),
    ({"from": 5, "to": 2}, "its message range is impossible"),
])
def test_a_journal_of_the_wrong_shape_is_refused_with_its_reason(home, change, why):
    ws = Workspace.open(home)
    journal = {"path": str(home / "sessions" / "a.jsonl"), "display": "sessions/a.jsonl", "key": "a", "from": 0,
               "to": 2, "entries": [{"content": "x", "timestamp": "2026-11-29 12:00"}], **change}
    journal_path(ws).parent.mkdir(parents=True, exist_ok=True)
    journal_path(ws).write_text(json.dumps(journal))
    with pytest.raises(WorkspaceError) as err:
        run_consolidator(ws, None, now=datetime(2026, 11, 29, 12, 0).astimezone())
    assert f"is not usable ({why}); move it aside" in str(err.value)
    assert not ws.history_path.exists()


T0 = datetime(2026, 11, 29, 9, 0).astimezone()


@pytest.mark.parametrize("stored, deadline, error", [
    ({"next_deadline": T0.isoformat(), "last_error": {"at": "09:00", "error": "boom"}}, T0, "boom (09:00)"),
    ({"next_deadline": 5, "last_error": {"at": "09:00", "error": "boom"}}, None, "boom (09:00)"),
    ({"next_deadline": T0.isoformat(), "last_error": {"at": "09:00", "error": 3}}, T0, None),
    ([1, 2], None, None),
])
def test_schedule_json_a_field_of_the_wrong_shape_is_unset_the_others_kept(make_workspace, stored, deadline, error):
    ws = Workspace.open(make_workspace({"USER.md": "# U\n"}))
    schedule_path(ws).parent.mkdir(parents=True, exist_ok=True)
    schedule_path(ws).write_text(json.dumps(stored))
    s = Scheduler(ws)
    assert s.deadline == deadline
    assert s.status(T0).last_error == error
    s.finished(T0 + timedelta(minutes=1), error="later")
    assert json.loads(schedule_path(ws).read_text())["last_error"]["error"] == "later"
