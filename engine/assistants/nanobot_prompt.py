"""The prompt of a nanobot 0.3.x home, as nanobot's ContextBuilder.build_system_prompt builds
it (nanobot/agent/context.py)."""

from __future__ import annotations

import re

from ..home.history import History
from ..core.problems import Problem
from .prompt_parts import PromptPart, PromptPreview
from ..text.textform import injected_text
from ..home.workspace import Workspace
from .nanobot_templates import current_soul_from_legacy, is_template


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
    if rel == "SOUL.md" and is_template(text, "legacy/SOUL.md"):
        current = current_soul_from_legacy(text)
        if current is not None:
            text, note = current, "nanobot's legacy template: nanobot injects its current SOUL.md template instead"
    if not text.strip():
        return PromptPart(rel, rel, "", False, "empty: not injected")
    if rel in NANOBOT_SKIPPABLE and is_template(text, rel):
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
    if is_template(text, "memory/MEMORY.md"):
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


def build(ws: Workspace, history: History, dream_cursor: int) -> PromptPreview:
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
