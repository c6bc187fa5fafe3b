"""Save a person's edit of a memory file (the Files tab's Save). The file changed on disk since the
editor loaded it: nothing is written and the op returns the file as it is now, for the person to
choose (reload, compare, overwrite) — a question, not a failure."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.problems import ConflictError
from ..disk.files import MISSING_HASH
from ..home.workspace import Workspace
from ..recovery.edits import EditResult, save_edit
from ..text.textform import BOM, normalise
from .result import OpResult, perform, plural


@dataclass(frozen=True)
class OnDisk:
    """The file as it is on disk now: the text as an editor shows it, its hash, its BOM."""
    text: str
    hash: str | None
    bom: bool


@dataclass(frozen=True)
class Saved:
    path: str
    edit: EditResult | None          # None: the file changed on disk first (see conflict)
    conflict: OnDisk | None = None


def save(ws: Workspace, path: str, text: str, expected_hash: str, initiator: str) -> OpResult[Saved]:
    """Write `text` (as the editor shows it) if `path` still has the bytes the editor loaded."""

    def work() -> Saved:
        try:
            return Saved(path, save_edit(ws, path, text, expected_hash))
        except ConflictError:
            state, _ = ws.read_file(path)
            return Saved(path, None, OnDisk(normalise(state.text), state.hash, state.text.startswith(BOM)))

    return perform(ws, "save", initiator, work, _said)


def _said(s: Saved) -> str:
    if s.edit is None:
        return f"{s.path} changed on disk before your edit was saved; nothing was written"
    if not s.edit.written:
        return f"Nothing to save: {s.path} already holds this text"
    note = f"Saved {s.path}"
    if s.edit.archived:
        note += f"; {plural(len(s.edit.archived), 'removed entry', 'removed entries')} archived"
    return note + "".join(f" ({w})" for w in s.edit.warnings)


def apply_action(ws: Workspace, path: str, action: str, args: dict, initiator: str) -> OpResult[Saved]:
    """One of the structured edits the home's assistant defines for `path` (OpenClaw's USER.md
    directives), written through the normal edit path: hash-checked, a snapshot first, undoable."""
    from ..assistants import assistant_of
    from ..core.problems import WorkspaceError
    who = assistant_of(ws)
    if action not in who.edit_actions(path):
        offered = ", ".join(who.edit_actions(path)) or "none"
        raise WorkspaceError(f"{path} has no action {action!r} on this home (its actions: {offered})")

    def work() -> Saved:
        state, _ = ws.read_file(path)
        text = normalise(state.text) if state.exists else ""
        return Saved(path, save_edit(ws, path, who.apply_edit_action(path, text, action, args),
                                     state.hash or MISSING_HASH))
    return perform(ws, action, initiator, work, _said)
