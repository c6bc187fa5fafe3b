"""What Dream tells the model: its job per pass, the files with their sizes and budgets, and
the batch of history entries with their cursors."""

from __future__ import annotations

from ..home.history import HistoryEntry
from ..core.rules import NEAR, OVER, budget_state

ENTRY_CHARS = 500
BATCH_SIZE = 20

COMMON = """You are Dream, the background process that keeps an AI assistant's long-term memory files \
coherent. The files are plain markdown, injected whole into every conversation:
- SOUL.md: how the assistant behaves and sounds (identity, guardrails, tool-use strategy).
- USER.md: who the user is and what they prefer (identity, habits, language, tone). It is the user's peer card.
- memory/MEMORY.md: what stays true about the work (goals, decisions, infrastructure).
- skills/<name>/SKILL.md: recurring workflows, promoted out of prose.

Rules:
- Make the smallest honest change that keeps memory coherent. Edit surgically with edit_file, add_fact \
and remove_fact; use write_file only to create a skill or when most of a file must change.
- Be ruthless about pruning: removing stale, duplicated or resolved content is as important as adding.
- History entries tag facts [permanent], [durable], [ephemeral] or [correction]. Keep permanent and durable \
facts, apply corrections (replace the outdated fact), and drop ephemeral ones.
- Never invent facts. Every fact you add must come from the history entries below; pass their cursors as sources.
- Files have size budgets in characters. A write that would leave a file over its budget and larger \
than before is refused: make room first by shortening or removing, or by moving content where it belongs.
- Everything you remove is archived, so prefer removing over keeping noise.
- When you are done, answer with a one-line summary and no tool calls."""

PASSES = {
    "review": ("explicit", """This is the REVIEW pass. Its only job is to make the files smaller. Move content \
where it belongs (a task specification to a skill, project context to MEMORY.md), merge duplicates, and remove \
stale or resolved content. Do not add new facts from history in this pass; writes that grow SOUL.md, USER.md \
or MEMORY.md are refused."""),
    "consolidation": ("explicit", """This is the CONSOLIDATION pass. Fold the new history entries into the memory \
files: add what is durable, apply corrections, prune what they make stale."""),
    "deduction": ("deductive", """This is the DEDUCTION pass. Look for knowledge updates (the same fact changed \
over time: replace the outdated one with remove_fact and a replacement), logical implications that follow \
from what is known, and contradictions (flag both sides in the file rather than picking one blindly). Keep \
USER.md's key biographical facts (name, location, occupation) current: it is the peer card."""),
    "induction": ("inductive", """This is the INDUCTION pass. Look for patterns across several entries: \
behavioural tendencies, consistent preferences, stable traits, correlations. A pattern needs at least 2 \
source entries; record it with add_fact and all its sources (confidence is set from their number: 2 low, \
3-4 medium, 5+ high). When a pattern is already in a file and this batch confirms it, replace it with \
remove_fact (text, replacement, sources) so its confidence follows the evidence. Add nothing that a single \
entry shows."""),
}

ITERATION_LIMITS = {"review": 10, "consolidation": 15, "deduction": 12, "induction": 10}


def batch_text(entries: list[HistoryEntry]) -> str:
    lines = []
    for e in entries:
        content = e.content if len(e.content) <= ENTRY_CHARS else e.content[:ENTRY_CHARS - 1] + "…"   # 500 in all
        who = f" ({e.session_key})" if e.session_key else ""
        lines.append(f"[cursor {e.cursor}] {e.timestamp}{who}\n{content}")
    return "\n\n".join(lines)


# the words the model reads for each budget state (rules.budget_state: at the budget is near)
_BUDGET_NOTES = {OVER: " — OVER BUDGET: free space before adding", NEAR: " — near its budget"}


def files_text(files: dict[str, str | None], budgets: dict[str, int]) -> str:
    parts = []
    for rel, text in files.items():
        size = len(text or "")
        budget = budgets.get(rel, 0)
        label = f"{rel}: {size:,} / {budget:,} chars" if budget else f"{rel}: {size:,} chars (no budget)"
        label += _BUDGET_NOTES.get(budget_state(size, budget), "")
        parts.append(f"### {label}\n" + (text if text is not None else "(does not exist)"))
    return "\n\n".join(parts)


OWN_PROMPT_INTRO = """This is the CONSOLIDATION pass. Fold the new history entries into the memory files. \
Its instructions are the assistant's own Dream prompt (prompts/dream.md), below. The rules above still \
hold: where the prompt names a tool or a file you do not have, use the closest tool you have."""


def pass_instructions(pass_name: str, own_prompt: str | None = None, edited: str | None = None) -> str:
    """A pass's job. The person's edit in Dreamdesk (prompt_edits.py) comes first; else the
    assistant's own Dream prompt replaces the consolidation pass's (the pass that does what the
    assistant's single Dream pass does); the other passes keep theirs."""
    if edited:
        return edited
    if pass_name == "consolidation" and own_prompt:
        return OWN_PROMPT_INTRO + "\n\n--- prompts/dream.md ---\n" + own_prompt + "\n--- end of prompts/dream.md ---"
    return PASSES[pass_name][1]


def build_messages(pass_name: str, files: dict[str, str | None], budgets: dict[str, int],
                   batch: list[HistoryEntry], skills: list[str], own_prompt: str | None = None,
                   closed: list[str] = (), edited: str | None = None) -> list[dict]:
    """`closed`: the areas (write_scope.AREAS) the person closed to Dream in this workspace;
    `edited`: the person's instructions for this pass, if they replaced Dreamdesk's."""
    system = COMMON + "\n\n" + pass_instructions(pass_name, own_prompt, edited)
    user = ("Current memory files:\n\n" + files_text(files, budgets)
            + ("\n\nSkills: " + ", ".join(skills) if skills else "")
            + ("\n\nClosed to you in this workspace by the person (read them, never write them): "
               + ", ".join(closed) if closed else "")
            + "\n\nNew history entries (oldest first):\n\n" + (batch_text(batch) if batch else "(none)"))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
