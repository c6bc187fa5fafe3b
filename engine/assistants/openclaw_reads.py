"""The OpenClaw adapter's answers about what its home keeps beside its files, from the readers of
this package (openclaw_state, _runs, _archive, _next, _notes, _directives, _provenance): its
sweeps as runs, what left MEMORY.md, what its next sweep would promote, and where each entry came
from. Each answer reads the state database once, with nothing written beside it."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import clock
from ..disk.sqlite_read import Locked
from ..disk.stat_memo import gc_paused
from .base import AssistantPrunes, AssistantRuns, EntryNote, ListedNote, Promoted
from .openclaw_archive import archive_from
from .openclaw_directives import SUPERSEDED, Directive, read_directives
from .openclaw_home import STATE_DB, agent_workspace
from .openclaw_next import whats_next
from .openclaw_notes import CUT, WHOLE, DailyNote, daily_notes
from .openclaw_provenance import BY_HAND, MemoryEntry, read_provenance
from .openclaw_runs import Run, read_runs
from .openclaw_state import OpenClawState, held_lock, read_state

if TYPE_CHECKING:
    from ..home.workspace import Workspace
    from .openclaw import OpenClaw

MEMORY, USER = "MEMORY.md", "USER.md"


def state_of(oc: OpenClaw, ws: Workspace) -> OpenClawState:
    state = oc.state_dir or Path(ws.root).parent
    return read_state(state / STATE_DB, Path(ws.root), siblings=_siblings(oc, state))


def _siblings(oc: OpenClaw, state: Path) -> list[Path]:
    """The workspaces of the roster's other agents (their rows share the database)."""
    return [agent_workspace(oc.config, a, state, os.environ)[0] for a in oc.agents if a != oc.agent]


def busy(oc: OpenClaw, ws: Workspace) -> str | None:
    """While OpenClaw's memory-core holds the workspace's lock (a sweep, a promotion, an index
    run), Dreamdesk writes nothing there: the write is refused in words (it would race it). So
    is a write while another program holds the state database locked (whether memory-core's
    lock is held cannot be told then)."""
    import time
    db = (oc.state_dir or Path(ws.root).parent) / STATE_DB
    try:
        lock = held_lock(db, Path(ws.root), int(time.time() * 1000))
    except Locked:
        return (f"OpenClaw's state database ({db.name}) is locked by another program right now, so whether "
                "OpenClaw is writing this workspace's memory (memory-core's lock) cannot be told; nothing was "
                "written: try again in a moment")
    if lock is None:
        return None
    since = clock.show_iso(datetime.fromtimestamp(lock.acquired_at_ms / 1000, timezone.utc).isoformat())
    return (f"OpenClaw is writing this workspace's memory right now (memory-core's lock, held by process "
            f"{lock.owner.split(':', 1)[0]} since {since}: a dreaming sweep, a promotion or an index run); "
            "nothing was written: try again when it is done")


def run_json(r: Run) -> dict:
    """A run as `runs --json` lists it, its OpenClaw part under "detail" with the unified diff."""
    out = r.to_json()
    detail = out.pop("openclaw")
    detail["diff_unified"] = r.diff.unified("before", "after") if r.diff is not None else None
    return out | {"detail": detail}


def _read_runs(oc: OpenClaw, ws: Workspace):
    """The sweeps, the last one's change read against MEMORY.md as it left it: the file now, or,
    once Dreamdesk wrote since (its snapshot before that write holds it), that version."""
    state = state_of(oc, ws)
    last = state.preimages[-1].created_at if state.preimages else None
    return read_runs(Path(ws.root), state, oc.config, after_last=ws.recorded_after("MEMORY.md", last) if last else None)


def runs(oc: OpenClaw, ws: Workspace) -> AssistantRuns:
    got = _read_runs(oc, ws)
    return AssistantRuns([run_json(r) for r in got.runs], [p.to_json() for p in got.restore_points],
                         got.notes, got.problems)


def prunes(oc: OpenClaw, ws: Workspace) -> AssistantPrunes:
    got = _read_runs(oc, ws)
    arc = archive_from(got, Path(ws.root))
    return AssistantPrunes([r.to_json() for r in arc.records], "", arc.notes, arc.problems)


def next_json(oc: OpenClaw, ws: Workspace) -> dict:
    with gc_paused():           # the recall store's rows and their sort keys: tens of thousands, no cycle
        return whats_next(state_of(oc, ws), oc.config).to_json()


