"""Every entry that left MEMORY.md across the versions OpenClaw kept (its pre-images, then the file
now), with the run that removed it and what replaced it: OpenClaw writes no archive of its own.

For the caller: `read_archive(workspace, state, config)` (or `archive_from(runs, workspace)` when
the runs were read already) gives `PrunedEntry` records with the fields of the Archive's records
(engine/recovery/archive.py's ArchiveRecord: id, archived_at, file, text, reason, run,
replaced_by, heading, source) plus who removed it; the Archive lists them beside its own, as
entries known from OpenClaw's pre-images (origin "assistant"). Restoring one is not here.

Reasons: "dream" for an entry a sweep or `promote --apply` removed (`how`: merged, superseded,
replaced, or compacted when the promotion budget dropped an old generated section), "outside"
for one that left between two versions with no run OpenClaw recorded (the agent's own edit, a
person's, `openclaw memory forget` — which also scrubs the pre-images, so what it forgot is not
seen at all). USER.md has no pre-images (OpenClaw's dreaming never writes it): what leaves it is
not known from here.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone, tzinfo
from pathlib import Path

from ..core import clock
from ..disk.files import read_bytes
from .openclaw_memory_steps import Change, memory_entries
from .openclaw_runs import OpenClawRuns, read_runs
from .openclaw_state import OpenClawState

FILE = "MEMORY.md"
_GENERATED = re.compile(r"^(## Consolidated Memory \(|## Promoted From Short-Term Memory \(|### Global$|### Project: )")
NO_USER_MD = ("OpenClaw keeps no earlier versions of USER.md (its dreaming never writes it): entries that left "
              "USER.md are not known from OpenClaw's state")


@dataclass(frozen=True, slots=True)
class PrunedEntry:
    id: str                    # oc-<time digits>-<n>
    archived_at: str           # ISO: the run's time; for an outside removal, the later version's time
    file: str
    text: str
    reason: str                # dream | outside
    how: str                   # merged | superseded | replaced | compacted | outside
    run: str | None            # the run's id (openclaw_runs.Run.id)
    replaced_by: str | None
    heading: str | None
    source: str                # which versions it is known from
    writer: str | None         # "assistant" (OpenClaw) for a run's removal; None: not recorded
    subject: str | None        # the run's subject
    back: bool = False         # its text is in MEMORY.md again
    origin: str = "assistant"

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class OpenClawArchive:
    records: list[PrunedEntry] = field(default_factory=list)   # oldest first
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"records": [r.to_json() for r in self.records], "notes": self.notes, "problems": self.problems}


def read_archive(workspace: Path, state: OpenClawState, config: dict | None = None,
                 zone: tzinfo | None = None) -> OpenClawArchive:
    return archive_from(read_runs(workspace, state, config, zone), workspace)


def archive_from(runs: OpenClawRuns, workspace: Path) -> OpenClawArchive:
    """The removals of every run, then those nobody recorded, as records, oldest first."""
    now_text = _text(workspace / FILE)
    present = {e.text for e in memory_entries(now_text)[0]} if now_text is not None else set()
    rows: list[tuple[str, Change, str | None, str | None, str]] = []
    for r in reversed(runs.runs):
        rows += [(r.at, c, r.id, r.subject, f"pre-image {r.preimage.key}" if r.preimage else "pre-images")
                 for c in r.removed if _kept(c)]
    for o in runs.outside:
        if o.sign == "-" and _kept(o.change):
            until = o.until or _mtime(workspace / FILE) or o.since
            rows.append((until, o.change, None, None, f"pre-image {o.since} → {o.until or 'MEMORY.md now'}"))
    rows.sort(key=lambda row: _instant(row[0]))
    out = OpenClawArchive(notes=[NO_USER_MD], problems=list(runs.problems))
    numbers: dict[str, int] = {}
    for at, c, run, subject, source in rows:
        digits = re.sub(r"\D", "", at)
        numbers[digits] = numbers.get(digits, 0) + 1
        outside = c.why == "outside"
        out.records.append(PrunedEntry(
            f"oc-{digits}-{numbers[digits]}", at, FILE, c.entry.text, "outside" if outside else "dream", c.why, run,
            c.other, c.entry.heading, source, None if outside else "assistant", subject, c.entry.text in present))
    return out


def _kept(c: Change) -> bool:
    """A removal worth an archive row: an entry, or a heading a person wrote (not a generated one)."""
    return c.entry.kind != "heading" or not _GENERATED.match(c.entry.text)


def _text(path: Path) -> str | None:
    try:
        return read_bytes(path).decode("utf-8", "replace")
    except OSError:
        return None


def _mtime(path: Path) -> str | None:
    try:
        t = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    except OSError:
        return None
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _instant(iso: str) -> float:
    t = clock.from_iso(iso)
    return t.timestamp() if t else 0.0
