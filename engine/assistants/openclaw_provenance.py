"""MEMORY.md's entries with where each came from (issue 28 item 4): an entry OpenClaw's dreaming
promoted carries markers naming the recalled note lines it came from, the day and section it was
promoted in, its score and recalls; an entry with no marker was written by hand or by the agent.

For the caller: the OpenClaw adapter reads a workspace's MEMORY.md with read_provenance(workspace)
(parse_provenance(text) for a pre-image from the state database), passing the recall store's
`short-term-recall` rows when it has them, and shows each entry with its origin; a source is
workspace / source.path at lines start_line–end_line (1-based, as OpenClaw writes them), for a
link that opens the note there. Nothing here writes; a marker that does not read is kept as text
and said in words.

From OpenClaw 2026.9.6's code (extensions/memory-core, bundled in dist/):
- The marker (buildPromotionMarker, dist/short-term-promotion-memory-write-*.mjs) is
  `<!-- openclaw-memory-promotion:${candidateKey} -->`, on the line right before its entry; it is
  read back a line at a time, `/^\\s*<!--\\s*openclaw-memory-promotion:([^\\n]*?)\\s*-->\\s*$/u`
  (`memory forget`, dist/cli.runtime-*.mjs), so a marker split over lines is not one.
- A lineage marker `<!-- openclaw-memory-lineage:${lineageKey} -->` is read only on the line right
  before a promotion marker (readAttachedLineageKey, dist/short-term-promotion-*.mjs): the
  candidate's provenance.supersedesKey; a superseding entry replaces every entry of its lineage.
- Keys (dist/short-term-promotion-store-*.mjs): `${source}:${path}:${startLine}:${endLine}`
  (`:${claimHash}` after it when known) for a recalled chunk, `memory:claim:<12 hex>` for a line
  of a daily note.
- Append-only promotion (buildPromotionSection; `memory promote --apply`, or a sweep whose
  consolidation failed), with `### Project: <key>` / `### Global` sub-headings when the
  candidates name several projects:

      ## Promoted From Short-Term Memory (2026-12-06)

      <!-- openclaw-memory-promotion:memory:memory/2026-12-06.md:1:4 -->
      - <snippet> [score=0.806 signals=3 recalls=3 avg=0.978 source=memory/2026-12-06.md:1-4] <!-- trigger: storage, driver, patch --> <!-- importance: 8 -->

- Consolidation (a sweep's validated plan, applyMemoryConsolidationPlan); candidates whose entry
  is the same share it, their markers one after the other above it:

      ## Consolidated Memory (2026-12-06)

      <!-- openclaw-memory-lineage:<key> -->          (only with a lineage)
      <!-- openclaw-memory-promotion:memory:memory/2026-12-04.md:1:5 -->
      - <snippet> Source: memory/2026-12-04.md#L1-L5 <!-- trigger: … --> <!-- importance: 8 -->

  DATE is the sweep's day in the dreaming timezone (formatMemoryDreamingDay); importance is
  clamp(round(score × 10), 3, 10) (buildPromotionRecallAnnotations). Whether a consolidated entry
  was added or merged is in DREAMS.md, not here."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ..disk.files import read_bytes
from ..text.entries import Entry, parse_blocks, split_entries
from .openclaw_context import entry_projects
from .openclaw_recall import Recall as StoredRecall, listed

PROMOTION = re.compile(r"^\s*<!--\s*openclaw-memory-promotion:([^\n]*?)\s*-->\s*$")
LINEAGE = re.compile(r"^\s*<!--\s*openclaw-memory-lineage:([^\n]*?)\s*-->\s*$")
PROMOTED_SECTION = re.compile(r"^## Promoted From Short-Term Memory \(([^)]+)\)\s*$")
CONSOLIDATED_SECTION = re.compile(r"^## Consolidated Memory \(([^)]+)\)\s*$")
_SCORE = re.compile(r"\[score=(\d+(?:\.\d+)?) signals=(\d+) recalls=(\d+) avg=(\d+(?:\.\d+)?) "
                    r"source=([^\]\n]+):(\d+)-(\d+)\]")
_SOURCE = re.compile(r"(?:^|\s)Source:\s+([^\r\n]+?)#L(\d+)-L(\d+)(?=\s|$)")
_COMMENT = re.compile(r"\s*<!--\s*(trigger|importance|project)\s*:([^\r\n]*?)-->", re.I)
_KEY_CHUNK = re.compile(r"^[^:]+:(.+):(\d+):(\d+)(?::[0-9a-f]{6,64})?$")
_KEY_CLAIM = re.compile(r"^memory:claim:[0-9a-f]+$")
PROMOTED, CONSOLIDATED, MARKED, BY_HAND = "promoted", "consolidated", "marked", "by hand"


@dataclass(frozen=True, slots=True)
class Promotion:
    key: str                      # the candidate key, as written
    line: int                     # 0-based line of its marker
    lineage: str | None = None    # the lineage marker's key right above it


@dataclass(frozen=True, slots=True)
class SourceLines:
    """The daily-note lines an entry was promoted from, 1-based and inclusive, as OpenClaw writes them."""
    path: str                     # relative to the workspace: memory/2026-12-06.md
    start_line: int
    end_line: int
    exists: bool | None = None    # None: not looked at (no workspace given)
    note_lines: int | None = None  # how many lines the note has now

    def to_json(self) -> dict:
        return {"path": self.path, "start_line": self.start_line, "end_line": self.end_line, "exists": self.exists,
                "note_lines": self.note_lines}


@dataclass(frozen=True, slots=True)
class Recall:
    """What the recall store (state database, memory-core's `short-term-recall`) says of the key."""
    recall_count: int
    unique_queries: int           # userQueryHashes: what the promotion threshold counts
    promoted_at: str | None
    last_recalled_at: str | None

    def to_json(self) -> dict:
        return {"recall_count": self.recall_count, "unique_queries": self.unique_queries,
                "promoted_at": self.promoted_at, "last_recalled_at": self.last_recalled_at}


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    entry: Entry                          # as engine/text/entries.py reads it (0-based lines)
    origin: str                           # promoted | consolidated | marked (a marker, no annotation) | by hand
    fact: str                             # the text without "- " and OpenClaw's annotations
    section: str | None = None            # the generated section it sits in: promoted | consolidated
    section_date: str | None = None       # that section's (DATE)
    promotions: tuple[Promotion, ...] = ()
    source: SourceLines | None = None
    score: float | None = None            # append-only annotation [score=… signals=… recalls=… avg=…]
    signals: int | None = None
    recalls: int | None = None
    avg: float | None = None
    importance: int | None = None
    triggers: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    store: Recall | None = None           # the recall store's row for its key, when the caller gave the rows
    problems: tuple[str, ...] = field(default=())

    @property
    def lineage(self) -> str | None:
        return next((p.lineage for p in self.promotions if p.lineage), None)

    def to_json(self) -> dict:
        e = self.entry
        return {"text": e.text, "heading": e.heading, "kind": e.kind, "start_line": e.start + 1, "end_line": e.end,
                "origin": self.origin, "fact": self.fact, "section": self.section, "section_date": self.section_date,
                "keys": [p.key for p in self.promotions], "lineage": self.lineage,
                "source": self.source.to_json() if self.source else None, "score": self.score,
                "signals": self.signals, "recalls": self.recalls, "avg": self.avg, "importance": self.importance,
                "triggers": list(self.triggers), "projects": list(self.projects),
                "store": self.store.to_json() if self.store else None, "problems": list(self.problems)}


@dataclass(frozen=True, slots=True)
class Provenance:
    entries: tuple[MemoryEntry, ...]      # every entry of MEMORY.md, in file order (markers are not entries)
    problems: tuple[str, ...] = field(default=())   # in words: markers that do not read, and each entry's

    def to_json(self) -> dict:
        return {"entries": [e.to_json() for e in self.entries], "problems": list(self.problems)}


RecallRows = Mapping[str, StoredRecall]   # candidate key -> the recall store's entry


def read_provenance(workspace: Path, recalls: RecallRows | None = None) -> Provenance:
    """The entries of workspace/MEMORY.md with their provenance (decoded as OpenClaw does: UTF-8,
    bad bytes replaced); `recalls`: the recall store's rows by key, when the caller has them."""
    path = Path(workspace) / "MEMORY.md"
    try:
        text = read_bytes(path).decode("utf-8", "replace")
    except FileNotFoundError:
        return Provenance(())
    except OSError as e:
        return Provenance((), (f"MEMORY.md could not be read ({e.strerror or e})",))
    return parse_provenance(text, workspace, recalls)


def parse_provenance(text: str, workspace: Path | None = None, recalls: RecallRows | None = None) -> Provenance:
    """read_provenance on a text (a pre-image, say): `workspace`, when given, is where the source
    notes are looked up. CRLF and a leading byte-order mark read like LF and none."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    problems: list[str] = []
    markers = _markers(lines)
    sections = _sections(lines)
    notes = _NoteLines(workspace)
    out: list[MemoryEntry] = []
    claimed: set[int] = set()             # marker lines read with an entry
    for e in split_entries(text):
        if e.kind == "html" and all(i in markers for i in range(e.start, e.end)):
            continue                      # marker lines: read with the entry under them
        if e.kind == "html" and "openclaw-memory-" in e.text:
            problems.append(f"MEMORY.md {_where(e.start, e.end)}: {_malformed(e.text)}; kept as text")
        run = _attached(markers, e.start)
        claimed.update(line for line, _, _ in run)
        section, day = sections(e.start)
        out.append(_entry(e, run, section, day, notes, recalls or {}))
    problems += _orphans(markers, claimed)
    problems += _shared(out)
    problems += [p for m in out for p in m.problems]
    return Provenance(tuple(out), tuple(problems))


def _where(start: int, end: int) -> str:
    return f"line {start + 1}" if end - start <= 1 else f"lines {start + 1}–{end}"


def _malformed(comment: str) -> str:
    if "\n" in comment.strip():
        return ("an openclaw-memory marker split over lines: OpenClaw reads its markers one line at a time and "
                "does not see it")
    return "an openclaw-memory comment that is no marker OpenClaw reads"


def _markers(lines: list[str]) -> dict[int, tuple[str, str]]:
    """Line -> (promotion | lineage, key) for every marker line OpenClaw would read."""
    out = {}
    for i, line in enumerate(lines):
        m = PROMOTION.match(line)
        if m is not None:
            out[i] = ("promotion", m.group(1).strip())
            continue
        m = LINEAGE.match(line)
        if m is not None:
            out[i] = ("lineage", m.group(1).strip())
    return out


def _sections(lines: list[str]):
    """line -> (promoted | consolidated | None, DATE) of the level-1/2 section it is in."""
    heads = [(b.start, b.written) for b in parse_blocks(lines) if b.kind == "heading" and b.key and b.key[0] <= 2]

    def at(line: int) -> tuple[str | None, str | None]:
        written = next((w for start, w in reversed(heads) if start < line), "")
        for kind, pattern in ((PROMOTED, PROMOTED_SECTION), (CONSOLIDATED, CONSOLIDATED_SECTION)):
            m = pattern.match(written)
            if m is not None:
                return kind, m.group(1)
        return None, None
    return at


def _attached(markers: dict[int, tuple[str, str]], start: int) -> list[tuple[int, str, str]]:
    """The run of marker lines right above line `start`, top to bottom."""
    run = []
    i = start - 1
    while i >= 0 and i in markers:
        run.append((i, *markers[i]))
        i -= 1
    return run[::-1]


def _promotions(run: list[tuple[int, str, str]]) -> tuple[tuple[Promotion, ...], list[str]]:
    """The promotions of a marker run, each with the lineage marker right above it."""
    out, problems = [], []
    for j, (line, kind, key) in enumerate(run):
        if kind == "promotion":
            above = run[j - 1] if j else None
            lineage = above[2] if above is not None and above[1] == "lineage" and above[0] == line - 1 else None
            if not key:
                problems.append(f"line {line + 1}: a promotion marker with no key (OpenClaw skips it)")
            out.append(Promotion(key, line, lineage or None))
        elif j + 1 >= len(run) or run[j + 1][1] != "promotion":
            problems.append(f"line {line + 1}: a lineage marker not right above a promotion marker "
                            "(OpenClaw does not read it)")
    return tuple(out), problems


def _entry(e: Entry, run: list[tuple[int, str, str]], section: str | None, day: str | None, notes: _NoteLines,
           recalls: RecallRows) -> MemoryEntry:
    promotions, problems = _promotions(run)
    ann = _annotations(e.text, bool(promotions))
    problems += ann.pop("problems")
    source = ann.pop("source") or next((s for s in map(_key_source, (p.key for p in promotions)) if s), None)
    origin = ann.pop("origin")
    origin = origin if promotions else BY_HAND
    if source is not None:
        source, note_problem = notes.check(source)
        problems += [note_problem] if note_problem else []
    store = next((_recall(recalls[p.key]) for p in promotions if p.key in recalls), None)
    where = f"MEMORY.md {_where(e.start, e.end)}"
    return MemoryEntry(e, origin, section=section, section_date=day, promotions=promotions, source=source,
                       store=store, problems=tuple(f"{where}: {p}" for p in problems), **ann)


def _annotations(text: str, marked: bool) -> dict:
    """The entry's OpenClaw annotations: the score line and the Source: link of a marked entry
    (in a hand-written one they are just words), the comments of any."""
    out: dict = {"problems": [], "source": None, "origin": MARKED}
    score = _SCORE.search(text) if marked else None
    if score is not None:
        out.update(score=float(score.group(1)), signals=int(score.group(2)), recalls=int(score.group(3)),
                   avg=float(score.group(4)), origin=PROMOTED,
                   source=SourceLines(score.group(5), int(score.group(6)), int(score.group(7))))
    elif "[score=" in text and marked:
        out["problems"].append("a [score=…] annotation that does not read (kept as text)")
    ref = _SOURCE.search(text) if marked and score is None else None
    if ref is not None:
        out.update(origin=CONSOLIDATED, source=SourceLines(ref.group(1), int(ref.group(2)), int(ref.group(3))))
    elif "Source:" in text and marked and score is None:
        out["problems"].append("a Source: link that does not read as <path>#L<start>-L<end> (kept as text)")
    comments = defaultdict(list)
    for m in _COMMENT.finditer(text):
        comments[m.group(1).lower()].append(m.group(2).strip())
    out["triggers"] = tuple(t.strip() for c in comments["trigger"] for t in c.split(",") if t.strip())
    for value in comments["importance"][:1]:
        if value.isdigit():
            out["importance"] = int(value)
        else:
            out["problems"].append(f"importance {value!r} is no number")
    out["projects"] = tuple(sorted(entry_projects(text)[2]))
    out["fact"] = _fact(text, marked)
    return out


def _fact(text: str, marked: bool) -> str:
    """The entry as a person reads it: OpenClaw's annotations and the list marker taken off."""
    fact = _COMMENT.sub("", text)
    if marked:
        fact = _SOURCE.sub("", _SCORE.sub("", fact))
    return " ".join(re.sub(r"^[-*+]\s+", "", fact.strip()).split())


def _key_source(key: str) -> SourceLines | None:
    """The note lines a chunk key names (a claim key names none)."""
    if _KEY_CLAIM.match(key):
        return None
    m = _KEY_CHUNK.match(key)
    return SourceLines(m.group(1), int(m.group(2)), int(m.group(3))) if m else None


def _recall(row: StoredRecall) -> Recall:
    def count(value) -> int:
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    def when(value) -> str | None:
        return value if isinstance(value, str) else None
    queries = listed(row.user_query_hashes_json)
    return Recall(count(row.recall_count), len(queries) if isinstance(queries, list) else 0,
                  when(row.promoted_at), when(row.last_recalled_at))


class _NoteLines:
    """The source notes, each read once: does it exist, how many lines has it now."""

    def __init__(self, workspace: Path | None):
        self.workspace = workspace
        self.seen: dict[str, int | None] = {}

    def check(self, source: SourceLines) -> tuple[SourceLines, str | None]:
        if self.workspace is None:
            return source, None
        rel = os.path.normpath(source.path)
        if os.path.isabs(rel) or rel == ".." or rel.startswith(".." + os.sep):
            return source, f"the source {source.path} is outside the workspace: not opened"
        if rel not in self.seen:
            try:
                self.seen[rel] = len(read_bytes(Path(self.workspace) / rel).decode("utf-8", "replace").split("\n"))
            except OSError:
                self.seen[rel] = None
        n = self.seen[rel]
        found = SourceLines(source.path, source.start_line, source.end_line, n is not None, n)
        if n is None:
            return found, f"the source note {source.path} is gone"
        if source.end_line > n:
            return found, (f"the source note {source.path} has {n} lines now; lines {source.start_line}–"
                           f"{source.end_line} were promoted")
        return found, None


def _orphans(markers: dict[int, tuple[str, str]], claimed: set[int]) -> list[str]:
    """Markers no entry sits right under (a blank line, a heading or the end of the file after them)."""
    return [f"MEMORY.md line {i + 1}: a {kind} marker with no entry right under it (OpenClaw pairs a marker with "
            "the next line)" for i, (kind, _) in sorted(markers.items()) if i not in claimed]


def _shared(entries: list[MemoryEntry]) -> list[str]:
    """Keys and lineages on more than one entry: OpenClaw writes a key once and keeps one entry a lineage."""
    by_key: dict[str, list[int]] = defaultdict(list)
    by_lineage: dict[str, list[int]] = defaultdict(list)
    for m in entries:
        for p in m.promotions:
            by_key[p.key].append(m.entry.start + 1)
        if m.lineage:
            by_lineage[m.lineage].append(m.entry.start + 1)
    out = [f"MEMORY.md: the promotion key {k} marks the entries on lines {', '.join(map(str, at))}"
           for k, at in by_key.items() if k and len(at) > 1]
    out += [f"MEMORY.md: the entries on lines {', '.join(map(str, at))} share the lineage {k}; OpenClaw's "
            "consolidation keeps one (a superseding entry replaces every entry of its lineage)"
            for k, at in by_lineage.items() if len(at) > 1]
    return out
