"""What changed in a workspace, as one record: built by the engine for every write it makes
(the file helpers and git note each path they touch while a recording is open) and by the window
from the watcher's paths, so both say it the same way and each view reads only its part again."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..core.rules import CORE_FILES, is_memory_path

MEMORY_FILES = (*CORE_FILES, "AGENTS.md")       # AGENTS.md: not memory, but the prompt shows it
CURSORS = ("memory/.cursor", "memory/.dream_cursor")
SCHEDULE = "memory/dreams/schedule.json"


@dataclass(frozen=True)
class Changes:
    """Each flag names a part of the workspace that may differ from what was last read."""

    files: frozenset[str] = frozenset()   # memory files (workspace-relative) whose bytes changed
    skills: bool = False                  # a skill folder appeared or went (the list of files)
    history: bool = False
    cursors: bool = False
    archive: bool = False
    runs: bool = False                    # Dreamdesk's run records (memory/dreams/r-*.json)
    snapshots: bool = False               # the git history (a commit, a restore)
    config: bool = False
    schedule: bool = False
    sessions: bool = False
    state: bool = False                   # Dreamdesk's own state (pins, the watch's last look)

    @classmethod
    def everything(cls) -> Changes:
        return cls(frozenset(["*"]), **{f.name: True for f in fields(cls) if f.name != "files"})

    @property
    def all_files(self) -> bool:
        return "*" in self.files

    def touches_files(self) -> bool:
        return bool(self.files) or self.skills or self.config

    def any_of(self, parts: tuple[str, ...]) -> bool:
        """Whether any of these parts (field names) changed."""
        return any(getattr(self, p) for p in parts)

    def __or__(self, other: Changes) -> Changes:
        merged = {f.name: getattr(self, f.name) or getattr(other, f.name) for f in fields(self) if f.name != "files"}
        return Changes(self.files | other.files, **merged)

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    def describe(self) -> str:
        """For logs and test messages: the parts named, in a fixed order."""
        parts = [f.name for f in fields(self) if f.name != "files" and getattr(self, f.name)]
        return ", ".join(sorted(self.files) + parts) or "nothing"


EVERYTHING = Changes.everything()


def from_paths(paths: Iterable[str]) -> Changes:
    """The record for workspace-relative paths (the watcher's, or the engine's made relative).
    A path that is not one of the workspace's own parts changes nothing the window shows; a folder
    event on memory/ itself (it appeared, or the watch just started) may hide anything."""
    out = Changes()
    for p in paths:
        out = out | _one(p.rstrip("/"))
    return out


def _one(p: str) -> Changes:
    if p in MEMORY_FILES:
        return Changes(files=frozenset([p]))
    if p in ("memory", ""):
        return EVERYTHING
    if p == "skills":
        return Changes(files=frozenset(["*"]), skills=True)
    if p.startswith("skills/"):
        parts = p.split("/")
        if is_memory_path(p):
            return Changes(files=frozenset([p]))
        return Changes(skills=True) if len(parts) == 2 else Changes()
    if p == "memory/history.jsonl":
        return Changes(history=True)
    if p in CURSORS:
        return Changes(cursors=True)
    if p == SCHEDULE:
        return Changes(schedule=True)
    if p.startswith("memory/archive"):
        return Changes(archive=True)
    if p.startswith("memory/dreams"):
        return Changes(runs=True)
    if p == "config.json":
        return Changes(config=True)
    if p == ".git" or p.startswith(".git/") or p == ".gitignore":
        return Changes(snapshots=True)
    if p.startswith("sessions"):
        return Changes(sessions=True)
    if p.startswith("memory/"):
        return Changes(history=True, cursors=True)   # a file of the assistant's own (a lock, its journal)
    return Changes()


def relative_changes(paths: Iterable[str], root: Path, config_path: Path | None = None,
                     state_dir: Path | None = None,
                     inside_as: Callable[[Iterable[str]], Changes] | None = None) -> Changes:
    """The record for absolute paths an engine write touched: inside the workspace by their
    relative name (read by `inside_as`, the home's layout, when it keeps its parts elsewhere than
    the contract: OpenClaw's MEMORY.md is at the top), the home's config.json as config,
    Dreamdesk's own state folder as state."""
    rel: list[str] = []
    out = Changes()
    for raw in paths:
        p = Path(raw)
        if config_path is not None and p == config_path:
            out = out | Changes(config=True)
        elif state_dir is not None and p.is_relative_to(state_dir):
            out = out | Changes(state=True)
        elif p.is_relative_to(root):
            rel.append(p.relative_to(root).as_posix())
        elif p.name == "config.json":
            out = out | Changes(config=True)
        elif "sessions" in p.parts:
            out = out | Changes(sessions=True)
    return out | (inside_as or from_paths)(rel)


def inside(paths: Iterable[str], root: Path) -> set[str]:
    """The workspace-relative names of those absolute paths that lie in the workspace."""
    return {Path(p).relative_to(root).as_posix() for p in paths if Path(p).is_relative_to(root)}


# -- the recording: one per job, per thread -------------------------------------------------------
_local = threading.local()


@contextmanager
def recording() -> Iterator[set[str]]:
    """Collects the absolute path of everything written on this thread while open (nested ones
    see their own writes, and the outer one sees them too)."""
    stack = _local.__dict__.setdefault("stack", [])
    written: set[str] = set()
    stack.append(written)
    try:
        yield written
    finally:
        stack.pop()
        if stack:
            stack[-1].update(written)


def note(path: str | Path) -> None:
    """Called by every engine write (file helpers, git): the path joins the open recording."""
    stack = getattr(_local, "stack", None)
    if stack and not getattr(_local, "bookkeeping", 0):
        stack[-1].add(str(path))


@contextmanager
def bookkeeping() -> Iterator[None]:
    """Writes on this thread that change nothing any view shows (what the watch last saw, the
    versions first remembered as looked at): they stay out of the change record, so they cause
    no read. (A file watcher still knows them for our own: engine/disk/own_writes.py.)"""
    _local.bookkeeping = getattr(_local, "bookkeeping", 0) + 1
    try:
        yield
    finally:
        _local.bookkeeping -= 1