def entry_notes(oc: OpenClaw, ws: Workspace, file: str) -> list[EntryNote]:
    if file == MEMORY:
        return [_provenance_note(e) for e in _provenance(oc, ws).entries]
    if Path(file).name == USER:
        found = read_directives(Path(ws.root) / file).directives
        return [_directive_note(d, found) for d in found]
    return []


def files_detail(oc: OpenClaw, ws: Workspace) -> dict:
    root = Path(ws.root)
    return {"provenance": _provenance(oc, ws).to_json(), "directives": read_directives(root / USER).to_json(),
            "daily_notes": daily_notes(root, oc.config).to_json()}


QUOTED = (WHOLE, CUT)             # what a /new quotes of a note it reads (else: left out, skipped)


def listed_notes(oc: OpenClaw, ws: Workspace) -> list[ListedNote]:
    return [_listed(n) for n in daily_notes(Path(ws.root), oc.config).notes]


def _listed(n: DailyNote) -> ListedNote:
    """A daily note as the Files view lists it: its day, its slug (the session hook's time as
    HH:MM), its size; the prelude of a /new in words when the note is one of its days."""
    name = n.time or n.slug or "the day's note"
    tip = [n.path, f"{n.size:,} bytes, {n.chars:,} characters" if n.chars is not None else f"{n.size:,} bytes (unreadable)"]
    if n.prelude is not None:
        tip.append(f"/new: {n.prelude_why or n.prelude}")
    tip += list(n.problems)
    return ListedNote(n.path, f"{n.day} · {name} · {size_words(n.size)}", "\n".join(tip), n.prelude in QUOTED)


def size_words(size: int) -> str:
    """Bytes as a person reads them: 401 B, 1.2 KB, 3.4 MB."""
    if size < 1000:
        return f"{size} B"
    return f"{size / 1000:.1f} KB" if size < 1_000_000 else f"{size / 1_000_000:.1f} MB"


def _provenance(oc: OpenClaw, ws: Workspace):
    rows = {str(v.key): v for v in state_of(oc, ws).recalls if v.key}
    return read_provenance(Path(ws.root), rows)


def _provenance_note(m: MemoryEntry) -> EntryNote:
    e = m.entry
    if m.origin == BY_HAND:
        return EntryNote(e.start + 1, e.end, "written by hand or by the agent (no promotion marker)", state=BY_HAND)
    title = [f"{m.origin}" + (f" {m.section_date}" if m.section_date else "")]
    if m.score is not None:
        title.append(f"score {m.score:g}")
    recalls = m.store.recall_count if m.store else m.recalls
    if recalls is not None:
        title.append(f"{recalls} recall{'s' if recalls != 1 else ''}")
    details = []
    if m.store is not None:
        details.append(f"{m.store.unique_queries} unique quer{'y' if m.store.unique_queries == 1 else 'ies'}"
                       + (f"; promoted {m.store.promoted_at}" if m.store.promoted_at else ""))
    if m.importance is not None:
        details.append(f"importance {m.importance}")
    if m.triggers:
        details.append("triggers: " + ", ".join(m.triggers))
    if m.lineage:
        details.append(f"supersedes the lineage {m.lineage}")
    details += list(m.problems)
    src = m.source
    return EntryNote(e.start + 1, e.end, " · ".join(title), tuple(details),
                     (src.path, src.start_line, src.end_line) if src is not None else None, m.origin,
                     _promoted(m, recalls))


def _promoted(m: MemoryEntry, recalls: int | None) -> Promoted:
    """The entry's promotion in the fields a list shows: the day its section names (the store's
    promotedAt when it sits in no generated section), its score, recalls and source."""
    at = m.store.promoted_at if m.store else None
    day = m.section_date or (at[:10] if at else None)
    return Promoted(m.fact, m.origin, day, at, m.score, recalls, m.source.exists if m.source else None)


def _directive_note(d: Directive, every: tuple[Directive, ...]) -> EntryNote:
    title = f"observed {d.observed} · {d.status}"
    details: list[str] = []
    if d.status == SUPERSEDED and d.replaced_by is not None:
        by = every[d.replaced_by]
        title += f" → replaced by line {by.start + 1} (observed {by.observed})"
        details.append("replaced by: " + by.text.replace("\n", " "))
    elif d.status == SUPERSEDED:
        details.append(d.replacement_why)
    if d.replaces is not None:
        details.append(f"replaces line {every[d.replaces].start + 1}: " + every[d.replaces].text.replace("\n", " "))
    details += list(d.problems)
    return EntryNote(d.start + 1, d.end, title, tuple(x for x in details if x), None, d.status)
