"""Dream's scope: which memory files Dreamdesk's own Dream may write in a workspace.

Everything is open by default (the contract's Dream writes SOUL.md, USER.md, MEMORY.md and
skills). A person may close some of them (never skills, never SOUL.md), per workspace. The scope
lives in Dreamdesk's own state (`<state>/workspaces/<key>/dream-scope.json`), never in the
workspace: the assistant's Dream is not Dreamdesk's to restrict. The sandbox (dream/tools.py)
refuses any write to a closed file, in every pass and in a dry run, and says why to the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..disk.files import atomic_write_text, read_bytes
from ..core.problems import WorkspaceError
from ..core.rules import CORE_FILES, SKILLS_DIR
from ..core.state import workspace_state_dir

SCOPE_NAME = "dream-scope.json"
SKILLS = SKILLS_DIR                      # the area every skills/<name>/SKILL.md belongs to
AREAS = (*CORE_FILES, SKILLS)            # what can be closed, in the order people read them


def area_of(rel: str) -> str:
    """The area a memory path belongs to: a core file is its own, a skill is "skills"."""
    return SKILLS if rel.startswith(SKILLS + "/") else rel


@dataclass(frozen=True, slots=True)
class Scope:
    closed: frozenset[str] = frozenset()

    def allows(self, rel: str) -> bool:
        return area_of(rel) not in self.closed

    @property
    def open_areas(self) -> list[str]:
        return [a for a in AREAS if a not in self.closed]

    def describe(self) -> str:
        """One line for the Engine panel and the CLI."""
        if not self.closed:
            return "Dream may write every memory file (SOUL.md, USER.md, memory/MEMORY.md, skills)."
        closed = [a for a in AREAS if a in self.closed]
        may = ", ".join(self.open_areas) or "nothing"
        return f"Dream may write {may}; never {', '.join(closed)} (closed in Dreamdesk for this workspace)."

    def to_json(self) -> dict:
        return {"open": self.open_areas, "closed": [a for a in AREAS if a in self.closed]}


def scope_path(root: Path, create: bool = False) -> Path:
    return workspace_state_dir(root, create=create) / SCOPE_NAME


def load(root: Path) -> Scope:
    """The workspace's scope (no file: everything open). A file that cannot be read is said in
    words: a run must not go on as if everything were open when the person closed something."""
    path = scope_path(root)
    try:
        data = json.loads(read_bytes(path).decode("utf-8"))
    except FileNotFoundError:
        return Scope()
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise WorkspaceError(f"Dreamdesk's Dream scope file {path} cannot be read ({exc}); fix or remove it "
                             "(removed, Dream may write every memory file again)") from None
    closed = data.get("closed") if isinstance(data, dict) else None
    if not isinstance(closed, list) or not all(isinstance(a, str) and a in AREAS for a in closed):
        raise WorkspaceError(f"Dreamdesk's Dream scope file {path} does not list closed areas among "
                             f"{', '.join(AREAS)}; fix or remove it")
    return Scope(frozenset(closed))


def parse_area(text: str) -> str:
    """An area as a person types it (MEMORY.md, skills/, soul.md) -> its name in AREAS."""
    key = text.strip().rstrip("/").lower()
    for area in AREAS:
        if key in (area.lower(), area.lower().rsplit("/", 1)[-1]):
            return area
    raise WorkspaceError(f"{text!r} is not one of the areas Dream writes: {', '.join(AREAS)}")


def change(root: Path, close: list[str] = (), open_: list[str] = ()) -> Scope:
    """Close and open areas (names as parse_area reads them) and save; the new scope."""
    scope = load(root)
    shut = {parse_area(a) for a in close}
    freed = {parse_area(a) for a in open_}
    if shut & freed:
        raise WorkspaceError(f"{', '.join(sorted(shut & freed))} cannot be both opened and closed")
    new = Scope(frozenset((scope.closed | shut) - freed))
    if new != scope:
        body = {"version": 1, "closed": [a for a in AREAS if a in new.closed]}
        atomic_write_text(scope_path(root, create=True), json.dumps(body, indent=2) + "\n")
    return new
