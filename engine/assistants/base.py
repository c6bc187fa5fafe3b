"""What every assistant adapter answers about its home. The defaults are the contract's
(../shared/spec/, a Jenny-style home); each adapter (jenny.py, nanobot.py, …) overrides what its
assistant does differently. Nothing outside engine/assistants asks which assistant it is: it
asks the adapter what it does."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Mapping

from ..core.lint_finding import Finding, Place

if TYPE_CHECKING:
    from datetime import date

    from .own_settings import OwnSettings, OwnWrite
    from ..home.budgets import Sizes
    from ..home.config import Config
    from ..home.workspace import Workspace


@dataclass
class AssistantRuns:
    """An assistant's runs when it keeps its own record of them (not Dreamdesk's snapshot commits)."""
    runs: list[dict]                 # newest first: as `runs --json` lists an assistant's run, its "detail" within
    restore_points: list[dict] = field(default_factory=list)    # the saved versions it keeps, newest first
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass
class AssistantPrunes:
    """What left the memory files by the assistant's own hand, known from what it keeps."""
    records: list[dict]              # oldest first: ArchiveRecord's fields, with "origin" and "back"
    restore_refused: str = ""        # why such an entry is not restored yet, in words ("": it may be)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass
class LintReading:
    """The memory files as the assistant has memory lint read them, when not as the contract's."""
    places: list[Place]               # the entries the shared rules read, in the order they are read
    findings: list[Finding]           # its own rules' findings
    shared: frozenset[str]            # which of the shared kinds (lint_finding.KINDS) apply to its home
    kinds: tuple[str, ...] = ()       # its own kinds, in the order a list shows them


@dataclass(frozen=True, slots=True)
class Promoted:
    """How the assistant's own dreaming put an entry in a memory file, in the fields a list of
    such entries shows (a panel beside the editor): the rest is in its EntryNote's words."""
    text: str                        # the entry as a person reads it (markers and annotations taken off)
    how: str                         # promoted | consolidated | marked (a marker and nothing more)
    day: str | None = None           # the day it was promoted, as the file says (its section's date)
    at: str | None = None            # the time it was promoted, as the assistant's store says (ISO)
    score: float | None = None       # as the file records it (None: it records none)
    recalls: int | None = None       # how often it was recalled (the store's count, else the file's)
    source_exists: bool | None = None  # the source file is there (None: not looked at, or no source)

    def to_json(self) -> dict:
        return {"text": self.text, "how": self.how, "day": self.day, "at": self.at, "score": self.score,
                "recalls": self.recalls, "source_exists": self.source_exists}


@dataclass(frozen=True, slots=True)
class EntryNote:
    """What the assistant's own records say about one entry (or block) of a memory file."""
    start_line: int                  # 1-based, inclusive
    end_line: int
    title: str                       # one line: "promoted 2026-12-06 · score 0.81 · 3 recalls"
    details: tuple[str, ...] = ()    # further lines, in words
    source: tuple[str, int, int] | None = None    # a file and its lines (1-based) the entry came from
    state: str = ""                  # a word a view may colour by: active | superseded | promoted | by hand …
    promoted: Promoted | None = None  # the entry was put there by the assistant's dreaming

    def to_json(self) -> dict:
        return {"start_line": self.start_line, "end_line": self.end_line, "title": self.title,
                "details": list(self.details), "state": self.state,
                "source": None if self.source is None else
                {"path": self.source[0], "start_line": self.source[1], "end_line": self.source[2]},
                "promoted": self.promoted.to_json() if self.promoted else None}


@dataclass(frozen=True, slots=True)
class ListedNote:
    """A dated note as a file list shows it, newest first."""
    path: str                        # relative to the workspace
    label: str                       # "2026-12-06 · standup · 1.2 KB"
    tip: str = ""                    # more, in words (what a new session quotes of it)
    in_prelude: bool = False         # a new session (/new) quotes it, whole or cut


