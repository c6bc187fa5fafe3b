"""What every assistant adapter answers about its home. The defaults are the contract's
(../shared/spec/, a Jenny-style home); each adapter (jenny.py, nanobot.py, …) overrides what its
assistant does differently. Nothing outside engine/assistants asks which assistant it is: it
asks the adapter what it does."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar


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

    def build_prompt(self, ws, history, dream_cursor: int):
        """The preview of a new chat's system prompt, as this assistant builds it (a PromptPreview)."""
        from . import jenny_prompt
        return jenny_prompt.build(ws, history, dream_cursor)

    def is_placeholder(self, text: str, file: str) -> bool:
        """`text` (an entry that left `file`) is the assistant's own onboarding template text,
        never filled in: not a fact anybody pruned."""
        return False

    def to_json(self) -> dict:
        return {"kind": self.kind, "label": self.label, "why": list(self.why)}
