"""Put removed entries back (the Archive's Restore and Restore and pin, the Dream runs tab's
Restore, the Dashboard's "since you last looked", `dreamdesk archive restore`): each under its
heading, snapshot first, undoable. Several at once, one failing entry never hides the others."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Sequence

from ..core.problems import WorkspaceError
from ..disk.oserrors import explain
from ..home.workspace import Workspace
from ..recovery.prune_restores import PINNED, pin_records
from ..recovery.prunes import restore_prune
from ..recovery.restore import RestoreResult, restore_record
from ..recovery.watch import as_record
from ..text.entries import Removal
from .result import OpResult, perform, plural

log = logging.getLogger(__name__)

MAX_ENTRIES = 100      # entries per restore (each one is planned, snapshotted and committed)


def restore_entry(ws: Workspace, record_id: str, initiator: str) -> OpResult[RestoreResult]:
    """One archived entry (a-…) or one an assistant's commit removed (c-…)."""
    return perform(ws, "archive restore", initiator, lambda: restore_prune(ws, record_id),
                   lambda r: f"Restored {record_id} into {r.files[0]}." if r.files
                   else "; ".join(r.warnings) or "Nothing was restored")


def restore_removed(ws: Workspace, file: str, removal: Removal, initiator: str) -> OpResult[RestoreResult]:
    """An entry listed under "Since you last looked" (removed by another writer, maybe archived not)."""
    return perform(ws, "restore a removed entry", initiator,
                   lambda: restore_record(ws, as_record(file, removal), "an entry removed since you last looked"),
                   lambda r: f"Restored into {file}" if r.files else "; ".join(r.warnings))


@dataclass
class Restores:
    """Each entry's outcome: (id, its result or None, why it failed or None); the ids pinned."""
    outcomes: list[tuple[str, RestoreResult | None, str | None]] = field(default_factory=list)
    pinned: list[str] = field(default_factory=list)

    @property
    def restored(self) -> list[tuple[str, RestoreResult]]:
        return [(rid, r) for rid, r, _err in self.outcomes if r is not None and r.files]

    @property
    def errors(self) -> list[str]:
        return [f"{rid}: {err}" for rid, _r, err in self.outcomes if err]

    @property
    def undoable(self) -> list[str]:
        """The restore-log ids of what came back, oldest first (undone together)."""
        return [r.id for _rid, r in self.restored if r.id]


def too_many(ids: list[str]) -> str | None:
    if len(ids) <= MAX_ENTRIES:
        return None
    return (f"{len(ids):,} entries are selected; restore at most {MAX_ENTRIES} at a time "
            "(each one takes a snapshot first)")


def restore_entries(ws: Workspace, ids: list[str], initiator: str, *, pin: Sequence[str] = (),
                    cancel: threading.Event | None = None) -> OpResult[Restores]:
    """Restore `ids`, then pin the entries `pin` names (those whose restore did not fail, and any
    already back in their file). `cancel` stops before the next entry."""
    if why := too_many(ids):
        raise WorkspaceError(why)

    def work() -> Restores:
        out = Restores()
        for rid in ids:
            if cancel is not None and cancel.is_set():
                break
            try:
                out.outcomes.append((rid, restore_prune(ws, rid), None))
            except Exception as exc:  # noqa: BLE001 - one failing entry must not hide the others
                log.error("restoring archive entry %s failed", rid, exc_info=True)
                out.outcomes.append((rid, None, explain(exc)))
        failed = {rid for rid, _r, err in out.outcomes if err}
        for rid, got, err in pin_records(ws, [i for i in pin if i not in failed]):
            if got == PINNED:
                out.pinned.append(rid)
            else:
                out.outcomes.append((rid, None, err))
        return out

    return perform(ws, "archive restore", initiator, work, _said)


def _said(r: Restores) -> str:
    parts = []
    if r.restored:
        files = sorted({f for _rid, res in r.restored for f in res.files})
        parts.append(f"Restored {plural(len(r.restored), 'entry', 'entries')} to {', '.join(files)}")
    if r.errors:
        parts.append("not restored: " + "; ".join(r.errors))
    warnings = [w for _rid, res, _err in r.outcomes if res is not None for w in res.warnings]
    if warnings:
        parts.append("; ".join(warnings))
    if r.pinned:
        parts.append(f"pinned {plural(len(r.pinned), 'entry', 'entries')}")
    return ". ".join(parts) or "Nothing was restored"
