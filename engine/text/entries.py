"""Markdown entries: the unit the archive keeps, read as CommonMark reads the file.

Blocks come from a CommonMark parser (markdown-it-py, its token line maps); the project's
rules sit on top. An entry is a top-level block: a list item with its continuation lines and
nested items, a paragraph, a code block (fenced or indented), a block quote, an HTML block,
link reference definitions, or YAML front matter at the top. Each has the nearest heading
above it. Headings (ATX and setext), thematic breaks and blank lines are structure.

A heading is recorded as written, each line stripped: "## Preferences" for ATX, and for a
setext heading its text line(s) and underline joined with \\n ("Preferences\\n-----------"),
so the level survives and a heading that is gone can be written back exactly."""

from __future__ import annotations

import difflib
import functools
from collections import Counter
from dataclasses import dataclass

from markdown_it import MarkdownIt

# Block structure only: inline parsing (emphasis, links) would cost time and change no line range.
# A deeper nesting than maxNesting makes markdown-it give the rest of the document to the deepest
# block; 100 levels is far past any real file and still well inside Python's recursion limit.
_MD = MarkdownIt("commonmark", {"maxNesting": 100}).disable(["inline", "text_join"])
_MD.parse("")   # compiles the rule chains once, here rather than in whichever thread parses first

# top-level token -> what it is to us; list items are taken one level down
_KINDS = {"paragraph_open": "paragraph", "fence": "code", "code_block": "code", "blockquote_open": "quote",
          "html_block": "html", "heading_open": "heading", "hr": "break"}


@dataclass(frozen=True, slots=True)
class Entry:
    heading: str | None      # the nearest heading above, as written ("## Preferences"; setext: both lines)
    text: str                # the entry's lines joined with \n, trailing spaces stripped
    kind: str                # item | paragraph | code | quote | html | reference | front matter
                             # (| heading, from _headings)
    start: int               # 0-based line index in the file
    end: int                 # exclusive


@dataclass(frozen=True, slots=True)
class EntryBlock:
    kind: str                # an Entry kind, or heading | break
    token: str               # markdown-it's token type (code_block is indented code)
    start: int
    end: int                 # exclusive, trailing blank lines left out
    written: str = ""        # a heading as written (see the module docstring)
    key: tuple[int, str] | None = None   # a heading's level and text: how it is found again


def is_blank(line: str) -> bool:
    return not line.strip(" \t\r")


