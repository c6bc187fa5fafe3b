"""What a new chat sees: the parts of the system prompt built from memory, as the assistant
that owns the home builds it: a Jenny-style home as spec section 7 says, a nanobot 0.3.x home as
nanobot's ContextBuilder.build_system_prompt does (see _nanobot_parts)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .assistants import Assistant, assistant_of, is_nanobot_template
from .assistants.nanobot_templates import current_soul_from_legacy
from .history import History, HistoryEntry
from .problems import Problem
from .textform import injected_text
from .tokens import estimate_tokens
from .workspace import Workspace

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

    @property
    def total_chars(self) -> int:
        return sum(p.chars for p in self.parts)

    @property
    def total_tokens(self) -> int:
        return sum(p.tokens for p in self.parts)

    def to_json(self, with_text: bool = False) -> dict:
        return {"parts": [p.to_json(with_text) for p in self.parts],
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


def build_prompt(ws: Workspace, history: History, dream_cursor: int,
                 assistant: Assistant | None = None) -> PromptPreview:
    """The preview for the assistant that owns the home (detected when not given)."""
    assistant = assistant or assistant_of(ws)
    build = _nanobot_prompt if assistant.is_nanobot else _jenny_prompt
    pv = build(ws, history, dream_cursor)
    pv.assistant = assistant
    return pv


def in_prompt_cursors(ws: Workspace, history: History, dream_cursor: int) -> set[int]:
    """The pending history cursors the next chat's prompt carries (none for nanobot)."""
    return {e.cursor for e in build_prompt(ws, history, dream_cursor).pending_shown}


def _jenny_prompt(ws: Workspace, history: History, dream_cursor: int) -> PromptPreview:
    parts: list[PromptPart] = []
    problems: list[Problem] = []
    for rel in ("SOUL.md", "USER.md"):
        state, probs = ws.read_file(rel)
        problems.extend(probs)
        parts.append(PromptPart(rel, rel, injected_text(state.text), state.exists,
                                "injected whole on every turn" if state.exists else "missing"))
    state, probs = ws.read_file("AGENTS.md")
    problems.extend(p for p in probs if p.message != "missing")     # AGENTS.md is optional
    if state.exists:
        parts.append(PromptPart("AGENTS.md", "AGENTS.md", injected_text(state.text), True,
                                "loaded whole: no budget and no curator"))
    state, probs = ws.read_file("memory/MEMORY.md")
    problems.extend(probs)
    text = injected_text(state.text)
    real = state.exists and has_real_content(text)
    note = ("injected whole on every turn" if real else
            "untouched template: not injected" if state.exists else "missing")
    parts.append(PromptPart("MEMORY.md", "memory/MEMORY.md", text, real, note))
    block, names = wikis_block(ws)
    parts.append(PromptPart("Wikis", "wikis/", block, bool(block),
                            f"{len(names)} wiki(s), rendered from disk" if block else "no wikis"))
    pending = history.pending(dream_cursor)
    shown = select_pending(pending)
    text = "\n".join(render_entry(e) for e in shown)
    cut = len(pending) - len(shown)
    note = f"{len(shown)} of {len(pending)} unprocessed entries"
    if cut:
        note += f"; {cut} older ones cut by the {PENDING_MAX_ENTRIES}-entry / ~{PENDING_MAX_TOKENS:,}-token cap"
    parts.append(PromptPart("Pending history", "memory/history.jsonl", text, bool(shown), note))
    return PromptPreview(parts, len(pending), shown, cut, problems)


# -- nanobot 0.3.x ---------------------------------------------------------------------------
# nanobot/agent/context.py: build_system_prompt joins its sections with "\n\n---\n\n":
# identity, the bootstrap files ("## <name>\n\n<text>", AGENTS.md, SOUL.md, USER.md, joined by
# blank lines), the tool contract, "# Memory\n\n## Long-term Memory\n<MEMORY.md>", "# Active
# Skills" (skills marked always), the skills list. No history: Dream reads it.
NANOBOT_BOOTSTRAP = ("AGENTS.md", "SOUL.md", "USER.md")
NANOBOT_SKIPPABLE = ("AGENTS.md", "USER.md")      # skipped when identical to nanobot's template
NANOBOT_OWN_NOTE = ("from nanobot itself (identity, platform policy, tool contract, the skills list): "
                    "not from these files, not counted")
