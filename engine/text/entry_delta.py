"""The entries of one version of a file, found from the version before by parsing only what changed.

A history of 5,000 commits cannot afford a CommonMark parse of every version (a few ms each).
Two versions share a prefix and a suffix of lines; the blocks there are the old version's,
shifted. Only the lines between two *rest points* are parsed again. A rest point is a line
that starts a top-level block (or a top-level list item: nanobot's lists are tight) at no
indentation: no fence, HTML block or paragraph runs through it, so what follows it reads the
same whatever came before. The end point is checked in the new version too (its
changed lines may open a fence that runs on); when it does not hold, the whole file is parsed.
removed_entries on the whole texts is the rule; tests/engine/text/test_entry_delta.py proves the two agree.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from .entries import (Entry, Removal, is_blank, EntryBlock, front_matter_lines, indent_width, entries_from, entry_changes,
                      headings_from, pair_removals, parse_blocks)


@dataclass(frozen=True, slots=True)
class Parsed:
    """One version of a file: its lines, blocks, entries and headings (all in \\n text)."""
    lines: tuple[str, ...]
    blocks: tuple[EntryBlock, ...]
    entries: tuple[Entry, ...]
    headings: tuple[Entry, ...]


def parse(text: str) -> Parsed:
    lines = text.split("\n")
    return made_from(lines, parse_blocks(lines))


def made_from(lines: list[str], blocks: tuple[EntryBlock, ...]) -> Parsed:
    return Parsed(tuple(lines), blocks, entries_from(lines, blocks), tuple(headings_from(lines, blocks)))


def reparse(old: Parsed, new_text: str) -> Parsed:
    """`new_text` parsed, reusing `old`'s blocks and entries outside the changed lines."""
    return step(old, new_text)[0]


def step(old: Parsed, new_text: str) -> tuple[Parsed, list[Removal], list[Entry]]:
    """reparse, and changes(old, new) compared over the changed stretch alone when no entry
    that came or went there has a twin outside it (else over the whole files)."""
    new = new_text.split("\n")
    if tuple(new) == old.lines:
        return old, [], []
    cut = _spliced(old, new)
    if cut is None:
        parsed = made_from(new, parse_blocks(new))
        return (parsed, *changes(old, parsed))
    parsed = _joined(old, new, *cut)
    a, b = cut[0], cut[1]
    b_new = b + len(new) - len(old.lines)
    parts = [_split(items, a, end) for items, end in ((old.entries, b), (parsed.entries, b_new),
                                                      (old.headings, b), (parsed.headings, b_new))]
    gone, added = entry_changes(*(mid for _, mid in parts))
    if any(_twin(e.text, *parts[i][0]) for e in [r.entry for r in gone] + added
           for i in ((2,) if e.kind == "heading" else (0,))):
        gone, added = changes(old, parsed)
    return parsed, gone, added


def _split(items, a: int, b: int):
    """(entries outside [a, b), entries inside it)."""
    starts = [e.start for e in items]
    i, j = bisect.bisect_left(starts, a), bisect.bisect_left(starts, b)
    return (items[:i], items[j:]), list(items[i:j])


def _twin(text: str, above, below) -> bool:
    return any(e.text == text for e in above) or any(e.text == text for e in below)


def removals(old: Parsed, new: Parsed) -> list[Removal]:
    """Exactly entries.removed_entries(old text, new text)."""
    return pair_removals(old.entries, new.entries, list(old.headings), list(new.headings))


def changes(old: Parsed, new: Parsed) -> tuple[list[Removal], list[Entry]]:
    """removals(old, new), and the entries (headings too) new has that old had not."""
    return entry_changes(old.entries, new.entries, list(old.headings), list(new.headings))


