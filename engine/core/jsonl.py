"""JSON-lines files (history, archive, sessions, the restore log): one rule for splitting and
decoding, and a per-format hook for what a bad line means.

The rules: lines end at b"\\n" only (JSON strings may hold raw U+2028/U+0085, which
str.splitlines() would wrongly take as line breaks); a \\r before it is dropped (a file written on
Windows holds the same JSON); blank lines are skipped; a line without a final newline is still
read, marked unterminated. A BOM, bad UTF-8 or bad JSON is a bad line with its reason in words.
Each format's hook answers what a bad line means: SKIP it, STOP reading, or KEEP it (the Bad is
handed on in its place, for a reader that shows it where it stands).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from itertools import accumulate, chain, compress, repeat
from itertools import count as numbers
from operator import add
from typing import Any, NamedTuple

import msgspec

BOM = b"\xef\xbb\xbf"
# what a msgspec decoder raises for a line it refuses: msgspec 0.18 (our floor) raises
# UnicodeDecodeError for bad UTF-8, later versions DecodeError (measured)
FAST_REFUSED = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)
SKIP, STOP, KEEP = "skip", "stop", "keep"


class Bad(NamedTuple):
    line: int                  # 1-based physical line
    offset: int                # byte offset of the line
    raw: bytes                 # without its \r\n
    terminated: bool           # False: the file's last line, with no newline after it
    reason: str


class Row(NamedTuple):
    line: int
    offset: int
    value: Any                 # what the format's convert made of it, or a Bad it chose to KEEP
    terminated: bool


def physical(data: bytes, line: int = 0, offset: int = 0) -> Iterator[tuple[int, int, bytes, bool]]:
    """Every physical line as (number, offset, bytes as stored, terminated), blank ones too:
    for a rewrite that must give back the bytes it does not drop. `line`, `offset`: where `data`
    starts in its file (the count of lines before it)."""
    n, at = len(data), 0
    while at < n:
        end = data.find(b"\n", at)
        line += 1
        if end == -1:
            yield line, offset + at, data[at:], False
            return
        yield line, offset + at, data[at:end], True
        at = end + 1


def lines(data: bytes, line: int = 0, offset: int = 0) -> Iterator[tuple[int, int, bytes, bool]]:
    """The lines worth reading: (number, offset, bytes without \\r\\n, terminated), blank
    lines left out (their numbers still count). Built from C iterators only, no Python step per
    line: history parsing is hot (100,000 lines are split in a few milliseconds)."""
    pieces = data.split(b"\n")
    last = pieces.pop()                   # what follows the last newline ("" when it ends in one)
    starts = accumulate(map(add, map(len, pieces), repeat(1)), initial=offset)
    last_at = offset + len(data) - len(last)
    if b"\r" in data:                     # written on Windows: the JSON is the same
        pieces = [p[:-1] if p.endswith(b"\r") else p for p in pieces]
        last = last[:-1] if last.endswith(b"\r") else last
    numbered = zip(numbers(line + 1), starts, pieces, repeat(True))
    rows = compress(numbered, map(bytes.strip, pieces))      # strip() of a line without blanks is itself
    if not last.strip():
        return rows
    return chain(rows, ((line + len(pieces) + 1, last_at, last, False),))


def count(data: bytes) -> int:
    """How many physical lines `data` holds (a last one without a newline counts)."""
    return data.count(b"\n") + (not data.endswith(b"\n") and bool(data))


def loads(raw: bytes) -> tuple[Any, str | None]:
    """The JSON value of one line, or why it has none (what json.loads, nanobot's reader, says)."""
    if raw.startswith(BOM):
        return None, "starts with a UTF-8 byte-order mark (BOM); nanobot's reader cannot parse it"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg}, column {exc.colno})"
    except RecursionError:
        return None, "not valid JSON (nested too deeply)"
    except ValueError as exc:  # e.g. an integer beyond int's digit limit
        return None, f"not valid JSON ({exc})"


def read(data: bytes, on_bad: Callable[[Bad], str],
         convert: Callable[[Any], tuple[Any, str | None]] | None = None,
         line: int = 0, offset: int = 0, fast: Callable[[bytes], Any] | None = None) -> Iterator[Row]:
    """The rows of `data`: each line decoded, then converted (`convert` returns the value or
    why the line is not one of this format's); a bad line goes to `on_bad`, whose answer says
    whether to skip it, stop, or keep it in place as a Bad. `fast`: a msgspec decoder for the
    format's common line, tried first; a line it refuses takes the path above for its reason
    (so it must accept only what that path would give it, as it would)."""
    for n, at, raw, term in lines(data, line, offset):
        if fast is not None and not raw.startswith(BOM):
            try:
                yield Row(n, at, fast(raw), term)
                continue
            except FAST_REFUSED:
                pass
        value, why = loads(raw)
        if why is None and convert is not None:
            value, why = convert(value)
        if why is not None:
            value = Bad(n, at, raw, term, why)
            verdict = on_bad(value)
            if verdict == STOP:
                return
            if verdict == SKIP:
                continue
        yield Row(n, at, value, term)
