"""The entry delta of a *flat* version: one whose every line is empty, a one-line item or an ATX
heading (entry_delta.simple_line), as nanobot writes USER.md and MEMORY.md.

In a flat version each non-empty line is one block, so its entries are its lines (text: the
line with trailing spaces stripped, heading: the last heading line above) and no block list,
entry list or parse is kept at all: a version is its lines. The step from one version to the
next compares only the lines between the shared prefix and the shared suffix, unless an entry
that came or went there has a twin outside them (then the whole files, as entry_delta.step
does). A version that stops being flat is parsed once and goes on through entry_delta.step.
tests/engine/text/test_entry_delta.py proves `advance` equal to entries.removed_entries.
"""

from __future__ import annotations

from dataclasses import dataclass

from .entries import Entry, Removal, entry_changes
from .entry_delta import Parsed, made_from, simple_blocks, parse, simple_line, step


@dataclass(frozen=True, slots=True)
class Flat:
    lines: tuple[str, ...]
    texts: tuple[str, ...]           # each line as an entry's text ("" for an empty line)

    def parsed(self) -> Parsed:
        """The same version as entry_delta.parse gives it."""
        lines = list(self.lines)
        return made_from(lines, simple_blocks(lines))


Version = Parsed | Flat


def version(text: str) -> Version:
    """`text` as a version: flat when it can be, else parsed whole."""
    lines = text.split("\n")
    return _flat(lines) or parse(text)


def advance(old: Version, new_text: str) -> tuple[Version, list[Removal], list[Entry]]:
    """The next version, the entries it removed (each with its replacement, as removed_entries
    pairs them) and the entries it added, from the version before."""
    if isinstance(old, Flat):
        got = _flat_step(old, new_text.split("\n"))
        if got is not None:
            return got
        old = old.parsed()
    new, gone, added = step(old, new_text)
    return _flat(list(new.lines)) or new, gone, added


def _flat(lines: list[str]) -> Flat | None:
    if all(map(simple_line, lines)):
        return Flat(tuple(lines), tuple(map(str.rstrip, lines)))
    return None


def _flat_step(old: Flat, new: list[str]) -> tuple[Flat, list[Removal], list[Entry]] | None:
    lines, n_old, n_new = old.lines, len(old.lines), len(new)
    short = min(n_old, n_new)
    p = 0
    while p < short and lines[p] == new[p]:
        p += 1
    if p == n_old == n_new:
        return old, [], []
    s = 0
    while s < short - p and lines[n_old - 1 - s] == new[n_new - 1 - s]:
        s += 1
    changed = new[p:n_new - s]
    if not all(map(simple_line, changed)):
        return None
    texts = old.texts
    new_texts = texts[:p] + tuple(map(str.rstrip, changed)) + texts[n_old - s:]
    above = next((t for t in reversed(texts[:p]) if t[:1] == "#"), None)
    gone, added = _changes(texts, new_texts, p, n_old - s, n_new - s, above)
    outside = texts[:p] + texts[n_old - s:]
    if any(e.text in outside for e in [r.entry for r in gone] + added):
        gone, added = _changes(texts, new_texts, 0, n_old, n_new, None)     # a twin: the whole files
    return Flat(tuple(new), new_texts), gone, added


def _changes(old: tuple[str, ...], new: tuple[str, ...], a: int, b_old: int, b_new: int, above: str | None):
    """entry_changes over old[a:b_old] and new[a:b_new] (`above`: the heading over line a)."""
    old_items, old_heads = _entries(old, a, b_old, above)
    new_items, new_heads = _entries(new, a, b_new, above)
    return entry_changes(old_items, new_items, old_heads, new_heads)


def _entries(texts: tuple[str, ...], a: int, b: int, heading: str | None) -> tuple[list[Entry], list[Entry]]:
    """The items and the headings (as entries) of lines a..b of a flat version."""
    items: list[Entry] = []
    heads: list[Entry] = []
    for i in range(a, b):
        t = texts[i]
        if not t:
            continue
        if t[0] == "#":
            heads.append(Entry(heading, t, "heading", i, i + 1))
            heading = t
        else:
            items.append(Entry(heading, t, "item", i, i + 1))
    return items, heads
