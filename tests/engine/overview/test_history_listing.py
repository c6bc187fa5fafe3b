"""`dreamdesk history` streamed (issue 14): the same bytes as before (one dump of the whole
history, built in memory), for JSON and text, with or without --pending; memory flat."""

from __future__ import annotations

import json
import os
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamdesk.engine.core import clock, redact
from dreamdesk.engine.cli import _column, main
from dreamdesk.engine.home.history import read_history
from dreamdesk.engine.core.json_stream import encode, write_object
from dreamdesk.engine.assistants.prompt import in_prompt_cursors
from dreamdesk.engine.home.workspace import Workspace

SECRET = "sk-live-0123456789abcdef"


def before(root, as_json: bool, pending: bool) -> str:
    """What `dreamdesk history` printed before streaming (engine/cli.py at main, 474f293), in the
    fixed-width columns of issue 25 item 13."""
    ws = Workspace.open(root)
    hist = read_history(ws.history_path)
    cur, dream, cprobs = ws.cursors()
    in_prompt = in_prompt_cursors(ws, hist, dream)
    entries = hist.pending(dream) if pending else hist.entries
    home = clock.home_zone(ws.config())
    if as_json:
        return redact.scrub(json.dumps({
            "cursor": cur, "dream_cursor": dream,
            "entries": [dict(e.to_json(), line=e.line, status="dreamed" if e.cursor <= dream else "pending",
                             in_prompt=e.cursor in in_prompt, time=clock.iso(clock.from_history(e.timestamp, home)))
                        for e in entries],
            "bad_lines": [] if pending else [{"line": b.line, "reason": b.reason, "text": b.text}
                                             for b in hist.bad_lines],
            "problems": [p.to_json() for p in hist.problems + cprobs],
        }, indent=2, ensure_ascii=False)) + "\n"
    rows = []
    num = max(6, len(str(cur)), len(str(dream)))      # the columns as issue 25 item 13 fixed them
    for e in entries:
        preview = " ".join(e.content.split())
        if len(preview) > 72:
            preview = preview[:71] + "…"
        status = "dreamed" if e.cursor <= dream else "pending+prompt" if e.cursor in in_prompt else "pending"
        rows.append((e.line, f"{e.cursor:>{num}}  {_column(clock.show_history(e.timestamp, home), 16)}  "
                             f"{_column(e.session_key or '-', 20)}  {status:<14}  {preview}"))
    if not pending:
        rows += [(b.line, f"{'!':>{num}}  line {b.line}: {b.reason}") for b in hist.bad_lines]
    rows.sort(key=lambda r: r[0])
    out = [text for _, text in rows]
    if not pending:
        dreamed = [e.line for e in entries if e.cursor <= dream]
        at = 1 + max(i for i, r in enumerate(rows) if r[0] <= dreamed[-1]) if dreamed else 0
        out.insert(at, f"{'':>{num}}  ──── .dream_cursor = {dream} ── entries below are pending ────")
    out.append(f"{'':>{num}}  ──── .cursor = {cur} ────")
    return "\n".join(out) + "\n"


def now(capsys, root, as_json: bool, pending: bool) -> str:
    argv = ["history", str(root)] + (["--json"] if as_json else []) + (["--pending"] if pending else [])
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def entry(cursor, content, timestamp="2026-11-01 10:00", key=None) -> str:
    d = {"cursor": cursor, "timestamp": timestamp, "content": content}
    if key is not None:
        d["session_key"] = key
    return json.dumps(d, ensure_ascii=False) + "\n"


CONTENT = st.one_of(st.text(max_size=30), st.sampled_from(["x" * 3000, f"key {SECRET} leaked", "a\nb\u2028c  d"]))
LINE = st.one_of(
    st.tuples(st.just("entry"), st.integers(0, 3), CONTENT,
              st.sampled_from(["2026-11-01 10:00", "2026-03-29 02:30", "yesterday"]),
              st.sampled_from([None, "", "cli:direct"])),
    st.tuples(st.just("raw"), st.sampled_from(['{"cursor": "3"\n', "\n", "[1]\n", '{"cursor": 1, "content": 5}\n',
                                                "\xff\n"])),
)


def build(lines, dream_at: float, truncated: bool) -> tuple[str, int]:
    out, cursor = [], 0
    for kind, *rest in lines:
        if kind == "entry":
            gap, content, ts, key = rest
            cursor += gap           # a gap of 0 repeats the cursor: skipped as not increasing
            out.append(entry(cursor, content, ts, key))
        else:
            out.append(rest[0])
    text = "".join(out)
    if truncated and text:
        text = text[:-1][: max(1, len(text) * 2 // 3)]
    return text, round(cursor * dream_at)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, max_size=120), dream_at=st.sampled_from([0, 0.3, 0.97, 1.0]),
       truncated=st.booleans(), nanobot=st.booleans(), zone=st.sampled_from([None, "Asia/Tokyo"]))