def indent_width(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _norm(lines: list[str]) -> str:
    return "\n".join(line.rstrip() for line in lines)


@functools.lru_cache(maxsize=16)
def _blocks(text: str) -> tuple[EntryBlock, ...]:
    """The top-level blocks of `text`, in order. Cached: callers parse the same text many times."""
    return parse_blocks(text.split("\n"))


def parse_blocks(lines: list[str], front_matter: bool = True) -> tuple[EntryBlock, ...]:
    """The top-level blocks of a file's lines (`front_matter`: its first lines may be YAML front
    matter; False for a region cut from the middle of a file)."""
    # Our lines are text.split("\n"); markdown-it also ends a line at a lone \r. A CRLF's \r is part
    # of the line ending, and a lone \r reads as a space, so both count lines the same way.
    front = front_matter_lines(lines) if front_matter else 0
    src = "\n" * front + "\n".join(lines[front:])       # front matter lines read as blank
    tokens = _MD.parse(src.replace("\r\n", "\n").replace("\r", " "))
    out: list[EntryBlock] = [EntryBlock("front matter", "front_matter", 0, front)] if front else []
    for i, tok in enumerate(tokens):
        if tok.map is None or tok.nesting < 0:
            continue
        if tok.level == 0 and tok.type in _KINDS:
            kind = _KINDS[tok.type]
        elif tok.level == 1 and tok.type == "list_item_open":
            kind = "item"
        else:
            continue
        start, end = tok.map
        while end > start and is_blank(lines[end - 1]):
            end -= 1
        if kind != "heading":
            out.append(EntryBlock(kind, tok.type, start, end))
            continue
        key = (int(tok.tag[1:]), " ".join(tokens[i + 1].content.split()))    # h2, the inline text
        out.append(EntryBlock(kind, tok.type, start, end, _written("\n".join(lines[start:end])), key))
    return tuple(_with_references(out, lines))


def front_matter_lines(lines: list[str]) -> int:
    """How many lines YAML front matter takes at the top (0: none). Not CommonMark (a break, then
    a setext heading), but it is how nanobot reads a SKILL.md: `---`, at least one line, `---`."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    return next((i + 1 for i in range(2, len(lines)) if lines[i].rstrip() == "---"), 0)


def _with_references(blocks: list[EntryBlock], lines: list[str]) -> list[EntryBlock]:
    """Link reference definitions make no token: their lines, the only text no block covers,
    become entries too (one per run of lines), else one could leave the file unarchived."""
    out, at = [], 0
    for b in blocks + [EntryBlock("end", "", len(lines), len(lines))]:
        i = at
        while i < b.start:
            j = i
            while j < b.start and not is_blank(lines[j]):
                j += 1
            if j > i:
                out.append(EntryBlock("reference", "reference", i, j))
            i = j + 1
        if b.kind != "end":
            out.append(b)
        at = max(at, b.end)
    return out


@functools.lru_cache(maxsize=16)
def _entries(text: str) -> tuple[Entry, ...]:
    return entries_from(text.split("\n"), _blocks(text))


def entries_from(lines: list[str], blocks: tuple[EntryBlock, ...], heading: str | None = None) -> tuple[Entry, ...]:
    """The entries a file's blocks make (each under the nearest heading above; `heading`: the one
    above the first block)."""
    out: list[Entry] = []
    for b in blocks:
        if b.kind == "heading":
            heading = b.written
        elif b.kind != "break":
            body = _norm(lines[b.start:b.end]).strip("\n")
            if body.strip():
                out.append(Entry(heading, body, b.kind, b.start, b.end))
    return tuple(out)


def split_entries(text: str) -> list[Entry]:
    return list(_entries(text))


@dataclass(frozen=True, slots=True)
class Removal:
    entry: Entry
    replaced_by: str | None   # the new entry that took its place (an edit), if any


def removed_entries(old: str, new: str) -> list[Removal]:
    """The entries of `old` that are not in `new` (as a multiset of texts; moving an entry to
    another heading is not a removal). Each is paired with the most similar added entry under
    the same heading, when one is similar enough to be its replacement."""
    return pair_removals(split_entries(old), split_entries(new), _headings(old), _headings(new))


def pair_removals(old_entries, new_entries, old_heads, new_heads) -> list[Removal]:
    """removed_entries on parsed files (see engine.entry_delta, which parses only what changed)."""
    return entry_changes(old_entries, new_entries, old_heads, new_heads)[0]


def entry_changes(old_entries, new_entries, old_heads, new_heads) -> tuple[list[Removal], list[Entry]]:
    """pair_removals, and the entries (and headings) of the new file the old one did not have."""
    gone = _unmatched(old_entries, new_entries)
    added = _unmatched(new_entries, old_entries)
    slots = _slots(old_entries, gone) | _slots(new_entries, added)
    # a heading carries text too ("## Medical: allergic to penicillin"): one that leaves is kept
    gone += _unmatched(old_heads, new_heads)
    added += _unmatched(new_heads, old_heads)
    return _paired(gone, added, slots), added


def _slots(entries: list[Entry], changed: list[Entry]) -> dict[int, int]:
    """id(entry) -> how many unchanged entries stand before it in its file: a removed and an added
    entry with the same slot took the same place. Counted the same over a window of a file
    (entry_delta parses only what changed) as over the whole, since the lines before a window
    are the same in both versions."""
    changed_ids = {id(e) for e in changed}
    out, kept = {}, 0
    for e in entries:
        if id(e) in changed_ids:
            out[id(e)] = kept
        else:
            kept += 1
    return out


def _paired(gone: list[Entry], added: list[Entry], slots: dict[int, int]) -> list[Removal]:
    """Each removed entry with the most similar added entry under the same heading, when one is
    similar enough to be its replacement; else with the one added entry that took its very place
    (the same slot, under the same heading, nothing else removed there): an edit in place, however
    different the words ("Lives in Lisbon" -> "Lives in Braga")."""
    used: set[int] = set()
    paired: dict[int, int] = {}
    for i, e in enumerate(gone):
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
            paired[i] = best
    _pair_in_place(gone, added, slots, used, paired)
    return [Removal(e, added[paired[i]].text if i in paired else None) for i, e in enumerate(gone)]


def _pair_in_place(gone: list[Entry], added: list[Entry], slots: dict[int, int], used: set[int],
                   paired: dict[int, int]) -> None:
    """Pair what is left one to one by place: (heading, kind, slot) held by exactly one removed and
    one added entry."""
    def place(e: Entry):
        return (e.heading, e.kind, slots[id(e)]) if id(e) in slots else None
    left: dict = {}
    for i, e in enumerate(gone):
        if i not in paired and place(e) is not None:
            left.setdefault(place(e), []).append(i)
    came: dict = {}
    for j, a in enumerate(added):
        if j not in used and place(a) is not None:
            came.setdefault(place(a), []).append(j)
    for key, idx in left.items():
        if len(idx) == 1 and len(came.get(key, ())) == 1:
            paired[idx[0]] = came[key][0]
            used.add(came[key][0])


def _headings(text: str) -> list[Entry]:
    """The headings of `text` as entries (a heading can carry a fact), each under the one above."""
    return headings_from(text.split("\n"), _blocks(text))


def headings_from(lines: list[str], blocks: tuple[EntryBlock, ...], parent: str | None = None) -> list[Entry]:
    out: list[Entry] = []
    for b in blocks:
        if b.kind == "heading":
            out.append(Entry(parent, _norm(lines[b.start:b.end]), "heading", b.start, b.end))
            parent = b.written
    return out


def _heading_lines(lines: list[str]) -> list[int]:
    """Where the real headings start (a `# comment` inside a code block is not one)."""
    return [b.start for b in _blocks("\n".join(lines)) if b.kind == "heading"]


def _unmatched(these: list[Entry], others: list[Entry]) -> list[Entry]:
    """Entries of `these` whose text has no unused counterpart in `others` (multiset)."""
    if not these or not others:
        return list(these)               # the usual case in a step of a few lines: no counting
    remaining: dict[str, int] = {}
    for e in others:
        remaining[e.text] = remaining.get(e.text, 0) + 1
    out = []
    for e in these:
        left = remaining.get(e.text, 0)
        if left:
            remaining[e.text] = left - 1
        else:
            out.append(e)
    return out


# -- headings found again --------------------------------------------------------------------------
def _written(heading: str) -> str:
    return "\n".join(line.strip() for line in heading.strip().split("\n"))


def _heading_key(heading: str) -> tuple[int, str] | None:
    """A heading's level and text, however it is written; None if `heading` reads as no heading."""
    blocks = _blocks(heading.strip())
    return blocks[0].key if len(blocks) == 1 and blocks[0].kind == "heading" else None


