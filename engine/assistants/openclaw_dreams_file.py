"""DREAMS.md, what OpenClaw's dreaming writes beside MEMORY.md: the diary, the "Memory Consolidation
History" (one block per consolidating sweep) and the "Deep Sleep" block of the last sweep.

For the caller: `read_dreams_file(workspace)` once per read (openclaw_runs does); `parse_dreams`
for a text in hand. Read only.

Formats (OpenClaw 2026.9.6, `dreaming-dreams-file-*.mjs`, `short-term-promotion-*.mjs`):
DREAMS.md, or dreams.md when only that exists; a symlink or a folder reads as empty to OpenClaw.
The diary sits between `<!-- openclaw:dreaming:diary:start -->` and `…:end -->`, entries split on
`\\n---\\n`, each `*<Month D, YYYY at h:mm AM/PM ZONE>*` then the text (a backfilled one carries
`<!-- openclaw:dreaming:backfill-entry day=YYYY-MM-DD … -->`). The history is appended at the end
of the file by every consolidating sweep, so a later sweep's block can follow `## Deep Sleep`: each
`### <ISO time>` after the history heading is one sweep, with `- Added: N`, `- Merged: N`,
`- Superseded: N` and up to 8 highlight pairs (a promotion marker line, then ``- `+ entry` `` or
``- `- prior entry` ``, cut at 180 characters, backticks written `'`), or `- Rewrite skipped:
<reason>.` for a sweep that fell back to appending.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..disk.files import read_bytes

NAMES = ("DREAMS.md", "dreams.md")
DIARY_START, DIARY_END = "<!-- openclaw:dreaming:diary:start -->", "<!-- openclaw:dreaming:diary:end -->"
DEEP_START, DEEP_END = "<!-- openclaw:dreaming:deep:start -->", "<!-- openclaw:dreaming:deep:end -->"
HISTORY = "## Memory Consolidation History"
_SWEEP = re.compile(r"^### (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)[ \t]*$", re.M)
_COUNT = re.compile(r"^- (Added|Merged|Superseded): (\d+)[ \t]*$", re.M)
_SKIPPED = re.compile(r"^- Rewrite skipped: (.*?)\.?[ \t]*$", re.M)
_MARKER = re.compile(r"^<!--\s*openclaw-memory-promotion:(.+?)\s*-->$")
_HIGHLIGHT = re.compile(r"^- `([+-]) (.*)`$")
_BACKFILL = re.compile(r"<!--\s*openclaw:dreaming:backfill-entry day=(\d{4}-\d\d-\d\d)")
_HEADING = re.compile(r"^#{1,3} ", re.M)


@dataclass(frozen=True, slots=True)
class DiaryEntry:
    when: str                  # the date line as OpenClaw wrote it ("December 6, 2026 at 11:19 PM UTC")
    text: str
    backfill_day: str | None = None   # a backfilled entry's day: no sweep wrote it

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Highlight:
    key: str                   # the candidate's promotion key
    sign: str                  # "+": the entry written; "-": a prior entry it replaced
    text: str                  # as DREAMS.md shows it: cut at 180, backticks as '

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class HistoryBlock:
    at: str                    # the sweep's ISO time (its pre-image's createdAt too)
    added: int | None          # None when the block gives no count (a skipped rewrite)
    merged: int | None
    superseded: int | None
    skipped: str | None        # why the rewrite was skipped (then it appended instead)
    highlights: tuple[Highlight, ...]
    text: str

    def to_json(self) -> dict:
        return {**asdict(self), "highlights": [h.to_json() for h in self.highlights]}


@dataclass(frozen=True, slots=True)
class DreamsFile:
    name: str | None           # DREAMS.md, dreams.md, or None when there is none
    diary: tuple[DiaryEntry, ...] = ()
    history: tuple[HistoryBlock, ...] = ()
    deep_sleep: str | None = None
    problem: str | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "diary": [d.to_json() for d in self.diary],
                "history": [h.to_json() for h in self.history], "deep_sleep": self.deep_sleep,
                "problem": self.problem}


def read_dreams_file(workspace: Path) -> DreamsFile:
    """The workspace's DREAMS.md (dreams.md when only that exists) as OpenClaw reads it."""
    for name in NAMES:
        path = workspace / name
        if not path.exists() and not path.is_symlink():
            continue
        if path.is_symlink() or not path.is_file():
            return DreamsFile(name, problem=f"{name} is a symlink or no regular file: OpenClaw reads it as empty "
                                            "and refuses to write it, so its dreaming keeps no diary here")
        try:
            text = read_bytes(path).decode("utf-8", "replace")
        except OSError as e:
            return DreamsFile(name, problem=f"{name} could not be read ({e.strerror or e})")
        return parse_dreams(text, name)
    return DreamsFile(None)


def parse_dreams(text: str, name: str = NAMES[0]) -> DreamsFile:
    text = text.replace("\r\n", "\n")
    return DreamsFile(name, diary_entries(text), history_blocks(text), _between(text, DEEP_START, DEEP_END))


def diary_entries(text: str) -> tuple[DiaryEntry, ...]:
    inner = _between(text, DIARY_START, DIARY_END)
    out = []
    for block in (b.strip() for b in (inner or "").split("\n---\n")):
        block = block.removeprefix("---").strip()
        if not block:
            continue
        when, body = "", []
        for line in block.split("\n"):
            s = line.strip()
            if not when and len(s) > 2 and s.startswith("*") and s.endswith("*"):
                when = s[1:-1].strip()
            elif not _BACKFILL.search(s):
                body.append(line)
        day = _BACKFILL.search(block)
        out.append(DiaryEntry(when, "\n".join(body).strip(), day.group(1) if day else None))
    return tuple(out)


def _between(text: str, start: str, end: str) -> str | None:
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        return None
    return text[i + len(start):j].strip("\n")


def history_blocks(text: str) -> tuple[HistoryBlock, ...]:
    """Every `### <ISO time>` block after the history heading, wherever it sits after it."""
    at = text.find(HISTORY)
    if at < 0:
        return ()
    body = text[at + len(HISTORY):]
    out = []
    for head in _SWEEP.finditer(body):
        rest = body[head.end():]
        nxt = _HEADING.search(rest)
        block = rest[:nxt.start() if nxt else len(rest)].strip("\n")
        counts = {k.lower(): int(v) for k, v in _COUNT.findall(block)}
        skipped = _SKIPPED.search(block)
        out.append(HistoryBlock(head.group(1), counts.get("added"), counts.get("merged"), counts.get("superseded"),
                                skipped.group(1) if skipped else None, _highlights(block), block))
    return tuple(out)


def _highlights(block: str) -> tuple[Highlight, ...]:
    lines = block.split("\n")
    out = []
    for i in range(len(lines) - 1):
        marker, item = _MARKER.match(lines[i].strip()), _HIGHLIGHT.match(lines[i + 1].strip())
        if marker and item:
            out.append(Highlight(marker.group(1), item.group(1), item.group(2)))
    return tuple(out)
