"""memory/history.jsonl: the tolerant reader, the locked appender and the 1000-entry cap.

Lines are split and decoded by engine/core/jsonl.py's rules. A line that is not a valid entry is kept
on disk untouched, reported with its 1-based line number, and kept in the listing as a BadLine.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import zlib
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import msgspec

from ..core import jsonl
from .cursors import read_cursor, write_cursor
from ..core.rules import HISTORY_CAP
from ..disk.files import FileLock, append_durably, make_dirs, read_bytes, read_chunks, read_tail, replace_keeping_appends
from ..core.problems import WARNING, Problem
from ..disk.stat_memo import gc_paused
from ..core.state import lock_path

TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$")
DISPLAY = "memory/history.jsonl"


@dataclass(slots=True)
class HistoryEntry:
    line: int                 # 1-based physical line
    cursor: int
    timestamp: str
    content: str
    session_key: str | None = None
    offset: int = 0           # byte offset of the line in the file

    def to_json(self) -> dict:
        d = {"cursor": self.cursor, "timestamp": self.timestamp, "content": self.content}
        if self.session_key is not None:
            d["session_key"] = self.session_key
        return d


@dataclass(slots=True)
class BadLine:
    line: int
    offset: int
    reason: str
    text: str                 # the raw line decoded for display (bad bytes replaced)


@dataclass
class History:
    entries: list[HistoryEntry] = field(default_factory=list)
    bad_lines: list[BadLine] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    lines: int = 0
    exists: bool = True
    size: int = 0

    @property
    def last_cursor(self) -> int:
        return self.entries[-1].cursor if self.entries else 0

    def pending_count(self, dream_cursor: int) -> int:
        # entries are in increasing cursor order (parse_history skips a line that breaks it)
        return len(self.entries) - bisect_right(self.entries, dream_cursor, key=lambda e: e.cursor)

    def pending(self, dream_cursor: int) -> list[HistoryEntry]:
        # entries are in increasing cursor order (parse_history skips a line that breaks it)
        return self.entries[bisect_right(self.entries, dream_cursor, key=lambda e: e.cursor):]


def _describe(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:40] + "…"


def parse_line(raw: bytes) -> tuple[dict | None, str | None]:
    """The entry fields of one physical line, or why the line is not an entry."""
    obj, why = jsonl.loads(raw)
    if why is not None:
        return None, why
    if not isinstance(obj, dict):
        return None, f"not a JSON object (a {type(obj).__name__})"
    if "cursor" not in obj:
        return None, "missing field \"cursor\""
    cursor = obj["cursor"]
    if isinstance(cursor, bool) or not isinstance(cursor, int):
        kind = "a bool" if isinstance(cursor, bool) else f"a {type(cursor).__name__}"
        return None, f"cursor must be a whole number, got {kind} ({_describe(cursor)})"
    if cursor < 0:
        return None, f"cursor must be ≥ 0, got {cursor}"
    for name in ("timestamp", "content"):
        if name not in obj:
            return None, f"missing field \"{name}\""
        if not isinstance(obj[name], str):
            return None, f"{name} must be a string, got {_describe(obj[name])}"
    key = obj.get("session_key")
    if key is not None and not isinstance(key, str):
        return None, f"session_key must be a string, got {_describe(key)}"
    for name in ("timestamp", "content", "session_key"):
        value = obj.get(name)
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                return None, f"{name} holds an unpaired surrogate (\\u{ord(value[exc.start]):04x}), which is not text"
    return obj, None


class _Line(msgspec.Struct):
    """The shape of a good line, decoded in C (about 5x a bare json.loads). A line this rejects
    takes the slow path (json.loads, what nanobot reads with), which says exactly why."""

    cursor: int
    timestamp: str
    content: str
    session_key: str | None = None


_fast = msgspec.json.Decoder(_Line).decode


def _fast_line(raw: bytes) -> _Line | None:
    """The entry when the fast decoder takes the line as json.loads would, else None. msgspec
    rejects what json.loads rejects (bad UTF-8, lone surrogates, control characters, NaN), and
    more (a bool or float cursor, a non-object): those go to the slow path for their reason."""
    if raw.startswith(jsonl.BOM):
        return None
    try:
        line = _fast(raw)
    except jsonl.FAST_REFUSED:
        return None
    return line if line.cursor >= 0 else None


@dataclass(slots=True)
class _Progress:
    """How far a parse has come, so that later bytes continue its line numbers, byte offsets
    and cursor rule (a tail parsed on its own gives what a parse of the whole file gives)."""
    offset: int = 0           # file offset of the next byte to parse
    lines: int = 0            # physical lines parsed so far
    prev: int = -1            # the last accepted cursor


def parse_history(data: bytes, display: str = DISPLAY) -> History:
    with gc_paused():            # a 100,000-line history makes 200,000 objects, none in a cycle
        return _parse(data, display)


def _parse(data: bytes, display: str) -> History:
    hist = History(size=len(data))
    pos = _Progress()
    _parse_into(hist, data, pos, display)
    hist.lines = pos.lines
    return hist


def _parse_into(hist: History, data: bytes, pos: _Progress, display: str) -> None:
    """Add the entries, unreadable lines and problems of `data` (the file's bytes from
    pos.offset on) to hist; pos moves past them. Lines are split by engine/core/jsonl.py's rules; a
    line the fast decoder takes is an entry at once, any other goes to _slow_line for its reason."""
    entries, prev, match = hist.entries, pos.prev, TIMESTAMP_RE.match
    for lineno, at, raw, terminated in jsonl.lines(data, pos.lines, pos.offset):
        fast = _fast_line(raw)
        if fast is not None and fast.cursor > prev:
            ts = fast.timestamp
            if not match(ts):
                _odd_timestamp(hist, display, ts, lineno)
            prev = fast.cursor
            entries.append(HistoryEntry(lineno, prev, ts, fast.content, fast.session_key, at))
            continue
        prev = _slow_line(hist, display, raw, lineno, at, prev, terminated)
    pos.lines, pos.offset, pos.prev = pos.lines + jsonl.count(data), pos.offset + len(data), prev


def _slow_line(hist: History, display: str, raw: bytes, lineno: int, offset: int, prev: int,
               terminated: bool) -> int:
    """A line the fast decoder did not take: json.loads decides, and a bad line says why."""
    obj, why = parse_line(raw)
    if obj is not None and obj["cursor"] <= prev:
        why = f"cursor {obj['cursor']} does not follow {prev} (cursors must increase); skipped"
        obj = None
    if obj is None:
        if not terminated:
            why = f"truncated last line (no newline at the end; probably a crash mid-append): {why}"
        hist.bad_lines.append(BadLine(lineno, offset, why, raw[:2000].decode("utf-8", errors="replace")))
        hist.problems.append(Problem(display, why, line=lineno))
        return prev
    ts = obj["timestamp"]
    if not TIMESTAMP_RE.match(ts):
        _odd_timestamp(hist, display, ts, lineno)
    hist.entries.append(HistoryEntry(lineno, obj["cursor"], ts, obj["content"], obj.get("session_key"), offset))
    return obj["cursor"]


def _odd_timestamp(hist: History, display: str, ts: str, lineno: int) -> None:
    hist.problems.append(Problem(display, f"timestamp {ts!r} is not YYYY-MM-DD HH:MM; entry kept",
                                 line=lineno, severity=WARNING))


def _unreadable(exc: OSError, display: str) -> History:
    """What read_history says of a file it cannot read."""
    hist = History(exists=False)
    if isinstance(exc, FileNotFoundError):
        hist.problems.append(Problem(display, "missing (no compacted history yet)", severity="info"))
    else:
        hist.problems.append(Problem(display, f"cannot be read ({exc.strerror or exc})"))
    return hist


def read_history(path: Path, display: str = DISPLAY) -> History:
    try:
        data = read_bytes(path)
    except OSError as exc:
        return _unreadable(exc, display)
    return parse_history(data, display)


READ_BLOCK = 64 << 10        # small: peak memory is a few blocks; reads cost nothing next to parsing


def iter_history(path: Path, display: str = DISPLAY):
    """read_history's entries, unreadable lines and problems one by one in file order, read
    READ_BLOCK bytes at a time: memory stays flat however long the file (`dreamdesk history`)."""
    chunks = read_chunks(path, READ_BLOCK)
    try:
        next(chunks)                      # opened: a missing or unreadable file is said here
        first = next(chunks, b"")
    except OSError as exc:
        yield from _unreadable(exc, display).problems
        return
    pos, rest = _Progress(), first
    for chunk in chunks:
        rest += chunk
        cut = rest.rfind(b"\n") + 1
        yield from _in_order(rest[:cut], pos, display)
        rest = rest[cut:]
    yield from _in_order(rest, pos, display)


def _in_order(data: bytes, pos: _Progress, display: str):
    """One block's problems, then its entries and unreadable lines in file order."""
    block = History()
    _parse_into(block, data, pos, display)
    yield from block.problems
    if block.bad_lines:
        yield from sorted(block.entries + block.bad_lines, key=lambda x: x.line)
    else:
        yield from block.entries


