"""The workspace's rules as data, in one place: which files are memory, which are archived, which
budget governs which file and when a size is near or over it, the limits, a history entry's
status and how a cursor's text reads. Engine, CLI and GUI import these; none re-types them."""

from __future__ import annotations

import os
import re
from collections.abc import Container
from pathlib import Path

# -- memory files ----------------------------------------------------------------------------
SOUL, USER, MEMORY = "SOUL.md", "USER.md", "memory/MEMORY.md"
WORKSPACE_MARKERS = ("SOUL.md", "USER.md", "AGENTS.md", "memory")   # a folder holding one is a workspace
CORE_FILES = (SOUL, USER, MEMORY)
CORE_KINDS = {SOUL: "soul", USER: "user", MEMORY: "memory"}
ARCHIVED_FILES = (USER, MEMORY)          # what leaves them is archived first (archive.write_memory)
SKILLS_DIR, SKILL_FILE = "skills", "SKILL.md"
# A skill is a folder of skills/ holding SKILL.md (nanobot's loader); a dot folder is hidden, and
# a name stays one short path component so every file system can hold it.
_SKILL_NAME = r"[^./\\\x00-\x1f][^/\\\x00-\x1f]{0,127}"
_MEMORY_PATH = re.compile(rf"^(SOUL\.md|USER\.md|memory/MEMORY\.md|skills/{_SKILL_NAME}/SKILL\.md)$")


def is_skill_name(name: str) -> bool:
    return re.fullmatch(_SKILL_NAME, name) is not None


def skill_path(name: str) -> str:
    return f"{SKILLS_DIR}/{name}/{SKILL_FILE}"


def is_memory_path(path: str) -> bool:
    """SOUL.md, USER.md, memory/MEMORY.md or skills/<name>/SKILL.md: the files Dream, an edit,
    a pin or a restore may write."""
    return _MEMORY_PATH.match(path) is not None


def kind_of_memory_path(path: str) -> str:
    """soul | user | memory | skill (the path is a memory path)."""
    return CORE_KINDS.get(path, "skill")


def skill_names(root: Path) -> list[str]:
    """The skills of a workspace, sorted: each folder of skills/ with a SKILL.md."""
    try:
        found = list(os.scandir(os.path.join(root, SKILLS_DIR)))
    except OSError:                  # no skills/ folder (or not a folder)
        return []
    return sorted(d.name for d in found if is_skill_name(d.name) and d.is_dir()
                  and os.path.exists(os.path.join(d.path, SKILL_FILE)))


def memory_paths(root: Path) -> list[str]:
    """Every memory file of a workspace: the three core files, then each skill's SKILL.md."""
    return [*CORE_FILES, *(skill_path(n) for n in skill_names(root))]


# -- budgets ---------------------------------------------------------------------------------
BUDGET_KEYS = {SOUL: "soulBudgetChars", USER: "userBudgetChars", MEMORY: "memoryBudgetChars"}
NEAR_FRACTION = 0.9                      # from 90% of its budget a file is near it
OK, NEAR, OVER, UNBUDGETED = "ok", "near", "over", "unbudgeted"


def budget_state(chars: int, budget: int) -> str:
    """A size against its budget: at the budget is still near; over means more than it."""
    if budget <= 0:
        return UNBUDGETED
    if chars > budget:
        return OVER
    if chars >= NEAR_FRACTION * budget:
        return NEAR
    return OK


# -- limits ----------------------------------------------------------------------------------
ABSOLUTE_CAP = 64_000         # no Dream write grows a file past this, whatever its budget
REFUSAL_WARN_RUNS = 3         # budget refusals on this many runs in a row: the outcome warns
KEEP_LAST = 8                 # idle compaction keeps the last 8 messages of a session live
HISTORY_CAP = 1000            # history.jsonl keeps at most this many entries (nanobot's cap)

# -- history entries -------------------------------------------------------------------------
DREAMED, PENDING, IN_PROMPT = "dreamed", "pending", "pending+prompt"


def entry_status(cursor: int, dream_cursor: int, in_prompt: Container[int]) -> str:
    """Dreamed (at or below .dream_cursor), else pending; in the next prompt when injected."""
    if cursor <= dream_cursor:
        return DREAMED
    return IN_PROMPT if cursor in in_prompt else PENDING


# -- cursors and other counts typed as text ------------------------------------------------------
def whole_number(text: str) -> int | None:
    """Text as a whole number ≥ 0, or None. ASCII digits only: str.isdigit() also accepts '²'
    or '٣', which int() then refuses or reads as another number."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        return None
    try:
        return int(text)
    except ValueError:  # beyond int's digit limit
        return None


cursor_value = whole_number     # .cursor and .dream_cursor hold a bare whole number (nanobot's format)

# -- lint (engine/lint/memory_lint.py) ---------------------------------------------------------------------
# Similarity is the Jaccard index of two entries' word-bigram sets (lowercased, list markers and
# punctuation dropped). From SIMILAR_PAIRS two entries are "similar" (shown for review, no fix):
# the demo's closest pair, SOUL.md's "No performed enthusiasm: no emojis, no "Great question"…"
# against USER.md's "No emojis, no "Great question!"…", scores 0.29, its next 0.17. A removal
# ("near-duplicate") also needs NEAR_DUPLICATE_PAIRS of the pairs and NEAR_DUPLICATE_WORDS of the
# content words shared, and the removed entry's content words all in the kept one
# (engine/lint/lint_copies.py): two deploy steps for different services share 0.57 of their pairs.
SIMILAR_PAIRS = 0.25
NEAR_DUPLICATE_PAIRS = 0.5
NEAR_DUPLICATE_WORDS = 0.6
# The precision of each finding kind, as tests/engine/lint/test_lint_labelled.py measures it on
# tests/fixtures/lint_labelled.jsonl, rounded down to a whole percent (the test fails when a figure
# here is not what it measures). A kind whose fix removes or moves text is offered in one click only from
# LINT_PRECISION_BAR; below it, its findings are shown for review (engine/core/lint_finding.action).
LINT_PRECISION_BAR = 0.95
LINT_PRECISION = {"duplicate": 1.0, "near-duplicate": 1.0, "similar": 0.73, "past-date": 0.98, "misplaced": 1.0,
                  "too-long": 1.0}
# An entry longer than this (characters, as written) folds several facts into one. The demo's
# longest is 380 ("Decisions: …", five decisions in one item), the next 302 and the rest ≤ 205;
# Dream itself is shown history entries cut at 500 (engine/dream/prompts.py ENTRY_CHARS).
LINT_ENTRY_CHARS = 350