def test_output_is_byte_for_byte_what_it_was(make_workspace, capsys, lines, dream_at, truncated, nanobot, zone):
    text, dream = build(lines, dream_at, truncated)
    config = {"providers": {"p": {"apiKey": SECRET}}}
    if zone:
        config["agents"] = {"defaults": {"timezone": zone}}
    files = {"SOUL.md": "s", "USER.md": "u", "memory/history.jsonl": text.encode("utf-8", "surrogateescape"),
             "memory/.dream_cursor": str(dream), "memory/.cursor": "7", "config.json": json.dumps(config)}
    if nanobot:
        files[".nanobot/workspace-id"] = "id"
    root = make_workspace(files)
    for as_json in (True, False):
        for pending in (False, True):
            assert now(capsys, root, as_json, pending) == before(root, as_json, pending), (as_json, pending)


@pytest.mark.parametrize("size, shown_count", [(lambda c: 10, 50), (lambda c: c * 40, 2)])
def test_many_pending_entries_only_the_newest_in_the_prompt(make_workspace, capsys, size, shown_count):
    """The newest 50 pending entries, fewer when the ~8,000-token cap cuts first."""
    text = "".join(entry(c, f"fact {c} " + "w" * size(c)) for c in range(1, 301))
    root = make_workspace({"SOUL.md": "s", "memory/history.jsonl": text, "memory/.dream_cursor": "100"})
    data = json.loads(now(capsys, root, True, False))
    assert [e["cursor"] for e in data["entries"] if e["in_prompt"]] == list(range(301 - shown_count, 301))
    assert now(capsys, root, True, False) == before(root, True, False)
    assert now(capsys, root, False, True) == before(root, False, True)


def test_a_missing_history_and_a_folder_in_its_place(make_workspace, capsys):
    root = make_workspace({"SOUL.md": "s", "memory/.cursor": "3"})
    for as_json in (True, False):
        assert now(capsys, root, as_json, False) == before(root, as_json, False)
    (root / "memory" / "history.jsonl").mkdir()
    out = now(capsys, root, True, False)
    assert out == before(root, True, False) and "a folder" in out


def test_the_json_encoder_matches_json_dumps():
    for value in [{}, [], {"a": 1, "b": None, "c": True, "d": "é\u2028\n\"", "e": -3}, {"a": 1.5},
                  {"n": {"x": [1, {"y": 2}]}}, [{"a": 1}, {}], "text", 7, None, {"k": 2 ** 80}]:
        assert encode(value) == json.dumps(value, indent=2, ensure_ascii=False)
        for level in (1, 2):
            nested = json.dumps({"x": [value]}, indent=2, ensure_ascii=False)
            assert ("\n" + "  " * level + encode(value, level) + "\n") in nested + "\n" or level == 1
    pieces = []
    obj = {"a": 1, "items": [{"x": "y"}, {"z": [1, 2]}], "none": [], "tail": {"k": "v"}}
    write_object(pieces.append, [("a", 1), ("items", iter(obj["items"])), ("none", iter([])), ("tail", obj["tail"])])
    assert "".join(pieces) == json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
    pieces.clear()
    write_object(pieces.append, [])
    assert "".join(pieces) == "{}\n"


@pytest.mark.parametrize("as_json", [True, False])
def test_memory_stays_flat_in_the_file_size(make_workspace, tmp_path, monkeypatch, as_json):
    """Structural (no wall time): the peak Python allocation while listing 8,000 entries is
    about that of 800 (read in 16 KiB blocks here); one dump of the whole took ten times more."""
    monkeypatch.setattr("dreamdesk.engine.home.history.READ_BLOCK", 16 << 10)
    peaks = []
    for n in (800, 8000):
        text = "".join(entry(c, f"- [durable] fact {c} about tea and rain " * 4, key="cli:direct")
                       for c in range(1, n + 1))
        root = make_workspace({"SOUL.md": "s", "memory/history.jsonl": text, "memory/.dream_cursor": str(n // 2)},
                              root=tmp_path / f"ws{n}")
        with open(os.devnull, "w", encoding="utf-8") as sink:
            monkeypatch.setattr("sys.stdout", sink)
            tracemalloc.start()
            assert main(["history", str(root)] + (["--json"] if as_json else [])) == 0
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
    small, big = peaks
    assert big < small * 1.2, f"peak {small:,} bytes for 800 entries, {big:,} for 8,000"
