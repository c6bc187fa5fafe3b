"""Erase archived entries for good (a privacy deletion: the Archive's Delete, `dreamdesk archive
delete`): their lines become tombstones and their text leaves every run record. Under the job lock,
as every write of the workspace is (the window's delete took none before)."""

from __future__ import annotations

from typing import Any

from ..dream.records import delete_archive_entry
from ..home.workspace import Workspace
from ..recovery.job_lock import job_lock
from .result import OpResult, perform, plural


def delete_entries(ws: Workspace, ids: list[str], initiator: str) -> OpResult[list[dict[str, Any]]]:
    def work() -> list[dict[str, Any]]:
        with job_lock(ws):
            return [delete_archive_entry(ws, rid) for rid in ids]

    return perform(ws, "archive delete", initiator, work,
                   lambda out: f"Deleted {plural(len(out), 'archived entry', 'archived entries')}; "
                               f"scrubbed {sum(r['records_scrubbed'] for r in out)} run record(s)")