SEAM = 64                       # bytes before the end of the last read, compared before a tail is trusted
# Up to this many bytes already read, every one of them is compared (a CRC-32) before a tail is
# trusted, not only the seam: a file cut short and grown again between two reads can have the
# same 64 bytes there (history lines end alike). nanobot caps the file near 1,000 lines (well
# under this); a larger file is compared at the seam only, so a 100,000-line history still
# reads an append without re-reading ~20 MB (measured ~3 ms for 4 MiB here).
PREFIX_CHECKED = 4 << 20
# How soon after a read a write can leave size and mtime as they were: a clock tick (Linux stamps
# files from a clock that moves every 1-10 ms), or 2 s where stamps are whole seconds (FAT: 2 s).
RACY_NS, RACY_COARSE_NS = 50_000_000, 2_000_000_000


class HistoryReader:
    """history.jsonl read once, then only from where the last read stopped while the file grows
    (same inode, larger, the same bytes at the seam); anything else (shrunk, replaced by the cap
    or another writer, bytes changed at the seam) is read whole. Each read returns what
    read_history gives, as a fresh History (new lists: callers keep old ones; the entries
    themselves are shared and never changed). One lock: the GUI's lanes share a Workspace.

    An unfinished last line is kept apart and read again when the file grows. A file written
    just before a read (within RACY_NS) is read again even if size and mtime did not move: mtime
    comes from a coarse clock, so a same-size rewrite in that instant would not show (git's
    "racily clean"). Its bytes are compared (a CRC-32 of what was parsed) before any parse."""

    def __init__(self, path: Path, display: str = DISPLAY):
        self.path = Path(path)
        self.display = display
        self._counts = {"full": 0, "tail": 0, "unchanged": 0, "checked": 0}
        self._lock = threading.Lock()
        self.version = 0            # moves with every parse (see read_versioned)
        self._forget()

    @property
    def stats(self) -> dict[str, int]:
        """How each read went: parsed whole, only its new tail, not at all (a stat), or read
        whole and found the same (a racy file, see above)."""
        with self._lock:
            return dict(self._counts)

    def _forget(self) -> None:
        self._key = None            # (device, inode, size, mtime_ns) of what was read
        self._racy = True
        self._done = History()      # the complete lines read so far (never handed out)
        self._pos = _Progress()     # where they end
        self._seam = b""            # their last SEAM bytes
        self._crc_done = 0          # their CRC-32
        self._crc = 0               # that of every byte parsed
        self._tail = History()      # an unfinished last line
        self._lines = self._size = 0

    def read(self) -> History:
        return self.read_versioned()[1]

    def read_versioned(self) -> tuple[int, History]:
        """(the version of what was read, the History): the version moves only when something
        was parsed, so two reads (on any thread) with one version hold the same history."""
        with self._lock:
            try:
                st = os.stat(self.path)
                if _key(st) == self._key and not self._racy:
                    self._counts["unchanged"] += 1
                else:
                    self._update(st)
            except OSError as exc:
                self._forget()
                self._counts["full"] += 1
                self.version += 1
                return self.version, _unreadable(exc, self.display)
            d, t = self._done, self._tail
            return self.version, History(d.entries + t.entries, d.bad_lines + t.bad_lines,
                                         d.problems + t.problems, self._lines, True, self._size)

    def _update(self, st: os.stat_result) -> None:
        started = time.time_ns()
        if self._key is not None and _key(st)[:2] == self._key[:2] and st.st_size > self._key[2]:
            end = self._pos.offset
            whole = end <= PREFIX_CHECKED         # small enough: compare every byte read before
            got, data = read_tail(self.path, 0 if whole else end - len(self._seam))
            same = (zlib.crc32(data[:end]) == self._crc_done and len(data) >= end if whole
                    else data.startswith(self._seam))
            if _key(got)[:2] == self._key[:2] and same:
                self._advance(data[end:] if whole else data[len(self._seam):])
                self._counts["tail"] += 1
                return self._remember(got, started)
        got, data = read_tail(self.path, 0)
        if _key(got) == self._key and zlib.crc32(data) == self._crc:
            self._counts["checked"] += 1        # racy, but the same bytes
            return self._remember(got, started)
        self._forget()
        self._advance(data)
        self._counts["full"] += 1
        self._remember(got, started)

    def _advance(self, data: bytes) -> None:
        """Parse `data`, the file from the end of the complete lines on."""
        self.version += 1
        cut = data.rfind(b"\n") + 1
        done, rest = data[:cut], data[cut:]
        with gc_paused():        # as parse_history: many new objects, none in a cycle
            _parse_into(self._done, done, self._pos, self.display)
        self._seam = (self._seam + done[-SEAM:])[-SEAM:]
        self._crc_done = zlib.crc32(done, self._crc_done)
        self._crc = zlib.crc32(rest, self._crc_done)
        end = _Progress(self._pos.offset, self._pos.lines, self._pos.prev)
        self._tail = History()
        _parse_into(self._tail, rest, end, self.display)
        self._lines, self._size = end.lines, end.offset

    def _remember(self, got: os.stat_result, started: int) -> None:
        self._key = _key(got)[:2] + (self._size, got.st_mtime_ns)
        window = RACY_COARSE_NS if got.st_mtime_ns % 1_000_000_000 == 0 else RACY_NS
        self._racy = got.st_mtime_ns > started - window