def _find_headings(blocks: tuple[EntryBlock, ...], heading: str) -> list[EntryBlock]:
    """The heading blocks written as `heading`, then those of the same level and text written
    another way ("## Preferences" finds a setext "Preferences" over "---")."""
    heads = [b for b in blocks if b.kind == "heading"]
    want, key = _written(heading), _heading_key(heading)
    exact = [b for b in heads if b.written == want]
    return exact + [b for b in heads if b.written != want and key is not None and b.key == key]


def has_heading(text: str, heading: str) -> bool:
    """Would insert_entry find `heading` in `text` (rather than recreate it)?"""
    return bool(_find_headings(_blocks(text), heading))


# -- putting an entry back -----------------------------------------------------------------------------
def insert_entry(text: str, entry_text: str, heading: str | None) -> str:
    """Put `entry_text` back at the end of the section under `heading` (see _find_headings); if that
    heading is gone, recreate it at the end of the file (or just append when there was no heading).

    Each placement is checked by parsing the result, and the first that keeps every entry and adds
    this one under its heading wins: an item joins the section's list, else the entry gets a blank
    line before it, else it goes before the section's last block (a code block nobody closed runs to
    the end of the file and would swallow it), else right under the heading; then the same in the
    next section with that heading, and last at the end of the file under the heading recreated."""
    # an entry archived while it was nested (or by an older splitter) comes back as an entry of
    # its own: at the section's own indentation, never as a child of whatever item ends the list
    block = _dedent(entry_text.split("\n"))
    lines = text.split("\n")
    blocks = _blocks(text)
    found = _find_headings(blocks, heading) if heading else []
    tries = [(t, h.written) for h in found for t in _in_section(lines, blocks, h, block)]
    # no section takes it (a code block nobody closed fits only at the end): recreate the heading
    under = _written(heading) if heading else None
    tries += [(t, under) for t in _at_end(text, lines, blocks, block, heading)]
    want = _norm(block).strip("\n")
    if [e.text for e in _entries(want)] != [want]:
        return tries[0][0]       # not one entry (a heading, say): nothing to check it against
    return next((t for t, h in tries if _adds(text, t, want, h)), tries[0][0])


