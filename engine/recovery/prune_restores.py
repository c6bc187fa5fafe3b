"""Restoring prunes, planned and pinned (the Archive's Restore and Restore and pin, the CLI's
archive restore): where each entry would go, read only; pinning what came back; and every prune
read for listing, with the archive alone when git cannot be read."""

from __future__ import annotations

from dataclasses import dataclass

from .archive import Archive, ArchivedEntry, archive_dir, folded_archive, plan_record_restore, read_archive
from ..text.entries import has_heading, heading_label
from ..disk.oserrors import explain
from ..core.problems import WorkspaceError
from .prunes import all_prunes, find_prunes, mark_placeholders
from ..versions.snapshots import SnapshotError
from ..text.textform import normalise
from ..home.workspace import Workspace


@dataclass(frozen=True)
class Placement:
    """Where a restore would put one removed entry (from plan_record_restore)."""
    id: str
    file: str
    heading: str | None
    inserted: bool                 # False: the file already holds the text
    heading_exists: bool = True
    error: str | None = None

    def describe(self) -> str:
        if self.error:
            return f"{self.id}: cannot be restored ({self.error})"
        if not self.inserted:
            return f"{self.id}: already in {self.file} — nothing to restore"
        if not self.heading:
            return f"{self.id} → the end of {self.file}"
        shown = heading_label(self.heading) if "\n" in self.heading else self.heading     # setext: one line
        if self.heading_exists:
            return f"{self.id} → {self.file}, at the end of the section “{shown}”"
        return f"{self.id} → {self.file}, under “{shown}” (the heading is gone; recreated at the end)"


PINNED = "pinned"      # a result row of Restore and pin: the entry is pinned now


def pin_records(ws: Workspace, ids: list[str]) -> list[tuple[str, str | None, str | None]]:
    """Pin archived entries in their files (after their restore): (id, PINNED or None, error)."""
    from dreamdesk.engine.recovery.pins import pin
    found = find_prunes(ws, ids)
    out: list[tuple[str, str | None, str | None]] = []
    for rid in ids:
        rec = found.get(rid)
        try:
            if rec is None:
                raise WorkspaceError(f"no archive entry with id {rid}")
            pin(ws, rec.file, text=rec.text)
            out.append((rid, PINNED, None))
        except Exception as exc:  # noqa: BLE001 - one failing entry must not hide the others
            out.append((rid, None, f"not pinned: {explain(exc)}"))
    return out


def plan_placements(ws: Workspace, ids: list[str]) -> list[Placement]:
    """Where each entry (a- or c- id) would go, read only (runs on the reader thread)."""
    out = []
    found = find_prunes(ws, ids)
    for rid in ids:
        try:
            if rid not in found:
                raise WorkspaceError(f"no archive entry with id {rid}")
            plan = plan_record_restore(ws, found[rid])
        except WorkspaceError as exc:
            out.append(Placement(rid, "", None, False, error=str(exc)))
            continue
        rec = plan.record
        exists = True
        if rec.heading and plan.inserted:
            state, _ = ws.read_file(rec.file)
            text = normalise(state.text) if state.exists else ""    # a BOM is no part of the first heading
            exists = has_heading(text, rec.heading)      # found as insert_entry finds it
        out.append(Placement(rid, rec.file, rec.heading, plan.inserted, exists))
    return out


def read_every_prune(ws: Workspace) -> tuple[Archive, list[ArchivedEntry], bool, str | None]:
    """Every prune folded (reader thread): the archive, and the commits when git can be read;
    when it cannot, the archive alone and why (the archive file is still worth showing)."""
    arc = read_archive(ws)
    try:
        _arc, _extra, entries = all_prunes(ws, arc)
        note = None
    except SnapshotError as exc:
        entries = mark_placeholders(ws, folded_archive(ws, arc))
        note = f"The snapshot commits could not be read: {exc}"
    return arc, entries, archive_dir(ws).is_dir(), note
