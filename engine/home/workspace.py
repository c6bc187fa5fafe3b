"""Locating and reading a workspace. Opening writes nothing, ever: every method here that
writes says so in its name (write_*), and none is called on open."""

from __future__ import annotations

import os
from contextlib import ExitStack
from typing import Callable, ContextManager
from dataclasses import dataclass
from pathlib import Path

from . import config as config_mod
from .cursors import read_cursor
from ..disk.files import FileState, checked_write, read_state, resolve_inside, symlink_outside
from .history import History, HistoryReader
from .layout import CONTRACT, JSON5, DatedNote, Layout
from ..core.problems import INFO, WARNING, Problem, WorkspaceError
from ..disk.read_only import ReadOnly, ReadOnlyKind
from ..core.rules import WORKSPACE_MARKERS

_MARKERS = WORKSPACE_MARKERS


def _looks_like_workspace(p: Path) -> bool:
    return any((p / m).exists() for m in _MARKERS)


@dataclass(frozen=True, slots=True)
class MemoryFile:
    path: str          # relative to the workspace, forward slashes
    kind: str          # soul | user | memory | skill

    @property
    def name(self) -> str:
        return self.path


# Wrapped around each write of Dreamdesk's own: the guards the layers above register (the watch's
# own_write, so that our write is never taken for another writer's). A registry, not an import:
# the watch archives and snapshots through the workspace, so it sits above it. engine/recovery/job_lock.py
# imports the watch, and every write operation takes that lock.
_WRITE_GUARDS: list[Callable[["Workspace", str], ContextManager]] = []


# Who may say no to a write, in words, before anything is done for it: the assistants package
# asks the home's assistant (OpenClaw: its dreaming holds the workspace's lock).
_WRITE_REFUSALS: list[Callable[["Workspace", str], "str | None"]] = []


def refuse_writes(refusal: Callable[["Workspace", str], "str | None"]) -> None:
    """Ask `refusal(ws, rel)` before every later write (once, however often asked)."""
    if refusal not in _WRITE_REFUSALS:
        _WRITE_REFUSALS.append(refusal)


# Where Dreamdesk's own history can tell a memory file as it first recorded it after a time (the
# snapshot store registers itself: engine/versions/snapshots.py)
_RECORDED: list[Callable[["Workspace", str, str], "str | None"]] = []


def record_versions(source: Callable[["Workspace", str, str], "str | None"]) -> None:
    """`source(ws, rel, iso)` answers Workspace.recorded_after (once, however often asked)."""
    if source not in _RECORDED:
        _RECORDED.append(source)


def guard_writes(guard: Callable[["Workspace", str], ContextManager]) -> None:
    """Wrap every later Workspace.write_file in `guard(ws, rel)` (once, however often asked)."""
    if guard not in _WRITE_GUARDS:
        _WRITE_GUARDS.append(guard)


class NoHistory:
    """The history reader of a home that keeps no history.jsonl (its layout says so): always
    empty, and nothing is read."""
    version = 0
    stats: dict[str, int] = {}

    def read(self) -> History:
        return History(exists=False)

    def read_versioned(self) -> tuple[int, History]:
        return 0, History(exists=False)


