"""What every assistant adapter answers about its home. The defaults are the contract's
(../shared/spec/, a Jenny-style home); each adapter (jenny.py, nanobot.py, …) overrides what its
assistant does differently. Nothing outside engine/assistants asks which assistant it is: it
asks the adapter what it does."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Mapping

if TYPE_CHECKING:
    from ..home.budgets import Sizes
    from ..home.config import Config
    from ..home.workspace import Workspace


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
        """Whether Dreamdesk's own Dream, Compact, scheduling and watch may run on this home
        (False: the assistant does that work itself, and a second writer would race it)."""
        return True

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

    def build_prompt(self, ws, history, dream_cursor: int, new_session: bool = False):
        """The preview of a new chat's system prompt, as this assistant builds it (a PromptPreview);
        `new_session`: opened with /new, where the assistant leads the first message differently."""
        from . import jenny_prompt
        return jenny_prompt.build(ws, history, dream_cursor)

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
