"""Markdown entries: the unit the archive keeps. An entry is a list item with its continuation
lines (nested items included), or a paragraph, under its nearest heading. Headings and blank
lines are structure."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_ITEM = re.compile(r"^\s*([-*+]|\d{1,9}[.)])(\s|$)")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")


@dataclass(frozen=True, slots=True)
class Entry:
    heading: str | None      # the nearest heading line above, as written ("## Preferences")
    text: str                # the entry's lines joined with \n, trailing spaces stripped
    kind: str                # item | paragraph | code
    start: int               # 0-based line index in the file
    end: int                 # exclusive


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _norm(lines: list[str]) -> str:
    return "\n".join(line.rstrip() for line in lines)


def split_entries(text: str) -> list[Entry]:
    lines = text.split("\n")
    entries: list[Entry] = []
    heading: str | None = None
    cur: list[str] = []
    cur_kind = ""
    cur_start = 0
    in_fence = False

    def flush(end: int) -> None:
        nonlocal cur, cur_kind
        if cur and any(x.strip() for x in cur):
            entries.append(Entry(heading, _norm(cur).strip("\n"), cur_kind, cur_start, end))
        cur, cur_kind = [], ""

    for i, line in enumerate(lines):
        if in_fence:
            cur.append(line)
            if _FENCE.match(line):
                in_fence = False
                flush(i + 1)
            continue
        if _FENCE.match(line):
            flush(i)
            cur, cur_kind, cur_start, in_fence = [line], "code", i, True
            continue
        if not line.strip():
            flush(i)
            continue
        if _HEADING.match(line):
            flush(i)
            heading = line.strip()
            continue
        if _ITEM.match(line):
            if cur_kind == "item" and _indent(line) > _indent(cur[0]):
                cur.append(line)      # a nested item belongs to its parent item (one entry)
                continue
            flush(i)
            cur, cur_kind, cur_start = [line], "item", i
            continue
        if not cur:
            cur, cur_kind, cur_start = [line], "paragraph", i
        else:
            cur.append(line)          # continuation line of an item, or more of a paragraph
    flush(len(lines))
    return entries


@dataclass(frozen=True, slots=True)
class Removal:
    entry: Entry
    replaced_by: str | None   # the new entry that took its place (an edit), if any


def removed_entries(old: str, new: str) -> list[Removal]:
    """The entries of `old` that are not in `new` (as a multiset of texts; moving an entry to
    another heading is not a removal). Each is paired with the most similar added entry under
    the same heading, when one is similar enough to be its replacement."""
    new_entries = split_entries(new)
    old_entries = split_entries(old)
    gone = _unmatched(old_entries, new_entries)
    added = _unmatched(new_entries, old_entries)
    # a heading carries text too ("## Medical: allergic to penicillin"): one that leaves is kept
    gone += _unmatched(_headings(old), _headings(new))
    added += _unmatched(_headings(new), _headings(old))
    used: set[int] = set()
    out: list[Removal] = []
    for e in gone:
        best, best_ratio = None, 0.6
        for j, a in enumerate(added):
            if j in used or a.heading != e.heading:
                continue
            r = 1.0 if a.text.startswith(e.text) else \
                difflib.SequenceMatcher(None, e.text, a.text, autojunk=False).ratio()
            if r > best_ratio:
                best, best_ratio = j, r
        if best is not None:
            used.add(best)
            out.append(Removal(e, added[best].text))
        else:
            out.append(Removal(e, None))
    return out


def _headings(text: str) -> list[Entry]:
    lines = text.split("\n")
    out = []
    for i in _heading_lines(lines):
        parent = next((lines[j].strip() for j in reversed(_heading_lines(lines[:i]))), None)
        out.append(Entry(parent, lines[i].rstrip(), "heading", i, i + 1))
    return out


def _unmatched(these: list[Entry], others: list[Entry]) -> list[Entry]:
    """Entries of `these` whose text has no unused counterpart in `others` (multiset)."""
    remaining = Counter(e.text for e in others)
    out = []
    for e in these:
        if remaining[e.text] > 0:
            remaining[e.text] -= 1
        else:
            out.append(e)
    return out


def insert_entry(text: str, entry_text: str, heading: str | None) -> str:
    """Put `entry_text` back at the end of the section under `heading`; if that heading is gone,
    recreate it at the end of the file (or just append when there was no heading)."""
    # an entry archived while it was nested (or by an older splitter) comes back as an entry of
    # its own: at the section's own indentation, never as a child of whatever item ends the list
    block = _dedent(entry_text.split("\n"))
    entry_text = "\n".join(block)
    lines = text.split("\n")
    heads = _heading_lines(lines)
    idx = None
    if heading:
        idx = next((i for i in heads if lines[i].strip() == heading.strip()), None)
    fence = _open_fence(lines, 0, len(lines))
    if idx is None and fence is not None:
        # the file ends inside a code block nobody closed: what comes back goes before it, as
        # text of its own, never into the code
        head = "\n".join(lines[:fence]).rstrip("\n")
        parts = [p for p in (head, heading, entry_text) if p]
        return "\n\n".join(parts) + "\n\n" + "\n".join(lines[fence:])
    if idx is None:
        body = text.rstrip("\n")
        parts = [body] if body else []
        if heading:
            parts.append(heading)
        if parts and not heading and _ends_in_item(body.split("\n")) and _ITEM.match(block[0]):
            return body + "\n" + entry_text + "\n"
        return "\n\n".join(parts + [entry_text]) + "\n"
    end = next((j for j in heads if j > idx), len(lines))
    last = end
    open_at = _open_fence(lines, idx + 1, end)
    if open_at is not None:
        # the section ends inside an unclosed code block: the entry goes before that block
        new = lines[:open_at] + block + [""] + lines[open_at:]
        if open_at > idx + 1 and lines[open_at - 1].strip() and not (_ITEM.match(block[0]) and
                                                                    _ends_in_item(lines[idx + 1:open_at])):
            new.insert(open_at, "")
        return "\n".join(new)
    while last > idx + 1 and not lines[last - 1].strip():
        last -= 1
    # A list item joins the section's list; anything else gets a blank line before it.
    joins = _ITEM.match(block[0]) and _ends_in_item(lines[idx + 1:last])
    new = lines[:last] + ([] if joins else [""]) + block + lines[last:]
    if last == len(lines):
        new.append("")
    elif last == end:
        new.insert(last + len(block) + (0 if joins else 1), "")
    return "\n".join(new)


def dedent_entry(entry_text: str) -> str:
    """An entry as insert_entry writes it back: at its section's own level."""
    return "\n".join(_dedent(entry_text.split("\n")))


