"""OpenClaw's daily notes as a list a person browses (issue 28 item 4): each note with its day, its
slug (or the time the session-memory hook put in its name), its size as OpenClaw counts it, and
what a bare /new would quote of it now.

For the caller: the OpenClaw adapter lists a workspace's notes with daily_notes(workspace, config,
now_ms) for the Files view, the Dashboard and `history`; a note opens in the ordinary editor at
workspace / note.path. Nothing here writes; a note that cannot be read is a problem in words.

From OpenClaw 2026.9.6's code:
- What a daily note is: a plain file directly in memory/ whose name matches
  `DAILY_MEMORY_FILENAME_RE = /^(\\d{4}-\\d{2}-\\d{2})(?:-[^/]+)?\\.md$/i`
  (dist/dreaming-ingestion-state-*.mjs; doctor-*.mjs and the `memory` CLI use the same): the day
  is taken as written, never checked against the calendar, and `.MD` counts too.
- Their order (compareDailyMemoryFilesByNewestDay): newest day first, a day's plain note before
  its slugged ones, then names by localeCompare.
- Slugs: the session-memory hook (dist/bundled/session-memory/handler.js) writes
  `${dateStr}-${slug}.md`, then `${dateStr}-${slug}-2.md`, `-3`… when the name is taken, with
  slug = `${hour}${minute}` (24-hour, the user's zone) unless `llmSlug` lets a model name it
  ("vendor-pitch"); a person may name notes the same way.
- Which notes a /new prelude quotes: openclaw_prelude (buildSessionStartupContextPrelude), run as
  is; its blocks are matched to the notes it read, in order. Not modelled here: a session whose
  bootstrap is still pending gets no prelude (openclaw_bootstrap.preview knows that)."""

from __future__ import annotations

import os
import re
import stat
import datetime as dt
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..disk.files import read_bytes
from .openclaw_home import section
from .openclaw_jsstr import collation_key, trim, u16len
from .openclaw_prelude import MORE_TRUNCATED, TRUNCATED, applies, day_stamps, limits, note_paths, startup_prelude, \
    trim_note

DAILY_NOTE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-([^/]+))?\.md$", re.I)
HOOK_TIME = re.compile(r"^([01]\d|2[0-3])([0-5]\d)(?:-\d+)?$")     # the hook's HHMM, -2, -3… when taken
WHOLE, CUT, LEFT_OUT, SKIPPED = "whole", "cut", "left out", "skipped"
_BLOCK = re.compile(r"^\[Untrusted daily memory: [^\n]*\]\nBEGIN_QUOTED_NOTES\n```text\n(.*?)\n```\nEND_QUOTED_NOTES$",
                    re.M | re.S)


@dataclass(frozen=True, slots=True)
class DailyNote:
    path: str                   # relative to the workspace, as OpenClaw names it: memory/2026-12-06-standup.md
    day: str                    # the YYYY-MM-DD of its name, as written
    slug: str | None            # what follows the day ("standup", "1432", "1432-2"); None: the day's plain note
    time: str | None            # "14:32": the slug is the session-memory hook's HHMM
    chars: int | None           # its length in UTF-16 units, decoded as UTF-8 (OpenClaw's count); None: unreadable
    size: int                   # bytes on disk
    mtime_ns: int
    prelude: str | None = None  # what a /new now quotes of it: whole | cut | left out | skipped; None: not a recent day
    prelude_why: str = ""       # the same in words
    problems: tuple[str, ...] = field(default=())

    @property
    def date(self) -> dt.date | None:
        """The day as a calendar date; None when the name's digits are no date (OpenClaw still
        counts the note as that day's)."""
        return dt.date.fromisoformat(self.day) if _is_date(self.day) else None

    def to_json(self) -> dict:
        return {"path": self.path, "day": self.day, "is_date": self.date is not None, "slug": self.slug,
                "time": self.time, "chars": self.chars, "size": self.size, "mtime_ns": self.mtime_ns,
                "prelude": self.prelude, "prelude_why": self.prelude_why, "problems": list(self.problems)}


