"""MEMORY.md from one saved version to the next, and which of OpenClaw's runs made each change.

For the caller: openclaw_runs and openclaw_archive call `memory_step(old, new, runs)` for each pair
of consecutive versions (the pre-images OpenClaw saved, then the file as it is now) with the runs
that fall between them; the result says, entry by entry, what each run added and removed and
what nobody OpenClaw recorded did (the agent's own edits, a person's, `openclaw memory forget`).

Entries are Dreamdesk's (engine/text/entries.py: CommonMark blocks under their heading); the
promotion marker `<!-- openclaw-memory-promotion:KEY -->` on the line before an entry (and the
lineage marker `<!-- openclaw-memory-lineage:KEY -->` before that) are read as that entry's key
and lineage, not as entries. Rules from OpenClaw 2026.9.6 (`short-term-promotion-*.mjs`,
`memory-budget-*.mjs`):
- A consolidating sweep (one per step at most: it saves the pre-image that starts the step)
  appends one `## Consolidated Memory (DATE)` section and removes the prior entries it merged
  (their text, stripped of `- `, trigger/importance/project comments, `Source: …#Lx-Ly` and
  `[score=…]`, lower-cased, equals the new entry's) or superseded (same lineage), each with its
  marker lines. DREAMS.md's highlights name the first 8 of them.
- An append-only run (`memory promote --apply`, or a sweep whose rewrite fell back) appends a
  `## Promoted From Short-Term Memory (DATE)` section, and may drop the oldest whole generated
  sections of that name to stay within the promotion budget (compaction).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..text.entries import Entry, entries_from, headings_from, parse_blocks

_PROMOTION = re.compile(r"^<!--\s*openclaw-memory-promotion:(.+?)\s*-->$")
_LINEAGE = re.compile(r"^<!--\s*openclaw-memory-lineage:(.+?)\s*-->$")
CONSOLIDATED, PROMOTED = "## Consolidated Memory (", "## Promoted From Short-Term Memory ("


@dataclass(frozen=True, slots=True)
class MemEntry:
    heading: str | None
    text: str
    start: int                 # 0-based line in its version
    end: int
    key: str | None = None     # the promotion marker's candidate key
    lineage: str | None = None
    kind: str = "item"         # an Entry kind, or "heading"

    def to_json(self) -> dict:
        return {"heading": self.heading, "text": self.text, "key": self.key, "lineage": self.lineage,
                "kind": self.kind}


@dataclass(frozen=True, slots=True)
class Claimant:
    """A run that may have changed MEMORY.md within a step."""
    id: str
    consolidating: bool        # rewrote MEMORY.md (its pre-image starts the step)
    keys: frozenset[str] = frozenset()      # the candidates it promoted (events, DREAMS.md)
    priors: tuple[str, ...] = ()            # DREAMS.md's "- `- …`" highlights: entries it replaced


@dataclass(frozen=True, slots=True)
class Change:
    entry: MemEntry
    why: str                   # added | promoted | merged | superseded | replaced | compacted | outside
    other: str | None = None   # a removal: the entry that replaced it; an addition: the one it replaced

    def to_json(self) -> dict:
        return {**self.entry.to_json(), "why": self.why, "other": self.other}


@dataclass
class Step:
    added: dict[str, list[Change]] = field(default_factory=dict)     # claimant id -> its additions
    removed: dict[str, list[Change]] = field(default_factory=dict)
    outside_added: list[Change] = field(default_factory=list)        # nobody OpenClaw recorded
    outside_removed: list[Change] = field(default_factory=list)


def memory_entries(text: str) -> tuple[list[MemEntry], list[MemEntry]]:
    """The entries (markers folded into the entry after them) and the headings of a version."""
    lines = text.replace("\r\n", "\n").split("\n")
    blocks = parse_blocks(lines)
    out: list[MemEntry] = []
    key = lineage = None
    marker_end = -1
    for e in entries_from(lines, blocks):
        p, g = _PROMOTION.match(e.text.strip()), _LINEAGE.match(e.text.strip())
        if e.kind == "html" and (p or g):
            if g:
                lineage, key = g.group(1), None
            else:
                key = p.group(1) if p else None
            marker_end = e.end
            continue
        attached = e.start == marker_end
        out.append(MemEntry(e.heading, e.text, e.start, e.end, key if attached else None,
                            lineage if attached else None, e.kind))
        key = lineage = None
    heads = [_heading(h) for h in headings_from(lines, blocks)]
    return out, heads


def _heading(h: Entry) -> MemEntry:
    return MemEntry(h.heading, h.text, h.start, h.end, kind="heading")


def fact(text: str) -> str:
    """normalizeComparableMemoryFact: what OpenClaw compares to call two entries the same fact."""
    v = re.sub(r"^[-*+]\s+", "", text, count=1)
    v = re.sub(r"\s+<!--\s*trigger:[^\r\n]*?-->", "", v, flags=re.I)
    v = re.sub(r"\s+<!--\s*importance:\s*\d+\s*-->", "", v, flags=re.I)
    v = re.sub(r"\s+<!--\s*project:\s*[^\r\n]*?-->", "", v, flags=re.I)
    v = re.sub(r"\s+Source:\s+[^\r\n]+#L\d+-L\d+\s*$", "", v, flags=re.I)
    v = re.sub(r"\s+\[score=\d+(?:\.\d+)? signals=\d+ recalls=\d+ avg=\d+(?:\.\d+)? source=[^\]]+\]\s*$", "", v, count=1)
    return re.sub(r"\s+", " ", v).strip().lower()


def highlight_of(text: str) -> str:
    """An entry as DREAMS.md's highlight shows it: `- <entry>`, cut at 180, backticks as '."""
    return ("- " + text.strip())[:180].replace("`", "'")


def _gone(these: list[MemEntry], others: list[MemEntry]) -> list[MemEntry]:
    """Entries of `these` whose text has no unused counterpart in `others` (as multisets)."""
    left = Counter(e.text for e in others)
    out = []
    for e in these:
        if left[e.text]:
            left[e.text] -= 1
        else:
            out.append(e)
    return out


def memory_step(old: str, new: str, runs: list[Claimant]) -> Step:
    """What changed from `old` to `new`, each change given to the run that made it (see the module)."""
    old_entries, old_heads = memory_entries(old)
    new_entries, new_heads = memory_entries(new)
    removed, added = _gone(old_entries, new_entries), _gone(new_entries, old_entries)
    step = Step({r.id: [] for r in runs}, {r.id: [] for r in runs})
    owner = _owners(added, runs)
    taken: set[int] = set()
    for r in runs:
        mine = [e for e in added if owner.get(id(e)) == r.id]
        step.removed[r.id] = _removals(r, removed, mine, taken, runs)
        replaced = {c.other: c.entry.text for c in step.removed[r.id] if c.other is not None}
        step.added[r.id] = [Change(e, _added_why(r, e, replaced), replaced.get(e.text)) for e in mine]
    step.outside_added += [Change(e, "outside") for e in added if id(e) not in owner]
    step.outside_removed += [Change(e, "outside") for e in removed if id(e) not in taken]
    _headings_to(step.added, step.outside_added, _gone(new_heads, old_heads), new_heads, new_entries, whole=False)
    _headings_to(step.removed, step.outside_removed, _gone(old_heads, new_heads), old_heads, old_entries, whole=True)
    return step


def _owners(added: list[MemEntry], runs: list[Claimant]) -> dict[int, str]:
    """id(added entry) -> the run that wrote it: by its promotion key first, then by the section
    it sits in (a Consolidated one is the consolidating sweep's; a Promoted-From one is the
    appending run's when only one appended in the step)."""
    owner = {id(e): r.id for e in added for r in runs if e.key is not None and e.key in r.keys}
    appenders = [r for r in runs if not r.consolidating]
    for e in added:
        if id(e) in owner:
            continue
        heading = e.heading or ""
        sweep = next((r for r in runs if r.consolidating), None)
        if heading.startswith(CONSOLIDATED) and sweep is not None:
            owner[id(e)] = sweep.id
        elif heading.startswith(PROMOTED) and len(appenders) == 1:
            owner[id(e)] = appenders[0].id
    return owner


def _removals(r: Claimant, removed: list[MemEntry], mine: list[MemEntry], taken: set[int],
              runs: list[Claimant]) -> list[Change]:
    out = []
    for e in removed:
        if id(e) in taken:
            continue
        change = _replaced(r, e, mine) if r.consolidating else _compacted(r, e, mine, runs)
        if change is not None:
            taken.add(id(e))
            out.append(change)
    return out


def _replaced(r: Claimant, e: MemEntry, mine: list[MemEntry]) -> Change | None:
    """A prior entry the consolidating sweep merged into, or superseded with, one of its own."""
    if e.lineage is not None:
        by = next((m for m in mine if m.lineage == e.lineage), None)
        if by is not None:
            return Change(e, "superseded", by.text)
    by = next((m for m in mine if fact(m.text) == fact(e.text)), None)
    if by is not None:
        return Change(e, "merged", by.text)
    shown = highlight_of(e.text)
    if any(p == shown or (len(p) >= 179 and shown.startswith(p)) for p in r.priors):
        return Change(e, "replaced", mine[0].text if len(mine) == 1 else None)
    return None


def _compacted(r: Claimant, e: MemEntry, mine: list[MemEntry], runs: list[Claimant]) -> Change | None:
    """An entry of an old generated section the budget dropped while this run appended (the last
    appending run of the step, when several did: which one did it is not recorded)."""
    appenders = [x for x in runs if not x.consolidating]
    if not mine or not (e.heading or "").startswith(PROMOTED) or appenders[-1] is not r:
        return None
    return Change(e, "compacted")


def _added_why(r: Claimant, e: MemEntry, replaced: dict[str, str]) -> str:
    if e.text in replaced:
        return "merged"
    return "added" if r.consolidating else "promoted"


def _headings_to(changes: dict[str, list[Change]], outside: list[Change], heads: list[MemEntry],
                 every: list[MemEntry], entries: list[MemEntry], whole: bool) -> None:
    """A heading that came goes to the run that wrote the entries of its section; one that went
    (`whole`), to the run that removed every entry of its section; the rest to nobody recorded."""
    for h in heads:
        end = min((x.start for x in every if x.start > h.start), default=1 << 30)
        section = [e for e in entries if h.start < e.start < end]
        who = {rid for rid, cs in changes.items() for c in cs for e in section if c.entry is e}
        owned = sum(1 for e in section if any(c.entry is e for cs in changes.values() for c in cs))
        if section and len(who) == 1 and (not whole or owned == len(section)):
            changes[next(iter(who))].append(Change(h, "heading"))
        else:
            outside.append(Change(h, "outside"))