def _dedent(block: list[str]) -> list[str]:
    cut = _indent(block[0]) if block else 0
    return [line[min(cut, _indent(line)):] for line in block]


def contains_entry(text: str, entry_text: str) -> bool:
    """Is `entry_text` in `text`, as an entry of its own or as consecutive lines of a bigger one
    (a nested item still under its parent)?"""
    if any(e.text == entry_text for e in split_entries(text)):
        return True
    want = [line.rstrip() for line in entry_text.split("\n")]
    have = [line.rstrip() for line in text.split("\n")]
    return any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1))


def _open_fence(lines: list[str], start: int, end: int) -> int | None:
    """The line a code fence opened at in lines[start:end] that is still open at `end`, if any."""
    opened = None
    for i in range(start, end):
        if _FENCE.match(lines[i]):
            opened = None if opened is not None else i
    return opened


def _heading_lines(lines: list[str]) -> list[int]:
    """Indexes of real heading lines (a `# comment` inside a fenced code block is not one)."""
    out, fence = [], False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fence = not fence
        elif not fence and _HEADING.match(line):
            out.append(i)
    return out


def _ends_in_item(lines: list[str]) -> bool:
    """Whether the last entry in `lines` is a list item (walking back over continuation lines)."""
    for line in reversed(lines):
        if not line.strip() or _HEADING.match(line) or _FENCE.match(line):
            return False
        if _ITEM.match(line):
            return True
    return False
