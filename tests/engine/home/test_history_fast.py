"""The fast line decoder (msgspec) must give exactly what the slow path (json.loads, which nanobot
reads with) gives: the same entries, bad lines and problems, for any line."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import dreamdesk.engine.home.history as history
from dreamdesk.engine.home.history import parse_history

scalars = st.one_of(st.integers(-5, 2**70), st.booleans(), st.none(), st.floats(allow_nan=True),
                    st.text(max_size=12), st.lists(st.integers(0, 3), max_size=2))
text_fields = st.one_of(st.text(max_size=20), scalars)


VALID = {"cursor": st.integers(0, 60), "timestamp": st.sampled_from(["2026-11-01 10:00", "yesterday", ""]),
         "content": st.text(max_size=20), "session_key": st.one_of(st.none(), st.text(max_size=8))}


@st.composite
def lines(draw) -> bytes:
    """Mostly good lines (so the fast path is exercised), some with one odd field or a mutation."""
    obj = {}
    for key, good in VALID.items():
        roll = draw(st.integers(0, 11))
        if roll:                             # now and then a field is missing (0) or odd (1)
            obj[key] = draw(good if roll > 1 else (scalars if key == "cursor" else text_fields))
    raw = json.dumps(obj if draw(st.integers(0, 12)) else draw(scalars), ensure_ascii=draw(st.booleans()))
    data = raw.encode("utf-8", errors="surrogatepass")
    mutate = draw(st.sampled_from(["none"] * 10 + ["bom", "cut", "junk", "cr", "surrogate", "ctrl", "nan", "bytes"]))
    if mutate == "bom":
        data = b"\xef\xbb\xbf" + data
    elif mutate == "cut":
        data = data[:draw(st.integers(0, max(0, len(data) - 1)))]
    elif mutate == "junk":
        data += draw(st.sampled_from([b" x", b",", b"}", b"  "]))
    elif mutate == "cr":
        data += b"\r"
    elif mutate == "surrogate":
        data = data.replace(b'"content": "', b'"content": "\\ud800', 1)
    elif mutate == "ctrl":
        data = data.replace(b'"content": "', b'"content": "\t', 1)
    elif mutate == "nan":
        data = data.replace(b'"cursor": ', b'"cursor": NaN, "x": ', 1)
    elif mutate == "bytes":
        data = data.replace(b'"content": "', b'"content": "\xff', 1)
    return data


def slow(data: bytes):
    fast, history._fast_line = history._fast_line, lambda raw: None
    try:
        return parse_history(data)
    finally:
        history._fast_line = fast


@settings(max_examples=400, deadline=None)
@given(st.lists(lines(), max_size=12), st.booleans())
def test_fast_path_reads_every_line_as_json_loads_would(body, final_newline):
    data = b"\n".join(body) + (b"\n" if final_newline and body else b"")
    fast, reference = parse_history(data), slow(data)
    assert fast.entries == reference.entries
    assert fast.bad_lines == reference.bad_lines
    assert fast.problems == reference.problems
    assert (fast.lines, fast.size) == (reference.lines, reference.size)


def test_a_huge_cursor_and_a_float_cursor_read_as_json_loads_reads_them():
    data = (b'{"cursor": 123456789012345678901234567890, "timestamp": "2026-11-01 10:00", "content": "a"}\n'
            b'{"cursor": 1e40, "timestamp": "2026-11-01 10:00", "content": "b"}\n')
    hist = parse_history(data)
    assert [e.cursor for e in hist.entries] == [123456789012345678901234567890]
    assert "cursor must be a whole number, got a float" in hist.bad_lines[0].reason
    assert hist.entries == slow(data).entries