@dataclass(frozen=True, slots=True)
class OtherFile:
    """A file in memory/ that is no daily note, and why."""
    path: str
    why: str

    def to_json(self) -> dict:
        return {"path": self.path, "why": self.why}


@dataclass(frozen=True, slots=True)
class DailyNotes:
    notes: tuple[DailyNote, ...]        # OpenClaw's order: newest day first
    others: tuple[OtherFile, ...]       # the rest of memory/'s files, by name
    prelude_days: tuple[str, ...]       # the days a /new reads now (none when the prelude is off)
    prelude_on: bool
    problems: tuple[str, ...] = field(default=())

    def to_json(self) -> dict:
        return {"notes": [n.to_json() for n in self.notes], "others": [o.to_json() for o in self.others],
                "prelude_days": list(self.prelude_days), "prelude_on": self.prelude_on,
                "problems": list(self.problems)}


def daily_notes(workspace: Path, config: dict | None = None, now_ms: float | None = None,
                tz_name: str | None = None) -> DailyNotes:
    """The daily notes of `workspace` (memory/ need not exist), with what a bare /new at `now_ms`
    (default: now) would quote of each; `tz_name` defaults to agents.defaults.userTimezone."""
    config = config or {}
    workspace = Path(workspace)
    notes, texts, others, problems = _scan(workspace)
    now_ms = time.time() * 1000 if now_ms is None else now_ms
    on = applies(config, "new")
    days: tuple[str, ...] = ()
    if on:
        lim = limits(config)
        zone = tz_name or section(config, "agents", "defaults").get("userTimezone")
        zone = zone if isinstance(zone, str) else None
        days = tuple(day_stamps(now_ms, zone, lim.days))
        notes = _with_prelude(workspace, notes, texts, config, now_ms, zone, days)
    return DailyNotes(_newest_first(notes), tuple(sorted(others, key=lambda o: o.path)), days, on, tuple(problems))


def _newest_first(notes: list[DailyNote]) -> tuple[DailyNote, ...]:
    """compareDailyMemoryFilesByNewestDay: newest day first, the day's plain note first, then names
    by localeCompare. Days are all \\d{4}-\\d{2}-\\d{2}, which localeCompare orders as plain
    strings; names are collated only where a day has several (two years of notes, one a day, sort
    in a tenth of the time a comparison function takes)."""
    groups: dict[tuple[str, bool], list[DailyNote]] = defaultdict(list)
    for n in notes:
        groups[(n.day, n.slug is not None)].append(n)
    out: list[DailyNote] = []
    for key in sorted(sorted(groups, key=lambda k: k[1]), key=lambda k: k[0], reverse=True):   # stable
        group = groups[key]
        out += sorted(group, key=lambda n: collation_key(Path(n.path).name)) if len(group) > 1 else group
    return tuple(out)


def _scan(workspace: Path) -> tuple[list[DailyNote], dict[str, str], list[OtherFile], list[str]]:
    """The notes in memory/ (with their text), the other files there, and what could not be read."""
    notes: list[DailyNote] = []
    texts: dict[str, str] = {}
    others: list[OtherFile] = []
    problems: list[str] = []
    try:
        entries = list(os.scandir(workspace / "memory"))
    except FileNotFoundError:
        return notes, texts, others, problems
    except OSError as e:
        return notes, texts, others, [f"memory/ could not be listed ({e.strerror or e}): no daily note is shown"]
    for entry in entries:
        rel = f"memory/{entry.name}"
        try:
            st = os.lstat(entry.path)
        except OSError as err:
            problems.append(f"{rel} could not be read ({err.strerror or err})")
            continue
        if stat.S_ISDIR(st.st_mode):
            continue                    # dreaming/, .dreams/, imports/: not notes
        match = DAILY_NOTE.match(entry.name)
        if not stat.S_ISREG(st.st_mode) or match is None:
            others.append(OtherFile(rel, _why_other(entry.name, st)))
            continue
        note, text = _note(Path(entry.path), rel, match, st)
        notes.append(note)
        if text is not None:
            texts[rel] = text
    return notes, texts, others, problems