def _in_section(lines: list[str], blocks: tuple[EntryBlock, ...], head: EntryBlock, block: list[str]) -> list[str]:
    after = blocks[blocks.index(head) + 1:]
    nxt = next((i for i, b in enumerate(after) if b.kind == "heading"), len(after))
    body = after[:nxt]
    item = _is_item(block)
    tries = []
    if body:
        last = body[-1]
        if item and last.kind == "item":
            tries.append(_splice(lines, last.end, block, gap=False))
        tries.append(_splice(lines, last.end, block, gap=True))
        # before the last block, which may run to the end of the file (a code block nobody closed)
        if item and len(body) > 1 and body[-2].kind == "item":
            tries.append(_splice(lines, body[-2].end, block, gap=False))
        tries.append(_splice(lines, last.start, block, gap=True))
    tries.append(_splice(lines, head.end, block, gap=True))       # right under the heading
    return tries


def _at_end(text: str, lines: list[str], blocks: tuple[EntryBlock, ...], block: list[str],
            heading: str | None) -> list[str]:
    entry = "\n".join(block)
    body = text.rstrip("\n")
    parts = ([body] if body else []) + ([heading] if heading else [])
    tries = []
    if body and not heading and blocks and blocks[-1].kind == "item" and _is_item(block):
        tries.append(body + "\n" + entry + "\n")
    tries.append("\n\n".join(parts + [entry]) + "\n")
    if blocks:
        # before the last block, which may run to the end of the file (a code block nobody closed)
        head = "\n".join(lines[:blocks[-1].start]).rstrip("\n")
        tries.append("\n\n".join(p for p in (head, heading, entry) if p) + "\n\n" +
                     "\n".join(lines[blocks[-1].start:]))
    return tries


def _splice(lines: list[str], at: int, block: list[str], gap: bool) -> str:
    """`block` inserted before lines[at], with a blank line before it (`gap`) and after it."""
    before, after = lines[:at], lines[at:]
    if gap and before and not is_blank(before[-1]):
        before = before + [""]
    if not after:
        after = [""]                         # the file ends with a newline after it
    elif not is_blank(after[0]):
        after = [""] + after
    return "\n".join(before + block + after)


def _adds(before: str, after: str, entry: str, under: str | None) -> bool:
    """Does `after` hold every entry of `before` plus `entry`, under `under` when one is named?"""
    want = Counter(e.text for e in _entries(before))
    want[entry] += 1
    got = _entries(after)
    if Counter(e.text for e in got) != want:
        return False
    return under is None or (sum(e.heading == under and e.text == entry for e in got) >
                             sum(e.heading == under and e.text == entry for e in _entries(before)))


def _is_item(block: list[str]) -> bool:
    blocks = _blocks("\n".join(block))
    return bool(blocks) and blocks[0].kind == "item"


def dedent_entry(entry_text: str) -> str:
    """An entry as insert_entry writes it back: at its section's own level."""
    return "\n".join(_dedent(entry_text.split("\n")))


def _dedent(block: list[str]) -> list[str]:
    cut = indent_width(block[0]) if block else 0
    out = [line[min(cut, indent_width(line)):] for line in block]
    if cut and not _is_item(out) and [b.token for b in _blocks("\n".join(block))][:1] == ["code_block"]:
        return block             # indented code: the indentation is what makes it code
    return out


def contains_entry(text: str, entry_text: str) -> bool:
    """Is `entry_text` in `text`, as an entry of its own or as consecutive lines of a bigger one
    (a nested item still under its parent)?"""
    if any(e.text == entry_text for e in _entries(text)):
        return True
    want = [line.rstrip() for line in entry_text.split("\n")]
    have = [line.rstrip() for line in text.split("\n")]
    return any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1))


def heading_label(heading: str | None) -> str:
    """'## Preferences', or setext 'Preferences' over '---', -> 'Preferences' (the raw heading is
    in the tooltip and the detail)."""
    if not heading:
        return ""
    lines = heading.strip().split("\n")
    if len(lines) > 1:       # setext (engine/text/entries.py records both lines): the text over its underline
        return " ".join(line.strip() for line in lines[:-1])
    return heading.strip().lstrip("#").strip() or heading.strip()