class Workspace:
    """A workspace folder (and the home around it, when there is one), laid out as `layout`
    says (the contract's unless an assistant's adapter opened it: engine/assistants.open_home)."""

    def __init__(self, root: Path, home: Path | None, config_path: Path | None, layout: Layout = CONTRACT):
        self.root = Path(root)
        self.home = Path(home) if home else None
        self.config_path = config_path
        self.layout = layout
        # shared by every history() call
        self.history_reader = HistoryReader(self.history_path) if layout.history else NoHistory()

    # -- locating -----------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike) -> "Workspace":
        """Open a home folder or a workspace folder; reads only, raises WorkspaceError."""
        p = Path(path).expanduser()
        if not p.exists():
            raise WorkspaceError(f"{path}: no such folder")
        if not p.is_dir():
            raise WorkspaceError(f"{path}: not a folder (open the workspace or the home that holds it)")
        p = p.absolute()
        inner = p / "workspace"
        if inner.is_dir() and (_looks_like_workspace(inner) or (p / "config.json").is_file()):
            root, home = inner, p
        elif _looks_like_workspace(p):
            root = p
            parent = p.parent
            home = parent if ((parent / "config.json").is_file() or (parent / "sessions").is_dir()) else None
        else:
            raise WorkspaceError(f"{path}: does not look like an assistant workspace "
                                 "(no SOUL.md, USER.md, AGENTS.md or memory/ here or in ./workspace)")
        cfg = None
        for cand in (root / "config.json", home / "config.json" if home else None):
            if cand is not None and (cand.exists() or cand.is_symlink()):   # a folder there is reported
                cfg = cand
                break
        return cls(root, home, cfg)

    # -- paths --------------------------------------------------------------------------
    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def dreams_dir(self) -> Path:
        """Dream's run records, state.json and schedule.json."""
        return self.memory_dir / "dreams"

    @property
    def history_path(self) -> Path:
        return self.memory_dir / "history.jsonl"

    @property
    def cursor_path(self) -> Path:
        return self.memory_dir / ".cursor"

    @property
    def dream_cursor_path(self) -> Path:
        return self.memory_dir / ".dream_cursor"

    @property
    def config_create_path(self) -> Path:
        """Where a config.json is created when none exists."""
        return self.config_path or ((self.home or self.root) / "config.json")

    @property
    def config_display(self) -> str:
        if self.config_path is None:
            return "config.json"
        if self.home and self.config_path.parent == self.home and self.home != self.root:
            return f"../{self.config_path.name}"
        return self.config_path.name

    def rel(self, path: Path) -> str:
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    # -- reading ------------------------------------------------------------------------
    def config(self) -> config_mod.Config:
        return config_mod.load(self.config_path, self.config_display, json5=self.layout.config_syntax == JSON5,
                               refuse_writes=self.layout.config_writes, settings=self.layout.config_settings)

    def history(self) -> History:
        """What read_history gives, read incrementally while the file only grows."""
        return self.history_reader.read()

    def cursors(self) -> tuple[int, int, list[Problem]]:
        if not self.layout.history:
            return 0, 0, []          # no history.jsonl, so no cursors into it either
        cur, p1 = read_cursor(self.cursor_path, "memory/.cursor")
        dream, p2 = read_cursor(self.dream_cursor_path, "memory/.dream_cursor")
        return cur, dream, [p for p in (p1, p2) if p]

    def memory_files(self) -> list[MemoryFile]:
        return [MemoryFile(rel, kind) for rel, kind in self.layout.memory_paths(self.root)]

    def dated_notes(self) -> list[DatedNote]:
        """The home's dated notes (OpenClaw's daily notes), newest first; none in the contract's."""
        return self.layout.dated_notes(self.root)

    def read_file(self, rel: str) -> tuple[FileState, list[Problem]]:
        """Read a workspace file for display. Links that lead outside are read but reported."""
        state, problems, _ = self.read_for_edit(rel)
        return state, problems

    def read_for_edit(self, rel: str) -> tuple[FileState, list[Problem], ReadOnly | None]:
        """read_file, and why the file may be shown but not saved (None: it may be saved)."""
        problems: list[Problem] = []
        target = self.root / rel
        outside = symlink_outside(self.root, rel)
        why = ReadOnly(ReadOnlyKind.LINK_OUTSIDE, rel, str(outside)) if outside else None
        if outside:
            problems.append(Problem(rel, f"is a symlink leading outside the workspace ({outside}); "
                                         "shown read-only, Dreamdesk never writes through it", severity=WARNING))
        if target.is_dir():
            problems.append(Problem(rel, "is a folder, not a file"))
            return FileState("", None, False), problems, why or ReadOnly(ReadOnlyKind.FOLDER, rel)
        try:
            state = read_state(target)
        except OSError as exc:
            problems.append(Problem(rel, f"cannot be read ({exc.strerror})"))
            return FileState("", None, False), problems, why or ReadOnly(ReadOnlyKind.UNREADABLE, rel, str(exc.strerror))
        if not state.exists:
            problems.append(Problem(rel, "missing", severity=INFO))
        elif state.decode_error:
            problems.append(Problem(rel, f"{state.decode_error}; shown with replacement characters", severity=WARNING))
            why = why or ReadOnly(ReadOnlyKind.NOT_UTF8, rel, state.decode_error)
        if self.layout.file_writes:
            why = why or ReadOnly(ReadOnlyKind.HOME, rel, self.layout.file_writes)
        if (never := self.layout.never_written_why(rel)) is not None:
            why = why or ReadOnly(ReadOnlyKind.HOME, rel, never)
        if self.layout.regular_only and target.is_symlink():
            why = why or ReadOnly(ReadOnlyKind.HOME, rel, f"{rel} is a symlink: {self.layout.regular_only}")
        return state, problems, why

    def recorded_after(self, rel: str, iso: str) -> str | None:
        """`rel` as Dreamdesk's own history first holds it after the time `iso` (the file before
        Dreamdesk's first write since, or as the watch saw another writer leave it); None when
        it holds no version since. Reads only."""
        return next((v for source in _RECORDED if (v := source(self, rel, iso)) is not None), None)

    # -- writing (never called on open) ---------------------------------------------------
    def check_writable(self, rel: str) -> None:
        """Refuse, in words, a file this home's layout never lets Dreamdesk write (called before
        anything is done for the write: a refused edit takes no snapshot either)."""
        if self.layout.file_writes:
            raise WorkspaceError(self.layout.file_writes)
        if self.layout.regular_only and (self.root / rel).is_symlink():
            raise WorkspaceError(f"{rel} is a symlink: {self.layout.regular_only}")
        for refusal in _WRITE_REFUSALS:
            if (why := refusal(self, rel)) is not None:
                raise WorkspaceError(why)

    def write_file(self, rel: str, text: str, expected_hash: str) -> str:
        """Hash-checked atomic write of a workspace file; refuses paths that lead outside, and every
        file of a home Dreamdesk only reads (its layout says why)."""
        self.check_writable(rel)
        target = resolve_inside(self.root, rel)
        with ExitStack() as guards:
            for guard in _WRITE_GUARDS:
                guards.enter_context(guard(self, rel))
            return checked_write(target, text, expected_hash, display=rel)
