"""The pieces a prompt preview is made of, whatever assistant builds it: a part (what file, what
text, injected or why not), the preview, the pending-history cap and rendering, the wikis block.
Each assistant's own build is in engine/assistants/; engine/assistants/prompt.py picks the home's."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..home.history import HistoryEntry
from ..core.problems import Problem
from ..core.tokens import estimate_tokens
from ..home.workspace import Workspace

if TYPE_CHECKING:
    from . import Assistant

PENDING_MAX_ENTRIES = 50
PENDING_MAX_TOKENS = 8000

_SUMMARY_RE = re.compile(r"^\s*summary\s*:\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE)
# Lines an untouched MEMORY.md template is made of: headings, "(placeholder)" lines, rules,
# an italic footer, and the template's one-line introduction.
_TEMPLATE_LINE_RE = re.compile(
    r"^(#{1,6}\s.*|\(.*\)|-{3,}|\*{3,}|_{3,}|\*[^*].*\*|_[^_].*_|"
    r"this file stores important information that should persist across sessions\.?)$",
    re.IGNORECASE)


def has_real_content(text: str) -> bool:
    """False for an empty or untouched-template MEMORY.md (which is not injected)."""
    for line in text.splitlines():
        s = line.strip()
        if s and not _TEMPLATE_LINE_RE.match(s):
            return True
    return False


@dataclass(slots=True)
class PromptPart:
    name: str                 # e.g. "SOUL.md", "Wikis", "Pending history"
    source: str | None        # file it comes from (None for a rendered block)
    text: str
    included: bool
    note: str = ""

    @property
    def chars(self) -> int:
        return len(self.text) if self.included else 0

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text) if self.included else 0

    def to_json(self, with_text: bool = False) -> dict:
        d = {"name": self.name, "source": self.source, "included": self.included,
             "chars": self.chars, "tokens": self.tokens, "note": self.note}
        if with_text:
            d["text"] = self.text
        return d


@dataclass
class PromptPreview:
    parts: list[PromptPart]
    pending_total: int
    pending_shown: list[HistoryEntry]
    pending_cut: int
    problems: list[Problem] = field(default_factory=list)
    assistant: Assistant | None = None
    # the memory part of the system prompt exactly as the assistant sends it, when the adapter
    # builds it whole (OpenClaw's Project Context); None: the included parts are it
    text: str | None = None
    first_message: str | None = None    # what leads the first user message (OpenClaw's /new prelude)

    @property
    def total_chars(self) -> int:
        if self.text is not None:
            return len(self.text) + len(self.first_message or "")
        return sum(p.chars for p in self.parts)

    @property
    def total_tokens(self) -> int:
        if self.text is not None:
            return estimate_tokens(self.text) + estimate_tokens(self.first_message or "")
        return sum(p.tokens for p in self.parts)

    def to_json(self, with_text: bool = False) -> dict:
        exact = {"text": self.text, "first_message": self.first_message} if with_text and self.text is not None else {}
        return {**exact, "parts": [p.to_json(with_text) for p in self.parts],
                "total_chars": self.total_chars, "total_tokens": self.total_tokens,
                "pending": {"total": self.pending_total, "shown": len(self.pending_shown),
                            "cut": self.pending_cut,
                            "shown_cursors": [e.cursor for e in self.pending_shown],
                            "max_entries": PENDING_MAX_ENTRIES, "max_tokens": PENDING_MAX_TOKENS},
                "assistant": self.assistant.to_json() if self.assistant else None,
                "problems": [p.to_json() for p in self.problems]}


def render_entry(e: HistoryEntry) -> str:
    return f"[{e.timestamp}] {e.content}"


def select_pending(pending: list[HistoryEntry]) -> list[HistoryEntry]:
    """The newest ≤50 pending entries whose rendered text fits in ~8,000 tokens."""
    chosen: list[HistoryEntry] = []
    budget = PENDING_MAX_TOKENS
    for e in reversed(pending[-PENDING_MAX_ENTRIES:]):
        t = estimate_tokens(render_entry(e))
        if t > budget:
            break
        budget -= t
        chosen.append(e)
    chosen.reverse()
    return chosen


def wikis_block(ws: Workspace) -> tuple[str, list[str]]:
    """The `## Wikis` block, rendered from disk, and the wiki names in it."""
    wdir = ws.root / "wikis"
    lines: list[str] = []
    names: list[str] = []
    if wdir.is_dir():
        for d in sorted(wdir.iterdir(), key=lambda q: q.name):
            if not d.is_dir() or d.name.startswith("."):
                continue
            scope = "(no scope set)"
            state, _ = ws.read_file(f"wikis/{d.name}/AGENTS.md")
            m = _SUMMARY_RE.search(state.text) if state.exists else None
            if m and m.group(1):
                scope = m.group(1)
            names.append(d.name)
            lines.append(f"- {d.name}: {scope} — wikis/{d.name}/wiki/index.md")
    if not lines:
        return "", names
    return "## Wikis\n\n" + "\n".join(lines) + "\n", names