def _key(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _last_accepted(path: Path) -> tuple[int, bool, int]:
    """(the cursor the reader would accept last, file ends with \n, its size).

    That is the highest cursor on any parseable line (a line is accepted only above every
    earlier one), so the whole file is read: a tail scan could pick a line the reader skips and
    hand out a cursor that would be skipped too. The cap keeps the file near 1000 lines.
    """
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        return 0, True, 0
    return parse_history(data).last_cursor, (not data or data.endswith(b"\n")), len(data)


@dataclass(frozen=True, slots=True)
class AppendResult:
    entry: HistoryEntry
    dropped: int              # dreamed entries dropped by the cap
    started_new_line: bool    # the file ended in a truncated line
    collided_with: int | None = None   # the cursor another writer took at the same moment (ours moved on)


def append_entry(memory_dir: Path, content: str, session_key: str | None = None,
                 timestamp: str | None = None, *, cap: int = HISTORY_CAP,
                 lock_timeout: float = 30.0) -> AppendResult:
    """Append one entry with the cursor rule: max(.cursor, last line's cursor) + 1.

    Holds the history lock (in Dreamdesk's state, see state.py) across read-tail, append and .cursor write, so two processes
    appending at once never share a cursor. The append itself is O_APPEND (not a rename): an
    assistant appending without our lock writes into the same file, never a replaced inode.
    """
    memory_dir = Path(memory_dir)
    path = memory_dir / "history.jsonl"
    if not isinstance(content, str):
        raise TypeError("content must be a string")
    ts = timestamp or datetime.now().strftime("%Y-%m-%d %H:%M")
    make_dirs(memory_dir)
    with FileLock(lock_path(memory_dir.parent, "history"), timeout=lock_timeout, what="the history lock"):
        last, ends_nl, size = _last_accepted(path)
        cur, _ = read_cursor(memory_dir / ".cursor", "memory/.cursor")
        cursor = max(cur, last) + 1
        obj = {"cursor": cursor, "timestamp": ts, "content": content}
        if session_key is not None:
            obj["session_key"] = session_key
        line = json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n"
        prefix = b"" if ends_nl else b"\n"
        append_durably(path, prefix + line)
        collided = None
        for _attempt in range(COLLISION_RETRIES):
            moved = _move_if_collided(path, obj, size)
            if moved is None:
                break
            collided = collided if collided is not None else obj["cursor"]
            obj = moved
        cursor = obj["cursor"]
        write_cursor(memory_dir / ".cursor", max(cursor, read_cursor(memory_dir / ".cursor", "memory/.cursor")[0]))
        dropped = enforce_cap(memory_dir, cap) if cap else 0
    entry = HistoryEntry(0, cursor, ts, content, session_key)
    return AppendResult(entry, dropped, not ends_nl, collided)


COLLISION_RETRIES = 5


def _move_if_collided(path: Path, obj: dict, since: int) -> dict | None:
    """The assistant appends without our lock, so it can hand out the cursor we just used; the
    reader then skips whichever of the two lines comes later. Ours is the one that moves: it is
    taken out (a rewrite that keeps any append made meanwhile) and appended again above every
    cursor in the file. Only what was appended since our read (`since`) can collide: the rest
    was below our cursor then. Returns the entry as appended again, or None when nothing collided."""
    line = json.dumps(obj, ensure_ascii=False).encode("utf-8")
    with open(path, "rb") as fh:
        fh.seek(since)
        tail = fh.read()
    if not any(raw != line and _cursor_of(raw) == obj["cursor"] for _n, _o, raw, _t in jsonl.physical(tail)):
        return None
    data = read_bytes(path)
    hist = parse_history(data)
    at = data.rfind(line + b"\n")
    if at < 0 or not replace_keeping_appends(path, data, data[:at] + data[at + len(line) + 1:]):
        return None                   # the file changed under us: the next append looks again
    rest = parse_history(read_bytes(path))
    moved = dict(obj, cursor=max(rest.last_cursor, hist.last_cursor, obj["cursor"]) + 1)
    append_durably(path, json.dumps(moved, ensure_ascii=False).encode("utf-8") + b"\n")
    return moved


def _cursor_of(raw: bytes) -> int | None:
    obj, _ = parse_line(raw.rstrip(b"\r"))
    return obj["cursor"] if obj is not None else None


def enforce_cap(memory_dir: Path, cap: int = HISTORY_CAP) -> int:
    """Drop the oldest already-dreamed entries until at most `cap` entries remain.

    Never drops an entry above .dream_cursor and never touches a malformed line. Call with the
    history lock held. Returns how many entries were dropped. An assistant appends without our
    lock: if the file grew while the new one was prepared, nothing is replaced (the next append
    retries); lines it appends to the old file during the replace itself are carried over.
    """
    path = Path(memory_dir) / "history.jsonl"
    data = read_bytes(path)
    hist = parse_history(data)
    excess = len(hist.entries) - cap
    if excess <= 0:
        return 0
    dream, _ = read_cursor(Path(memory_dir) / ".dream_cursor", "memory/.dream_cursor")
    drop = {e.offset for e in hist.entries[:excess] if e.cursor <= dream}
    if not drop:
        return 0
    kept = [raw + (b"\n" if term else b"") for _, off, raw, term in jsonl.physical(data) if off not in drop]
    new = b"".join(kept)
    if not replace_keeping_appends(path, data, new):
        return 0
    return len(drop)



class AppendDetector:
    """Tells a real append to history.jsonl from the other events a watcher sees: the file grew,
    or it was rewritten (the cap, an atomic save) while .cursor, which every appender writes,
    rose. A read, a touch or a rewrite without a new cursor is not activity (issue 13.5: serve's
    own reads restarted the idle wait forever). Two stats and a read of .cursor, never a parse
    of the history: the window calls it on the GUI thread."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._seen = self._look()

    def _look(self) -> tuple[int, int]:
        try:
            size = self.path.stat().st_size
        except OSError:
            size = 0
        cursor, _ = read_cursor(self.path.with_name(".cursor"), "memory/.cursor")
        return size, cursor

    def check(self) -> bool:
        """Has the file been appended to since the last check?"""
        old_size, old_cursor = self._seen
        self._seen = self._look()
        size, cursor = self._seen
        return size > old_size or (size != old_size and cursor > old_cursor)
