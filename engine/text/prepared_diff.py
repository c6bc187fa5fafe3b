"""A diff made ready to draw, without Qt: every line lexed into markdown style runs, the changed
words of each removed/added pair marked, and the rows of both layouts (unified and side by
side) worked out. It is the slow part of showing a diff, so a view computes it off its GUI
thread once and draws either layout from the same immutable value.
"""

from __future__ import annotations

import difflib
import unicodedata
from dataclasses import dataclass

from .diffs import FileDiff, intraline
from .markdown_styles import styles

MIN_PAIR_SIMILARITY = 0.3   # below this, a removed/added pair is two different lines: no word marks

# (start, length, style kind or None, changed within its removed/added pair)
Span = tuple[int, int, "str | None", bool]
# a side-by-side row: (index of the older side's line, index of the newer side's line); None = filler
Row = tuple["int | None", "int | None"]


@dataclass(frozen=True, slots=True)
class PreparedLine:
    kind: str                       # " ", "-", "+"
    old_no: int | None
    new_no: int | None
    text: str                       # without its line ending
    eol: bool                       # the line ended with a newline
    spans: tuple[Span, ...]         # cover text from start to end

    def pieces(self):
        """(text, style kind, changed) for each span."""
        return [(self.text[s:s + n], kind, changed) for s, n, kind, changed in self.spans]


@dataclass(frozen=True, slots=True)
class PreparedHunk:
    index: int                      # 1-based, as in the FileDiff (and restore_snapshot)
    header: str
    added: int
    removed: int
    lines: tuple[PreparedLine, ...]
    rows: tuple[Row, ...]           # the side-by-side layout of `lines`


@dataclass(frozen=True, slots=True)
class PreparedFile:
    path: str
    old_exists: bool
    new_exists: bool
    added: int
    removed: int
    hunks: tuple[PreparedHunk, ...]
    digits: int                     # width of the widest line number


@dataclass(frozen=True, slots=True)
class PreparedDiff:
    files: tuple[PreparedFile, ...]

    def __bool__(self) -> bool:
        return bool(self.files)


def change_pairs(kinds: list[str]) -> tuple[Row, ...]:
    """Rows of a side-by-side hunk: context lines on both sides, each run of removed lines
    paired with the run of added lines that follows it."""
    rows: list[Row] = []
    i = 0
    while i < len(kinds):
        if kinds[i] == " ":
            rows.append((i, i))
            i += 1
            continue
        minus, plus = [], []
        while i < len(kinds) and kinds[i] == "-":
            minus.append(i)
            i += 1
        while i < len(kinds) and kinds[i] == "+":
            plus.append(i)
            i += 1
        for k in range(max(len(minus), len(plus))):
            rows.append((minus[k] if k < len(minus) else None, plus[k] if k < len(plus) else None))
    return tuple(rows)


def _strip(text: str) -> tuple[str, bool]:
    if text.endswith("\n"):
        return text[:-1].removesuffix("\r"), True
    return text, False


def _changed_spans(parts: list[tuple[str, str]], kind: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for k, t in parts:
        if k == kind and t.strip():
            spans.append((pos, pos + len(t)))
        pos += len(t)
    return spans


def _word_marks(a: str, b: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
    """The changed words of a removed line `a` and the added line `b` it became, or None when
    the two have too little in common for word marks to help."""
    if difflib.SequenceMatcher(None, a, b, autojunk=False).quick_ratio() < MIN_PAIR_SIMILARITY:
        return None
    left, right = intraline(a, b)
    same = sum(len(t) for k, t in left if k == "=")
    if same < MIN_PAIR_SIMILARITY * max(len(a), len(b), 1):
        return None
    return _changed_spans(left, "-"), _changed_spans(right, "+")


def _spans(text: str, marks: list[tuple[int, int]]) -> tuple[Span, ...]:
    """The line's style runs, cut where a changed stretch starts or ends."""
    if not marks:
        return tuple((s, n, kind, False) for s, n, kind in styles(text))
    out: list[Span] = []
    for s, n, kind in styles(text):
        cuts = sorted({s, s + n} | {c for a, b in marks for c in (a, b) if s < c < s + n})
        for a, b in zip(cuts, cuts[1:]):
            changed = any(x <= a < y for x, y in marks)
            out.append((a, b - a, kind, changed))
    return tuple(out)


def _hunk(h) -> PreparedHunk:
    texts = [_strip(x.text) for x in h.lines]
    rows = change_pairs([x.kind for x in h.lines])
    marks: dict[int, list[tuple[int, int]]] = {}
    for left, right in rows:
        if left is None or right is None or left == right:
            continue
        found = _word_marks(texts[left][0], texts[right][0])
        if found:
            marks[left], marks[right] = found
    lines = tuple(PreparedLine(x.kind, x.old_no, x.new_no, texts[i][0], texts[i][1], _spans(texts[i][0], marks.get(i, [])))
                  for i, x in enumerate(h.lines))
    return PreparedHunk(h.index, h.header, h.added, h.removed, lines, rows)


def prepare(diffs: list[FileDiff]) -> PreparedDiff:
    """Every file's hunks lexed, word-marked and laid out for both layouts (slow: off the GUI thread)."""
    files = []
    for d in diffs:
        numbers = [n for h in d.hunks[-1:] for x in h.lines for n in (x.old_no, x.new_no) if n]
        digits = len(str(max(numbers))) if numbers else 1
        files.append(PreparedFile(d.path, d.old_exists, d.new_exists, d.added, d.removed,
                                  tuple(_hunk(h) for h in d.hunks), digits))
    return PreparedDiff(tuple(files))


def _columns(ch: str) -> int:
    """Columns a character takes in a fixed-pitch font (a tab is drawn as four spaces)."""
    if ch.isascii():
        return 4 if ch == "\t" else 1
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def wrap_columns(text: str, width: int) -> list[tuple[int, int]]:
    """(start, end) pieces of `text`, each at most `width` columns, broken after a space where
    one is near the end, so a side-by-side half can wrap its own lines (the other half keeps
    its place)."""
    width = max(width, 8)
    if text.isascii() and "\t" not in text:
        return _wrap_ascii(text, width)
    return _wrap_walk(text, width)


def _wrap_walk(text: str, width: int) -> list[tuple[int, int]]:
    """wrap_columns for any text: a walk over its characters, counting each one's columns."""
    pieces, start, used, space = [], 0, 0, -1
    for i, ch in enumerate(text):
        w = _columns(ch)
        if used + w > width and i > start:
            cut = space + 1 if space >= start and space + 1 - start > width // 2 else i
            pieces.append((start, cut))
            used = sum(_columns(c) for c in text[cut:i])
            start = cut
        used += w
        if ch == " ":
            space = i
    pieces.append((start, len(text)))
    return pieces


def _wrap_ascii(text: str, width: int) -> list[tuple[int, int]]:
    """wrap_columns where every character is one column: the cuts found by slicing, not per character."""
    pieces, start = [], 0
    while len(text) - start > width:
        end = start + width
        space = text.rfind(" ", start, end)
        cut = space + 1 if space >= 0 and space + 1 - start > width // 2 else end
        pieces.append((start, cut))
        start = cut
    pieces.append((start, len(text)))
    return pieces
