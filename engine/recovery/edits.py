"""A person's own edit of a memory file (GUI or CLI): never refused for size, hash-checked,
archived when it removes entries, and committed as `edit: <path>` so it can be undone."""

from __future__ import annotations

from dataclasses import dataclass, field

from .archive import ArchiveRecord, write_memory
from ..disk.files import resolve_inside
from ..core.problems import WorkspaceError
from .job_lock import job_lock
from ..versions.snapshots import SnapshotError, SnapshotStore
from ..text.textform import KEEP_ENDINGS, fit
from ..home.workspace import Workspace


@dataclass
class EditResult:
    path: str
    hash: str
    archived: list[ArchiveRecord] = field(default_factory=list)
    before: str | None = None      # snapshot of the state before the edit (undo target)
    commit: str | None = None
    warnings: list[str] = field(default_factory=list)
    written: bool = True           # False: the text was the file's already; nothing was written


def save_edit(ws: Workspace, rel: str, text: str, expected_hash: str,
              store: SnapshotStore | None = None) -> EditResult:
    """Save `text` to memory file `rel` if it still has the bytes the editor loaded.

    Raises ConflictError (nothing written) when the file changed on disk meanwhile. Snapshots
    are best effort: a git failure becomes a warning and the edit still lands. `text` is what
    the editor shows (\n endings, no BOM): the file keeps its own endings and BOM, and lines
    the person did not change keep their bytes.
    """
    ws.check_writable(rel)             # (before any snapshot is taken)
    if not ws.layout.writable(rel):
        raise WorkspaceError(f"{rel}: not a memory file Dreamdesk edits")
    resolve_inside(ws.root, rel)
    store = store or SnapshotStore(ws)
    with job_lock(ws):
        state, _ = ws.read_file(rel)
        if state.exists and state.hash == expected_hash and not state.decode_error \
                and fit(state.text, text, KEEP_ENDINGS) == state.text:
            return EditResult(rel, expected_hash, written=False)     # no change, no write, no snapshot
        warnings: list[str] = []
        before = None
        try:
            before = store.snapshot(f"snapshot: before edit {rel}") or store.head()
        except SnapshotError as exc:
            warnings.append(f"no snapshot before the edit: {exc}")
        new_hash, archived = write_memory(ws, rel, text, expected_hash, "edit", form=KEEP_ENDINGS)
        commit = None
        try:
            commit = store.snapshot(f"edit: {rel}", with_summary=True)
        except SnapshotError as exc:
            warnings.append(f"the edit was not committed to snapshots: {exc}")
        return EditResult(rel, new_hash, archived, before, commit, warnings)