def _joined(old: Parsed, new: list[str], a: int, b: int, region: tuple[EntryBlock, ...]) -> Parsed:
    """The new version from old's blocks, entries and headings above line `a` and from line `b`
    (moved by the change in length), and the region's in between (under the heading above)."""
    shift = len(new) - len(old.lines)
    ia, ib = (bisect.bisect_left([x.start for x in old.blocks], i) for i in (a, b))
    mid = tuple(_moved(blk, a) for blk in region)
    blocks = old.blocks[:ia] + mid + tuple(_moved(blk, shift) for blk in old.blocks[ib:])
    above = next((x.written for x in reversed(old.blocks[:ia]) if x.kind == "heading"), None)
    at_b = next((x.written for x in reversed(blocks[:ia + len(mid)]) if x.kind == "heading"), None)
    # the old entries from b up to the next heading sit under whatever heading is above b now
    until = next((x.start for x in old.blocks[ib:] if x.kind == "heading"), len(old.lines))
    e_above, e_below = _kept(old.entries, a, b, shift, at_b, until)
    h_above, h_below = _kept(old.headings, a, b, shift, at_b, until + 1)
    return Parsed(tuple(new), blocks, e_above + entries_from(new, mid, above) + e_below,
                  h_above + tuple(headings_from(new, mid, above)) + h_below)


def _kept(items, a: int, b: int, shift: int, heading: str | None, until: int
          ) -> tuple[tuple[Entry, ...], tuple[Entry, ...]]:
    """Entries above `a` as they were, and those from `b` moved by `shift` (those starting before
    `until` now under `heading`)."""
    starts = [e.start for e in items]
    before = tuple(items[:bisect.bisect_left(starts, a)])
    after = tuple(Entry(heading if e.start < until else e.heading, e.text, e.kind, e.start + shift, e.end + shift)
                  for e in items[bisect.bisect_left(starts, b):])
    return before, after


def _rest_point(lines, starts: set[int], i: int) -> bool:
    return i in starts and not is_blank(lines[i]) and indent_width(lines[i]) == 0


def _spliced(old: Parsed, new: list[str]) -> tuple[int, int, tuple[EntryBlock, ...]] | None:
    """Where the changed stretch starts (a) and ends in old (b), and its blocks parsed (lines
    counted from a); None when it cannot be bounded by rest points (then the caller parses the
    whole file)."""
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
    got = simple_blocks(region) if a else None
    if got is None:
        got = parse_blocks(region, front_matter=a == 0)
    if front_matter_lines(new) != (front_matter_lines(region) if a == 0 else front_matter_lines(list(lines))):
        return None              # front matter opened, closed or moved by the change
    cut = end_new - a
    if b < n_old:
        tail = [blk for blk in got if blk.start >= cut]
        if len(tail) != 1 or tail[0].start != cut or any(blk.end > cut for blk in got if blk.start < cut):
            return None          # the new lines leave something open across the end point
        got = tuple(blk for blk in got if blk.start < cut)
    return a, b, got


# The lines most memory-file edits touch: a one-line bullet item starting with a word (or a "#":
# an ATX heading or a paragraph inside the item, which no simple line continues), or an ATX
# heading without a closing sequence. A stretch made only of these (and blank lines) has one
# block per line and needs no parser (no thematic break "- ---", no ordered list, no
# continuation lines).
_ITEM = re.compile(r"[-*+] [\w\[(\"'`#][^\t]*\Z")
_ATX = re.compile(r"(#{1,6}) +(\S[^\t]*)\Z")


def simple_line(line: str) -> bool:
    """Empty, a one-line item or an ATX heading (see above)."""
    return not line or _simple_item(line) or _simple_heading(line) is not None


def _simple_item(line: str) -> bool:
    return _ITEM.match(line) is not None and "`" not in line[:3 + 3]


def _simple_heading(line: str) -> re.Match | None:
    m = _ATX.match(line)
    return None if m is None or line.rstrip().endswith("#") else m


def simple_blocks(lines: list[str]) -> tuple[EntryBlock, ...] | None:
    out = []
    for i, line in enumerate(lines):
        if not line:
            continue
        if _simple_item(line):
            out.append(EntryBlock("item", "list_item_open", i, i + 1))
            continue
        m = _simple_heading(line)
        if m is None:
            return None
        out.append(EntryBlock("heading", "heading_open", i, i + 1, line.strip(), (len(m.group(1)), " ".join(m.group(2).split()))))
    return tuple(out)


def _moved(block: EntryBlock, by: int) -> EntryBlock:
    return block if by == 0 else EntryBlock(block.kind, block.token, block.start + by, block.end + by, block.written,
                                        block.key)