@dataclass(frozen=True, slots=True)
class Assistant:
    why: tuple[str, ...] = field(default_factory=tuple)     # the signs that said so, in words

    kind: ClassVar[str] = ""
    label: ClassVar[str] = ""      # "nanobot 0.3.x"
    name: ClassVar[str] = ""       # the assistant in a sentence ("nanobot's prompt")

    @property
    def repository_files(self) -> tuple[str, ...] | None:
        """The paths the assistant commits to its own git repository in the workspace, when it
        keeps one there (Dreamdesk commits nothing else into it); None: the repository is
        Dreamdesk's, as the contract has it."""
        return None

    @property
    def hidden_from_its_git(self) -> tuple[str, ...]:
        """Exclude lines that keep Dreamdesk's own files out of the assistant's `git status`."""
        return ()

    @property
    def history_in_prompt(self) -> bool:
        """Whether a new chat's prompt carries the history Dream has not read yet (the
        contract's does, capped)."""
        return True

    @property
    def uses_model_presets(self) -> bool:
        """Whether the home's model may come from a preset and a default model."""
        return False

    @property
    def runs_dreamdesk_jobs(self) -> bool:
        """Whether Dreamdesk's own Dream, Compact and scheduling may run on this home (False: the
        assistant does that work itself, and a second writer would race it)."""
        return True

    @property
    def watches(self) -> bool:
        """Whether Dreamdesk's watch may run here: it writes only Dreamdesk's own history (the
        archive of what another writer removed, a snapshot of the change), so it races no one
        where that history is kept apart from the workspace."""
        return self.runs_dreamdesk_jobs

    @property
    def jobs_refused(self) -> str:
        """Why Dreamdesk's own jobs do not run here, in words ("" when they do)."""
        return ""

    @property
    def roster(self) -> str:
        """The home's agents when it has several, in words for the assistant line ("" when one)."""
        return ""

    @classmethod
    def of_workspace(cls, ws: Workspace, config: dict) -> Assistant | None:
        """This assistant when the open workspace is its home (with its signs, in words), else
        None: each adapter's `detect(root, home, config)` by default."""
        detect = getattr(cls, "detect", None)
        return detect(ws.root, ws.home, config) if detect is not None else None

    @classmethod
    def open_home(cls, path: Path, agent: str | None = None,
                  env: Mapping[str, str] | None = None) -> Workspace | None:
        """The Workspace at `path` laid out as this assistant keeps its home (`agent`: which of its
        agents), or None when `path` is not such a home (then the next adapter is asked, and last
        the contract's Workspace.open)."""
        return None

    def sizes(self, ws: Workspace, cfg: Config) -> Sizes:
        """Each memory file against the limit that really applies to it, the totals, and the
        entries the assistant's cut hides: the contract's budgets from config.json by default."""
        from ..home.budgets import Sizes, measure
        files, problems = measure(ws, cfg)
        return Sizes(files, [], problems)

    def unread(self, part: str) -> str | None:
        """Why Dreamdesk does not read this part of the home yet ("runs", "archive"), in words;
        None: it reads it as the contract's."""
        return None

    def assistant_runs(self, ws: Workspace) -> AssistantRuns | None:
        """The assistant's own runs, when it records them itself; None: the contract's answer, its
        runs are the snapshot commits it made (engine/dream/run_list.py reads those)."""
        return None

    def assistant_prunes(self, ws: Workspace) -> AssistantPrunes | None:
        """What the assistant removed from the memory files, known from its own records; None: the
        contract's answer (Dreamdesk's archive and the snapshot commits say it)."""
        return None

    @property
    def agent_choice(self) -> tuple[tuple[str, ...], str | None]:
        """The home's agents a person may switch between, and the one shown ((), None: one only)."""
        return (), None

    def whats_next(self, ws: Workspace) -> dict | None:
        """What the assistant's own dreaming will do next (its candidates, its next run), as JSON;
        None: it dreams by no schedule of its own (the contract's Dream is Dreamdesk's)."""
        return None

    def entry_notes(self, ws: Workspace, file: str) -> list[EntryNote]:
        """What the assistant's records say about each entry of `file` (where it came from, its
        status); none in the contract's home."""
        return []

    def listed_notes(self, ws: Workspace) -> list[ListedNote] | None:
        """The dated notes as a file list shows them apart from the memory files (day, name,
        size, newest first); None: listed by path with the rest (the contract's history is no file list)."""
        return None

    def files_detail(self, ws: Workspace) -> dict:
        """The same as JSON for `files --json`, with anything else the home keeps beside its files
        (the contract's: nothing more)."""
        return {}

    def build_prompt(self, ws, history, dream_cursor: int, new_session: bool = False):
        """The preview of a new chat's system prompt, as this assistant builds it (a PromptPreview);
        `new_session`: opened with /new, where the assistant leads the first message differently."""
        from . import jenny_prompt
        return jenny_prompt.build(ws, history, dream_cursor)

    def config_note(self, path: str, value) -> str | None:
        """What the assistant's own config loader says of `value` for the setting at `path` (that
        it would refuse to start on it), or None: added to Dreamdesk's own refusal."""
        return None

    def edit_actions(self, file: str) -> tuple[str, ...]:
        """The structured edits the assistant defines for `file` (OpenClaw's USER.md directives:
        add, supersede, retire); none for the contract's files."""
        return ()

    def apply_edit_action(self, file: str, text: str, action: str, args: dict) -> str:
        """`text` (as an editor shows it) with `action` applied, as the assistant would write it;
        refused in words (WorkspaceError) when the action or its arguments do not fit."""
        from ..core.problems import WorkspaceError
        raise WorkspaceError(f"{file} has no action {action!r} here")

    def write_refusal(self, ws: Workspace, rel: str) -> str | None:
        """Why the assistant cannot take a write to `rel` right now, in words (None: it can)."""
        return None

    def own_settings(self, ws: Workspace) -> OwnSettings | None:
        """The assistant's own settings Dreamdesk sets in its own config file (shown by Settings →
        Memory and `dreamdesk config` instead of config.json's Dream settings); None: the contract's
        home, whose settings are config.json's."""
        return None

    def write_own_settings(self, ws: Workspace, updates: dict) -> OwnWrite:
        """Write `updates` (key -> value) of own_settings to the assistant's config in one write;
        refused in words (WorkspaceError) when a value is, or the home has none."""
        from ..core.problems import WorkspaceError
        raise WorkspaceError(f"{self.name or 'This home'} has no settings of its own that Dreamdesk writes")

    def lint_reading(self, ws: Workspace, today: date) -> LintReading | None:
        """The entries memory lint reads (with what is attached to each and what each says, its
        annotations off), the findings of the assistant's own rules, and which shared rules apply;
        None: the contract's reading (SOUL.md, USER.md, memory/MEMORY.md and the skills, every rule)."""
        return None

    def is_placeholder(self, text: str, file: str) -> bool:
        """`text` (an entry that left `file`) is the assistant's own onboarding template text,
        never filled in: not a fact anybody pruned."""
        return False

    def to_json(self) -> dict:
        out = {"kind": self.kind, "label": self.label, "why": list(self.why)}
        if self.roster:
            out["roster"] = self.roster
        if not self.runs_dreamdesk_jobs:
            out["jobs_refused"] = self.jobs_refused
        return out
