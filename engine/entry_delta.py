"""The entries of one version of a file, found from the version before by parsing only what changed.

A history of 5,000 commits cannot afford a CommonMark parse of every version (a few ms each).
Two versions share a prefix and a suffix of lines; the blocks there are the old version's,
shifted. Only the lines between two *rest points* are parsed again. A rest point is a line
that starts a top-level block right after a blank line, at no indentation: the parser has
nothing open there (no fence, no HTML block, no paragraph to continue), so what follows it
reads the same whatever came before. The end point is checked in the new version too (its
changed lines may open a fence that runs on); when it does not hold, the whole file is parsed.
removed_entries on the whole texts is the rule; tests/test_entry_delta.py proves the two agree.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace

from .entries import (Entry, Removal, _blank, _Block, _front_matter, _indent, added_entries, entries_from,
                      headings_from, pair_removals, parse_blocks)


@dataclass(frozen=True, slots=True)
class Parsed:
    """One version of a file: its lines, blocks, entries and headings (all in \\n text)."""
    lines: tuple[str, ...]
    blocks: tuple[_Block, ...]
    entries: tuple[Entry, ...]
    headings: tuple[Entry, ...]


def parse(text: str) -> Parsed:
    lines = text.split("\n")
    return _made(lines, parse_blocks(lines))


def _made(lines: list[str], blocks: tuple[_Block, ...]) -> Parsed:
    return Parsed(tuple(lines), blocks, entries_from(lines, blocks), tuple(headings_from(lines, blocks)))


def reparse(old: Parsed, new_text: str) -> Parsed:
    """`new_text` parsed, reusing `old`'s blocks outside the changed lines."""
    new = new_text.split("\n")
    if tuple(new) == old.lines:
        return old
    blocks = _spliced(old, new)
    return _made(new, blocks if blocks is not None else parse_blocks(new))


def removals(old: Parsed, new: Parsed) -> list[Removal]:
    """Exactly entries.removed_entries(old text, new text)."""
    return pair_removals(old.entries, new.entries, list(old.headings), list(new.headings))


def additions(old: Parsed, new: Parsed) -> list[Entry]:
    return added_entries(old.entries, new.entries, list(old.headings), list(new.headings))


def _rest_point(lines, starts: set[int], i: int) -> bool:
    return i in starts and _blank(lines[i - 1]) and not _blank(lines[i]) and _indent(lines[i]) == 0


def _spliced(old: Parsed, new: list[str]) -> tuple[_Block, ...] | None:
    """The new version's blocks from old's plus a parse of the changed stretch; None when the
    stretch cannot be bounded by rest points (then the caller parses the whole file)."""
    lines, n_old, n_new = old.lines, len(old.lines), len(new)
    short = min(n_old, n_new)
    p = 0
    while p < short and lines[p] == new[p]:
        p += 1
    s = 0
    while s < short - p and lines[n_old - 1 - s] == new[n_new - 1 - s]:
        s += 1
    starts_list = [b.start for b in old.blocks]
    starts = set(starts_list)
    # start: the last rest point inside the shared prefix (its line and all above are the same)
    a = next((i for i in reversed(starts_list) if 0 < i < p and _rest_point(lines, starts, i)), 0)
    # end: the first rest point whose blank line above is already in the shared suffix
    first_shared = n_old - s
    b = next((i for i in starts_list if i > max(a, first_shared) and _rest_point(lines, starts, i)), n_old)
    shift = n_new - n_old
    end_new = b + shift
    region = list(new[a:end_new + 1]) if b < n_old else list(new[a:])
    got = parse_blocks(region, front_matter=a == 0)
    if a == 0 and _front_matter(new) != _front_matter(region):
        return None              # front matter that closes beyond the stretch
    cut = end_new - a
    if b < n_old:
        tail = [blk for blk in got if blk.start >= cut]
        if len(tail) != 1 or tail[0].start != cut or any(blk.end > cut for blk in got if blk.start < cut):
            return None          # the new lines leave something open across the end point
        got = tuple(blk for blk in got if blk.start < cut)
    ia = bisect.bisect_left(starts_list, a)
    ib = bisect.bisect_left(starts_list, b)
    return (old.blocks[:ia] + tuple(_moved(blk, a) for blk in got)
            + tuple(_moved(blk, shift) for blk in old.blocks[ib:]))


def _moved(block: _Block, by: int) -> _Block:
    return block if by == 0 else replace(block, start=block.start + by, end=block.end + by)
