"""Where a home keeps its parts: which memory files it has and of what kind, how its config file
is read, whether it keeps history.jsonl and its cursors. A value the home layer reads and never
branches on by name: the contract's layout (../shared/spec/) is the default, and an adapter in
engine/assistants/ that knows another assistant's home hands the Workspace its own (issue 28:
OpenClaw keeps MEMORY.md at the top, daily notes in memory/, a JSON5 openclaw.json and no
history.jsonl)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable

from ..core.rules import ARCHIVED_FILES, CORE_KINDS, is_memory_path, kind_of_memory_path, skill_names, skill_path
from ..disk.changes import Changes, from_paths

JSON, JSON5 = "json", "json5"
DAILY = "daily"                          # the kind of a dated note (memory/YYYY-MM-DD[-slug].md)
_DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-(.+))?\.md$")


@dataclass(frozen=True, slots=True)
class DatedNote:
    path: str           # relative to the workspace
    day: str            # YYYY-MM-DD
    slug: str | None    # what follows the date ("standup", "1430"), None for the day's own note
    size: int           # bytes on disk

    def to_json(self) -> dict:
        return {"path": self.path, "date": self.day, "slug": self.slug, "size": self.size}


@dataclass(frozen=True, slots=True)
class Layout:
    """The contract's layout by default. `owner` names the adapter that laid the home out ("" for
    the contract's): only engine/assistants reads it."""
    files: tuple[tuple[str, str], ...] = tuple(CORE_KINDS.items())   # (path, kind), listed present or not
    optional: tuple[tuple[str, str], ...] = ()    # (path, kind), listed only when present
    notes_dir: str | None = None                  # a folder of dated notes that are memory files too
    # what names a dated note there (group 1 its day, group 2 what follows it): the adapter's, as
    # its assistant reads them, so the notes listed are the ones it reads
    notes_name: re.Pattern[str] = _DATED
    skills: bool = True                           # skills/<name>/SKILL.md are memory files
    config_syntax: str = JSON                     # how its config file is read: JSON, or JSON5
    config_writes: str | None = None              # None: Dreamdesk may write its config; else why not
    config_settings: bool = True                  # Dreamdesk's own settings are kept in that file
    history: bool = True                          # memory/history.jsonl and its cursors
    file_writes: str | None = None                # None: Dreamdesk may write its files; else why not (yet)
    owner: str = ""
    agent: str | None = None                      # which of the home's agents this workspace is
    archived: tuple[str, ...] = ARCHIVED_FILES    # what leaves them is archived first
    never_written: tuple[tuple[str, str], ...] = ()   # (kind, why): shown, never written (another program's own)
    # Dreamdesk's history (snapshot store, archive) kept in its state folder, not in the workspace:
    # the workspace's own .git, if any, is its user's
    apart: bool = False
    # None: a memory file may be a symlink inside the workspace; else why only regular files are written
    regular_only: str | None = None

    def memory_paths(self, root) -> list[tuple[str, str]]:
        """(path, kind) of every memory file of a workspace laid out this way, in the order shown:
        the fixed files, the optional ones present, the dated notes newest first, the skills."""
        out = list(self.files)
        out += [(p, k) for p, k in self.optional if os.path.lexists(os.path.join(root, p))]
        out += [(n.path, DAILY) for n in self.dated_notes(root)]
        if self.skills:
            out += [(skill_path(n), "skill") for n in skill_names(root)]
        return out

    def dated_notes(self, root) -> list[DatedNote]:
        """The dated notes (memory/YYYY-MM-DD.md and memory/YYYY-MM-DD-<slug>.md), newest day
        first, a day's own note before its slugged ones; plain files only."""
        if self.notes_dir is None:
            return []
        try:
            found = list(os.scandir(os.path.join(root, self.notes_dir)))
        except OSError:
            return []
        notes = []
        for e in found:
            m = self.notes_name.match(e.name)
            try:
                if m is None or not e.is_file(follow_symlinks=False):
                    continue
                size = e.stat(follow_symlinks=False).st_size
            except OSError:
                continue
            notes.append(DatedNote(f"{self.notes_dir}/{e.name}", m.group(1), m.group(2), size))
        notes.sort(key=lambda n: (n.day, n.slug is None, n.slug or ""), reverse=True)
        return notes

    def is_memory_file(self, rel: str) -> bool:
        if any(rel == p for p, _ in self.files + self.optional):
            return True
        if self.notes_dir is not None and rel.startswith(self.notes_dir + "/"):
            return self.notes_name.match(rel[len(self.notes_dir) + 1:]) is not None
        return False

    def writable(self, rel: str) -> bool:
        """A memory file Dreamdesk may write for a person (an edit, a restore, a pin): the listed
        files and dated notes but the kinds never written, and each SKILL.md where skills are
        memory files."""
        if self.skills and is_memory_path(rel) and kind_of_memory_path(rel) == "skill":
            return True
        return self.is_memory_file(rel) and self.never_written_why(rel) is None

    def never_written_why(self, rel: str) -> str | None:
        kind = self.kind_of(rel)
        return next((why for k, why in self.never_written if k == kind), None)

    def kind_of(self, rel: str) -> str | None:
        return next((k for p, k in self.files + self.optional if p == rel), DAILY if self.notes_dir else None)

    def changes(self, paths: Iterable[str]) -> Changes:
        """The change record of workspace-relative paths another writer touched: this layout's
        memory files as files, the rest as the contract's parts (disk/changes.from_paths)."""
        if self == CONTRACT:
            return from_paths(paths)
        paths = list(paths)
        mine = frozenset(p for p in paths if self.is_memory_file(p))
        return Changes(files=mine) | from_paths(p for p in paths if p not in mine)


CONTRACT = Layout()