def _why_other(name: str, st: os.stat_result) -> str:
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link: OpenClaw reads plain files only as daily notes"
    if not stat.S_ISREG(st.st_mode):
        return "not a plain file"
    return "not a daily note: OpenClaw's daily notes are named YYYY-MM-DD.md or YYYY-MM-DD-<slug>.md"


def _note(path: Path, rel: str, match: re.Match, st: os.stat_result) -> tuple[DailyNote, str | None]:
    day, slug = match.group(1), match.group(2)
    hook = HOOK_TIME.match(slug) if slug else None
    problems = []
    text: str | None = None
    try:
        text = read_bytes(path).decode("utf-8", "replace")
    except OSError as e:
        problems.append(f"{rel} could not be read ({e.strerror or e})")
    if not _is_date(day):
        problems.append(f"{day} is no calendar date: OpenClaw still reads {rel} as that day's note")
    return DailyNote(rel, day, slug, f"{hook.group(1)}:{hook.group(2)}" if hook else None,
                     None if text is None else u16len(text), st.st_size, st.st_mtime_ns,
                     problems=tuple(problems)), text


def _is_date(day: str) -> bool:
    try:
        dt.date.fromisoformat(day)
    except ValueError:
        return False
    return True


# -- the /new prelude -------------------------------------------------------------------------------
def _with_prelude(workspace: Path, notes: list[DailyNote], texts: dict[str, str], config: dict, now_ms: float,
                  zone: str | None, days: tuple[str, ...]) -> list[DailyNote]:
    """Each note of a recent day with what the prelude quotes of it. The prelude's blocks follow
    the notes it read in its own order (each day's plain note, then up to 4 slugged ones, newest
    first), and it reads every note that is a plain file within maxFileBytes and not blank."""
    lim = limits(config)
    read_order = note_paths(workspace, list(days))
    prelude = startup_prelude(workspace, config, now_ms, zone) or ""
    blocks = [m.group(1) for m in _BLOCK.finditer(prelude)]
    verdicts: dict[str, tuple[str, str]] = {}
    by_path = {n.path: n for n in notes}
    for rel in read_order:
        note = by_path.get(rel)
        if note is None:
            continue
        text = texts.get(rel)
        if text is None:
            verdicts[rel] = (SKIPPED, "unreadable: not quoted")
        elif note.size > lim.file_bytes:
            verdicts[rel] = (SKIPPED, f"over the prelude's {lim.file_bytes:,} bytes a note (maxFileBytes): not quoted")
        elif not trim(text):
            verdicts[rel] = (SKIPPED, "blank: not quoted")
        elif blocks:
            verdicts[rel] = _quoted(text, blocks.pop(0), lim.file_chars)
        else:
            verdicts[rel] = (LEFT_OUT, f"not quoted: the prelude's {lim.total_chars:,} characters were used up "
                                       f"before it ({MORE_TRUNCATED})")
    for rel, note in by_path.items():
        if note.day in days and rel not in verdicts:
            verdicts[rel] = (SKIPPED, _why_unread(Path(rel).name))
    return [replace(n, prelude=verdicts[n.path][0], prelude_why=verdicts[n.path][1]) if n.path in verdicts else n
            for n in notes]


def _quoted(text: str, quoted: str, file_chars: int) -> tuple[str, str]:
    full = trim(text)
    if quoted == _escaped(full):
        return WHOLE, f"quoted whole ({u16len(full):,} characters)"
    if u16len(full) > file_chars and quoted == _escaped(trim_note(text, file_chars)):
        return CUT, f"quoted cut: its first {file_chars:,} of {u16len(full):,} characters (maxFileChars)"
    kept = quoted.removesuffix(TRUNCATED)
    return CUT, (f"quoted cut to about {u16len(kept):,} of its {u16len(full):,} characters, to fit the "
                 "prelude's total (maxTotalChars); later notes are left out")


def _escaped(content: str) -> str:
    return content.replace("```", "\\`\\`\\`")


def _why_unread(name: str) -> str:
    if not name.endswith(".md"):
        return "not quoted: the prelude reads names ending in .md (lower case) only"
    return "not quoted: the prelude reads a day's plain note and its 4 newest slugged notes only"
