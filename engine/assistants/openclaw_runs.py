"""OpenClaw's dreaming as Dream runs: each sweep (and each `openclaw memory promote --apply`, its own
kind) with what it added, merged and superseded, its diary, its phase reports and its MEMORY.md
diff; and the MEMORY.md pre-images OpenClaw keeps, as restore points (restoring is not here).

For the caller: `read_runs(workspace, state, config)` once per listing, with the `OpenClawState`
read by openclaw_state.read_state and openclaw.json as a dict (for the dreaming timezone). Its
`runs` are newest first; `Run.to_json()` has the keys `dreamdesk runs --json` gives an assistant's
run (writer "assistant", created/removed counts, subject …) plus an "openclaw" part; `restore_points`
are newest first; `outside` lists the MEMORY.md changes between two pre-images that no sweep or
promotion OpenClaw recorded made. Read only.

Where each part comes from (OpenClaw 2026.9.6): one sweep uses one time throughout — its phase
events (`memory.dream.completed`), its promotion event (`memory.promotion.applied`), its DREAMS.md
history block (`### <time>`) and its pre-image (`createdAt`) all carry it, so they are joined on it;
a promotion event at a time no sweep has is a `promote --apply`. The counts are DREAMS.md's; the
entries are the MEMORY.md change between consecutive pre-images (then the file now), given to
the runs of that step by openclaw_memory_steps. A consolidating sweep's own diff is its pre-image
against that pre-image with only its own change applied (OpenClaw's rewrite: the prior entries
it replaced removed with their markers, the rest trimmed at the end, its section appended).
Diary entries carry the sweep's time to the minute, in the dreaming timezone; phase reports are
per day, so a later sweep of the same day overwrote an earlier one's (`latest` says which).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path

from ..core import clock
from ..disk.files import read_bytes
from ..text.diffs import FileDiff, diff_texts
from .openclaw_dreams_file import DiaryEntry, DreamsFile, HistoryBlock, read_dreams_file
from .openclaw_home import section
from .openclaw_memory_steps import Change, Claimant, Step, memory_entries, memory_step
from .openclaw_state import HostEvent, OpenClawState, PreImage

PHASES = ("light", "rem", "deep")
KEPT_PREIMAGES = 8
_WHEN = re.compile(r"^([A-Z][a-z]+)\s+(\d{1,2}),\s+(\d{4})\s+at\s+(\d{1,2}):(\d{2})\s*(AM|PM)(?:\s+(.+))?$")
_FIXED = re.compile(r"^(?:UTC|GMT)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$")
_MONTHS = {m: i for i, m in enumerate(("January", "February", "March", "April", "May", "June", "July", "August",
                                        "September", "October", "November", "December"), 1)}


@dataclass(frozen=True, slots=True)
class PhaseReport:
    phase: str
    path: str                  # relative to the workspace
    text: str | None           # None: the file is gone
    outcome: str | None        # completed | failed (None: no event says)
    error: str | None = None
    latest: bool = True        # False: a later sweep of the same day rewrote this file

    def to_json(self) -> dict:
        return {"phase": self.phase, "path": self.path, "text": self.text, "outcome": self.outcome,
                "error": self.error, "latest": self.latest}


@dataclass
class Run:
    kind: str                  # sweep | promotion
    at: str                    # OpenClaw's ISO time
    history: HistoryBlock | None = None
    preimage: PreImage | None = None
    events: list[HostEvent] = field(default_factory=list)
    added: list[Change] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    diff: FileDiff | None = None
    diff_note: str | None = None
    after: str | None = None   # MEMORY.md as this sweep left it (rebuilt; None when not known)
    diary: list[DiaryEntry] = field(default_factory=list)
    reports: list[PhaseReport] = field(default_factory=list)
    deep_sleep: str | None = None

    @property
    def id(self) -> str:
        return f"openclaw-{self.kind}-{self.at}"

    @property
    def when(self) -> datetime | None:
        return clock.from_iso(self.at)

    @property
    def promoted(self) -> list[dict]:
        """The candidates its promotion event names (key, path, lines, score, recallCount)."""
        return [c for e in self.events if e.type == "memory.promotion.applied"
                for c in e.data.get("candidates") or [] if isinstance(c, dict)]

    @property
    def consolidating(self) -> bool:
        return self.preimage is not None or (self.history is not None and self.history.skipped is None)

    @property
    def status(self) -> str:
        if any(e.data.get("outcome") == "failed" for e in self.events):
            return "failed"
        return "rewrite skipped" if self.history is not None and self.history.skipped else "ok"

    @property
    def subject(self) -> str:
        h, n = self.history, len(self.promoted)
        if self.kind == "promotion":
            return f"memory promote --apply: {n} promoted"
        if h is not None and h.skipped:
            return f"Dreaming sweep: rewrite skipped ({h.skipped}); appended instead"
        if h is not None and h.added is not None:
            return f"Dreaming sweep: added {h.added}, merged {h.merged}, superseded {h.superseded}"
        return f"Dreaming sweep: {n} promoted" if n else "Dreaming sweep: nothing promoted"

    def to_json(self) -> dict:
        at = clock.iso(self.when)
        files = (["MEMORY.md"] if self.added or self.removed else []) + \
            (["DREAMS.md"] if self.history or self.diary else []) + [r.path for r in self.reports]
        return {"id": self.id, "writer": "assistant", "author": "OpenClaw", "kind": self.kind,
                "subject": self.subject, "started": at, "finished": at,
                "trigger": "dreaming" if self.kind == "sweep" else "memory promote --apply",
                "status": self.status, "outcome": self.subject, "files": files,
                "created_count": sum(1 for c in self.added if c.why != "heading"),
                "removed_count": sum(1 for c in self.removed if c.why != "heading"),
                "openclaw": self.details_json()}

    def details_json(self) -> dict:
        h = self.history
        return {"at": self.at, "counts": None if h is None or h.added is None else
                {"added": h.added, "merged": h.merged, "superseded": h.superseded},
                "rewrite_skipped": h.skipped if h else None, "history": h.to_json() if h else None,
                "promoted": self.promoted, "preimage": self.preimage.key if self.preimage else None,
                "added": [c.to_json() for c in self.added], "removed": [c.to_json() for c in self.removed],
                "diff": self.diff.to_json() if self.diff else None, "diff_note": self.diff_note, "after": self.after,
                "diary": [d.to_json() for d in self.diary], "reports": [r.to_json() for r in self.reports],
                "deep_sleep": self.deep_sleep}


@dataclass(frozen=True, slots=True)
class RestorePoint:
    """A MEMORY.md pre-image: the file as it was when that sweep began."""
    preimage: PreImage
    run: str | None            # the sweep that started from it

    def to_json(self) -> dict:
        return {"key": self.preimage.key, "created_at": self.preimage.created_at, "run": self.run,
                "content_hash": self.preimage.content_hash, "hash_ok": self.preimage.hash_ok,
                "chars": len(self.preimage.content), "entries": len(memory_entries(self.preimage.content)[0]),
                "content": self.preimage.content}


@dataclass(frozen=True, slots=True)
class OutsideChange:
    """A MEMORY.md change between two saved versions that no recorded run made."""
    since: str                 # the earlier pre-image's time
    until: str | None          # the later one's (None: the file now)
    sign: str                  # "+" or "-"
    change: Change

    def to_json(self) -> dict:
        return {"since": self.since, "until": self.until, "sign": self.sign, **self.change.to_json()}


@dataclass
class OpenClawRuns:
    runs: list[Run] = field(default_factory=list)                 # newest first
    restore_points: list[RestorePoint] = field(default_factory=list)   # newest first
    outside: list[OutsideChange] = field(default_factory=list)
    unplaced_diary: list[DiaryEntry] = field(default_factory=list)    # entries no sweep's minute matches
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"runs": [r.to_json() for r in self.runs], "restore_points": [p.to_json() for p in self.restore_points],
                "outside": [o.to_json() for o in self.outside],
                "unplaced_diary": [d.to_json() for d in self.unplaced_diary],
                "notes": self.notes, "problems": self.problems}


def dreaming_zone(config: dict | None, fallback: tzinfo | None = None) -> tzinfo | None:
    """The zone OpenClaw's dreaming writes days and diary times in: dreaming.timezone, else
    agents.defaults.userTimezone, else the Gateway's own (taken as `fallback`, None: this machine's)."""
    cfg = config or {}
    for name in (dreaming_settings(cfg).get("timezone"), section(cfg, "agents", "defaults").get("userTimezone")):
        zone = clock.zone_named(name)
        if zone is not None:
            return zone
    return fallback


def dreaming_settings(config: dict | None) -> dict:
    """plugins.entries.<memory plugin>.config.dreaming ({} when not set)."""
    cfg = config or {}
    return section(cfg, "plugins", "entries", memory_plugin(cfg), "config", "dreaming")


def memory_plugin(cfg: dict) -> str:
    """plugins.slots.memory when it names a plugin, else memory-core (resolveMemoryDreamingPluginId)."""
    slot = section(cfg, "plugins", "slots").get("memory")
    return slot.strip() if isinstance(slot, str) and slot.strip() and slot.strip().lower() != "none" else "memory-core"


def read_runs(workspace: Path, state: OpenClawState, config: dict | None = None,
              zone: tzinfo | None = None, after_last: str | None = None) -> OpenClawRuns:
    """Every sweep and promotion the home still tells of (see the module docstring).
    `after_last`: MEMORY.md as the last sweep left it, when known from elsewhere (another writer
    changed it since); the file now otherwise."""
    zone = dreaming_zone(config, zone)
    dreams = read_dreams_file(workspace)
    out = OpenClawRuns(notes=list(state.notes), problems=list(state.problems))
    if dreams.problem:
        out.problems.append(dreams.problem)
    runs = _gather(state, dreams)
    current, problem = (after_last, None) if after_last is not None else _current_memory(workspace)
    if problem:
        out.problems.append(problem)
    _attribute(runs, state.preimages, current, out)
    _place_diary(runs, dreams, zone, out)
    _attach_reports(runs, workspace, state, zone)
    sweeps = [r for r in runs if r.kind == "sweep"]
    if sweeps and dreams.deep_sleep:
        sweeps[-1].deep_sleep = dreams.deep_sleep
    by_time = {r.at: r for r in sweeps}
    out.restore_points = [RestorePoint(p, by_time[p.created_at].id if p.created_at in by_time else None)
                          for p in reversed(state.preimages)]
    out.runs = list(reversed(runs))
    return out


def _gather(state: OpenClawState, dreams: DreamsFile) -> list[Run]:
    """The runs, oldest first: a time shared by phase events, a history block or a pre-image is a
    sweep; a promotion event at any other time is a promote --apply."""
    sweeps: dict[str, Run] = {}
    for e in state.events:
        if e.type == "memory.dream.completed" and e.timestamp:
            sweeps.setdefault(e.timestamp, Run("sweep", e.timestamp)).events.append(e)
    for h in dreams.history:
        sweeps.setdefault(h.at, Run("sweep", h.at)).history = h
    for p in state.preimages:
        sweeps.setdefault(p.created_at, Run("sweep", p.created_at)).preimage = p
    promotions: dict[str, Run] = {}
    for e in state.events:
        if e.type == "memory.promotion.applied" and e.timestamp:
            run = sweeps.get(e.timestamp) or promotions.setdefault(e.timestamp, Run("promotion", e.timestamp))
            run.events.append(e)
    return sorted([*sweeps.values(), *promotions.values()], key=_order)


def _order(r: Run) -> tuple[float, str]:
    t = r.when
    return (t.timestamp() if t else 0.0, r.at)


def _current_memory(workspace: Path) -> tuple[str, str | None]:
    try:
        return read_bytes(workspace / "MEMORY.md").decode("utf-8", "replace"), None
    except FileNotFoundError:
        return "", None
    except OSError as e:
        return "", f"MEMORY.md could not be read ({e.strerror or e}): the last sweep's change is not shown"


# -- the MEMORY.md change of each run --------------------------------------------------------------
def _attribute(runs: list[Run], preimages: tuple[PreImage, ...], current: str, out: OpenClawRuns) -> None:
    """Each step between saved versions, given to the runs that fall in it."""
    times = [_instant(p.created_at) for p in preimages]
    for i, p in enumerate(preimages):
        until = times[i + 1] if i + 1 < len(preimages) else float("inf")
        inside = [r for r in runs if times[i] <= _instant(r.at) < until]
        new = preimages[i + 1].content if i + 1 < len(preimages) else current
        step = memory_step(p.content, new, [_claimant(r, p) for r in inside])
        for r in inside:
            r.added, r.removed = step.added[r.id], step.removed[r.id]
        nxt = preimages[i + 1].created_at if i + 1 < len(preimages) else None
        out.outside += [OutsideChange(p.created_at, nxt, "+", c) for c in step.outside_added]
        out.outside += [OutsideChange(p.created_at, nxt, "-", c) for c in step.outside_removed]
        sweep = next((r for r in inside if r.preimage is p), None)
        if sweep is not None:
            sweep.after = _rewrite(p.content, new, sweep)
            sweep.diff, sweep.diff_note = _own_diff(p.content, new, step, sweep)
    first = times[0] if times else float("inf")
    for r in runs:
        if _instant(r.at) < first and r.diff_note is None:
            r.diff_note = _why_no_diff(r, bool(preimages))


def _instant(iso: str) -> float:
    t = clock.from_iso(iso)
    return t.timestamp() if t else 0.0


def _claimant(r: Run, p: PreImage) -> Claimant:
    keys = {str(c.get("key")) for c in r.promoted if c.get("key")}
    priors: tuple[str, ...] = ()
    if r.history is not None:
        keys |= {h.key for h in r.history.highlights}
        priors = tuple(h.text for h in r.history.highlights if h.sign == "-")
    return Claimant(r.id, r.preimage is p, frozenset(keys), priors)


def _why_no_diff(r: Run, any_kept: bool) -> str:
    if r.kind == "sweep" and r.consolidating:
        return (f"OpenClaw keeps only the last {KEPT_PREIMAGES} MEMORY.md pre-images; this sweep's is gone"
                if any_kept else "OpenClaw kept no MEMORY.md pre-image of this sweep")
    return "this run saved no pre-image and came before the oldest one kept, so its MEMORY.md change is not known"


def _own_diff(before: str, after: str, step: Step, sweep: Run) -> tuple[FileDiff, str | None]:
    """The sweep's pre-image against the file it wrote (rebuilt as OpenClaw writes it); when its
    section is not found in the next version, against that version, saying what else it holds."""
    if sweep.after is not None:
        return diff_texts(before, sweep.after, "MEMORY.md"), None
    others = len(step.outside_added) + len(step.outside_removed) + \
        sum(len(v) for k, v in step.added.items() if k != sweep.id)
    note = f"against the next saved version, which also holds {others} change(s) made after this sweep" if others else None
    return diff_texts(before, after, "MEMORY.md"), note


def _rewrite(before: str, after: str, sweep: Run) -> str | None:
    """applyMemoryConsolidationPlan's result: each replaced prior entry's line and its marker lines
    removed, the rest trimEnd()ed, then the sweep's section as it stands in `after`."""
    own = [c.entry for c in sweep.added if c.why != "heading"]
    if not own:
        return None
    after_lines = after.replace("\r\n", "\n").split("\n")
    heads = [c.entry for c in sweep.added if c.why == "heading"]
    head = max((h for h in heads if h.start < own[0].start), key=lambda h: h.start, default=None)
    if head is None:
        return None
    end = max(e.end for e in own)
    lines = before.replace("\r\n", "\n").split("\n")
    for c in sweep.removed:
        if c.why == "heading":
            continue
        i = next((n for n, line in enumerate(lines) if line.strip() == c.entry.text.strip()), None)
        if i is None:
            return None
        j = i - (c.entry.key is not None) - (c.entry.lineage is not None)
        del lines[j:i + 1]
    base = "\n".join(lines).rstrip()
    header = "" if base.strip() else "# Long-Term Memory"
    return f"{header}{chr(10) if header else ''}{base}\n" + "\n".join(after_lines[head.start:end]) + "\n"


