"""The prompt of a Jenny-style home, as spec section 7 says: SOUL.md, USER.md, AGENTS.md,
MEMORY.md (unless an untouched template), the wikis and the pending history, capped."""

from __future__ import annotations

from ..home.history import History
from ..core.problems import Problem
from .prompt_parts import (PENDING_MAX_ENTRIES, PENDING_MAX_TOKENS, PromptPart, PromptPreview, has_real_content,
                            render_entry, select_pending, wikis_block)
from ..text.textform import injected_text
from ..home.workspace import Workspace


def build(ws: Workspace, history: History, dream_cursor: int) -> PromptPreview:
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
