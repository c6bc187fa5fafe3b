"""The instructions Dreamdesk's Dream gives each pass, as the person edited them.

Each pass (review, consolidation, deduction, induction) has Dreamdesk's default instructions
(dream/prompts.py). A person may replace a pass's instructions for one workspace; the edits live
in Dreamdesk's own state (`<state>/workspaces/<key>/dream-prompts.json`), never in the workspace.
The rules every pass shares (the tools, the budgets, never inventing facts) are not editable:
they are what keeps Dream inside its sandbox. Which instructions a pass gets, first found:
the person's edit, then (consolidation only) the assistant's own prompts/dream.md, then the default.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .prompts import COMMON, PASSES
from ..disk.files import atomic_write_text, read_bytes
from ..llm.resolve import PROMPT_REL, assistant_dream_prompt
from ..core.problems import WorkspaceError
from ..core.state import workspace_state_dir

EDITS_NAME = "dream-prompts.json"
MAX_CHARS = 8_000          # a pass's instructions: room for a page of guidance, not a second memory
EDITED, DEFAULT, ASSISTANTS = "edited", "default", PROMPT_REL
# each source in words, as the person is told which instructions a pass uses
SOURCE_WORDS = {EDITED: "edited here", DEFAULT: "Dreamdesk's default", ASSISTANTS: f"the assistant's {PROMPT_REL}"}


@dataclass(frozen=True, slots=True)
class PassPrompt:
    name: str            # the pass
    text: str            # what the pass is told now
    source: str          # edited | default | prompts/dream.md
    default: str         # Dreamdesk's own instructions for it (one click away)

    def to_json(self) -> dict:
        return {"pass": self.name, "source": self.source, "text": self.text, "default": self.default}


def edits_path(root: Path, create: bool = False) -> Path:
    return workspace_state_dir(root, create=create) / EDITS_NAME


def load_edits(root: Path) -> dict[str, str]:
    """The person's edits, by pass (none: {}). A file that cannot be read is said in words; a run
    must not quietly fall back to the defaults the person replaced."""
    path = edits_path(root)
    try:
        data = json.loads(read_bytes(path).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise WorkspaceError(f"Dreamdesk's Dream prompts file {path} cannot be read ({exc}); fix or remove it "
                             "(removed, every pass uses its default instructions)") from None
    passes = data.get("passes") if isinstance(data, dict) else None
    if not isinstance(passes, dict) or not all(k in PASSES and isinstance(v, str) and v.strip()
                                               for k, v in passes.items()):
        raise WorkspaceError(f"Dreamdesk's Dream prompts file {path} does not hold instructions by pass "
                             f"({', '.join(PASSES)}); fix or remove it")
    return passes


def pass_prompts(root: Path) -> list[PassPrompt]:
    """Every pass's instructions as a run would give them now, in the order the passes run."""
    edits, own = load_edits(root), assistant_dream_prompt(root)
    out = []
    for name, (_kind, default) in PASSES.items():
        if name in edits:
            out.append(PassPrompt(name, edits[name], EDITED, default))
        elif name == "consolidation" and own:
            out.append(PassPrompt(name, own, ASSISTANTS, default))
        else:
            out.append(PassPrompt(name, default, DEFAULT, default))
    return out


def shared_rules() -> str:
    """The rules every pass follows, shown beside the instructions (not editable)."""
    return COMMON


def set_pass(root: Path, name: str, text: str) -> PassPrompt:
    """Replace a pass's instructions; text equal to the default puts the default back."""
    if name not in PASSES:
        raise WorkspaceError(f"{name!r} is not a Dream pass: {', '.join(PASSES)}")
    text = text.strip()
    if not text:
        raise WorkspaceError(f"the {name} pass needs instructions; to use Dreamdesk's own, reset it")
    if len(text) > MAX_CHARS:
        raise WorkspaceError(f"the {name} pass's instructions are {len(text):,} characters; at most {MAX_CHARS:,}")
    edits = load_edits(root)
    if text == PASSES[name][1].strip():
        edits.pop(name, None)
    else:
        edits[name] = text
    _save(root, edits)
    return next(p for p in pass_prompts(root) if p.name == name)


def reset_pass(root: Path, name: str) -> PassPrompt:
    """The pass back to Dreamdesk's default (or, for consolidation, the assistant's prompts/dream.md)."""
    if name not in PASSES:
        raise WorkspaceError(f"{name!r} is not a Dream pass: {', '.join(PASSES)}")
    edits = load_edits(root)
    if edits.pop(name, None) is not None:
        _save(root, edits)
    return next(p for p in pass_prompts(root) if p.name == name)


def _save(root: Path, edits: dict[str, str]) -> None:
    body = {"version": 1, "passes": {k: edits[k] for k in PASSES if k in edits}}
    atomic_write_text(edits_path(root, create=True), json.dumps(body, indent=2, ensure_ascii=False) + "\n")