# -- diary and reports -----------------------------------------------------------------------------
def _place_diary(runs: list[Run], dreams: DreamsFile, zone: tzinfo | None, out: OpenClawRuns) -> None:
    """Each diary entry to the sweep of its minute (the last of them when two share it)."""
    sweeps = [r for r in runs if r.kind == "sweep"]
    for d in dreams.diary:
        wall, fixed = _diary_wall(d.when)
        at = zone if fixed is None else fixed
        match = [r for r in sweeps if wall is not None and r.when is not None and _minute(r.when, at) == wall]
        if d.backfill_day is None and match:
            match[-1].diary.append(d)
        else:
            out.unplaced_diary.append(d)


def _diary_wall(when: str) -> tuple[tuple | None, tzinfo | None]:
    """The minute a diary line names, and its zone when the line says UTC/GMT(±h)."""
    m = _WHEN.match(when.replace("\u202f", " "))
    if not m or m.group(1) not in _MONTHS:
        return None, None
    hour = int(m.group(4)) % 12 + (12 if m.group(6) == "PM" else 0)
    fixed = _FIXED.match((m.group(7) or "").strip())
    zone = None
    if fixed:
        sign = -1 if fixed.group(1) == "-" else 1
        minutes = int(fixed.group(2) or 0) * 60 + int(fixed.group(3) or 0)
        zone = timezone(sign * timedelta(minutes=minutes))
    return (int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2)), hour, int(m.group(5))), zone