_ALWAYS_RE = re.compile(r'^always\s*:\s*true\s*$|"always"\s*:\s*true', re.IGNORECASE | re.MULTILINE)


def _bootstrap_part(ws: Workspace, rel: str, problems: list[Problem]) -> PromptPart:
    state, probs = ws.read_file(rel)
    problems.extend(p for p in probs if p.message != "missing")
    if not state.exists:
        return PromptPart(rel, rel, "", False, "missing")
    text, note = injected_text(state.text), "injected whole on every turn"
    if rel == "SOUL.md" and is_nanobot_template(text, "legacy/SOUL.md"):
        current = current_soul_from_legacy(text)
        if current is not None:
            text, note = current, "nanobot's legacy template: nanobot injects its current SOUL.md template instead"
    if not text.strip():
        return PromptPart(rel, rel, "", False, "empty: not injected")
    if rel in NANOBOT_SKIPPABLE and is_nanobot_template(text, rel):
        return PromptPart(rel, rel, text, False, "nanobot's untouched template: not injected")
    if rel == "AGENTS.md":
        note = "loaded whole: no budget and no curator"
    return PromptPart(rel, rel, f"## {rel}\n\n{text}", True, note)


def _memory_part(ws: Workspace, problems: list[Problem]) -> PromptPart:
    state, probs = ws.read_file("memory/MEMORY.md")
    problems.extend(probs)
    text = injected_text(state.text)
    if not state.exists or not text:
        return PromptPart("MEMORY.md", "memory/MEMORY.md", "", False, "missing" if not state.exists else "empty")
    if is_nanobot_template(text, "memory/MEMORY.md"):
        return PromptPart("MEMORY.md", "memory/MEMORY.md", text, False, "nanobot's untouched template: not injected")
    return PromptPart("MEMORY.md", "memory/MEMORY.md", f"# Memory\n\n## Long-term Memory\n{text}", True,
                      "injected whole on every turn")


def _strip_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter, body) of a SKILL.md."""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            return text[3:end], text[end + 4:].lstrip("\n")
    return "", text


def _skills_part(ws: Workspace) -> PromptPart:
    blocks = []
    for m in ws.memory_files():
        if m.kind != "skill":
            continue
        state, _ = ws.read_file(m.path)
        meta, body = _strip_frontmatter(injected_text(state.text))
        if state.exists and _ALWAYS_RE.search(meta):
            blocks.append(f"### Skill: {m.path.split('/')[1]}\n\n{body}")
    if not blocks:
        return PromptPart("Active skills", "skills/", "", False,
                          "no workspace skill is marked always: true (the others are only listed)")
    return PromptPart("Active skills", "skills/", "# Active Skills\n\n" + "\n\n---\n\n".join(blocks), True,
                      f"{len(blocks)} skill(s) marked always: true, injected whole")


def _nanobot_prompt(ws: Workspace, history: History, dream_cursor: int) -> PromptPreview:
    problems: list[Problem] = []
    parts = [PromptPart("nanobot's own text", None, "", False, NANOBOT_OWN_NOTE)]
    parts += [_bootstrap_part(ws, rel, problems) for rel in NANOBOT_BOOTSTRAP]
    parts.append(_memory_part(ws, problems))
    parts.append(_skills_part(ws))
    pending = history.pending(dream_cursor)
    parts.append(PromptPart("Pending history", "memory/history.jsonl", "", False,
                            f"not injected: nanobot's prompt carries no history; its Dream reads the "
                            f"{len(pending)} unprocessed entr{'y' if len(pending) == 1 else 'ies'}"))
    return PromptPreview(parts, len(pending), [], 0, problems)