def _minute(t: datetime, zone: tzinfo | None) -> tuple:
    w = t.astimezone(zone)
    return (w.year, w.month, w.day, w.hour, w.minute)


def _attach_reports(runs: list[Run], workspace: Path, state: OpenClawState, zone: tzinfo | None) -> None:
    sweeps = [r for r in runs if r.kind == "sweep"]
    last: dict[str, Run] = {}
    for r in sweeps:
        for phase in PHASES:
            path, event = _report_path(r, phase, workspace, state, zone)
            if path is None:
                continue
            last[path] = r
            data = event.data if event else {}
            r.reports.append(PhaseReport(phase, path, _report_text(workspace, path, phase), data.get("outcome"),
                                         data.get("error")))
    for r in sweeps:
        r.reports = [PhaseReport(p.phase, p.path, p.text, p.outcome, p.error, last.get(p.path) is r) for p in r.reports]


def _report_path(r: Run, phase: str, workspace: Path, state: OpenClawState,
                 zone: tzinfo | None) -> tuple[str | None, HostEvent | None]:
    event = next((e for e in r.events if e.type == "memory.dream.completed" and e.data.get("phase") == phase), None)
    if event is not None:
        raw = event.data.get("reportPath") or (event.data.get("inlinePath") if phase != "deep" else None)
        return (_relative(str(raw), workspace, state) if raw else None), event
    t = r.when
    if t is None:
        return None, None
    rel = f"memory/dreaming/{phase}/{t.astimezone(zone).date().isoformat()}.md"
    return (rel if (workspace / rel).is_file() else None), None


def _relative(raw: str, workspace: Path, state: OpenClawState) -> str:
    raw = raw.replace("\\", "/")
    for base in (state.recorded_workspace, str(workspace)):
        if base and raw.startswith(base.rstrip("/") + "/"):
            return raw[len(base.rstrip("/")) + 1:]
    i = raw.rfind("/memory/")
    return raw[i + 1:] if i >= 0 else raw.rsplit("/", 1)[-1]


def _report_text(workspace: Path, rel: str, phase: str) -> str | None:
    try:
        text = read_bytes(workspace / rel).decode("utf-8", "replace")
    except OSError:
        return None
    if rel.startswith("memory/dreaming/"):
        return text
    start, end = f"<!-- openclaw:dreaming:{phase}:start -->", f"<!-- openclaw:dreaming:{phase}:end -->"
    i, j = text.find(start), text.find(end)
    return text[i + len(start):j].strip("\n") if 0 <= i < j else None

