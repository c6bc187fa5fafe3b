"""Dream runs by either writer, as one list: Dreamdesk's own run records (memory/dreams/) and the
assistant's runs (its snapshot commits, commit_log.assistant_runs), newest first. An assistant's
run carries what the home still tells about it: nanobot's Dream transcript (its tool calls) and
the tokens its usage store recorded. The CLI (`runs`, `usage`) and the GUI read them here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta, tzinfo

from ..assistants import assistant_of
from ..assistants.base import AssistantRuns
from ..core import clock
from ..recovery.archive import ArchiveRecord, plan_record_restore
from ..core.rules import ARCHIVED_FILES
from ..assistants.nanobot_dreams import DreamTranscript, DreamTranscripts, find_transcripts, match_commits
from ..assistants.nanobot_usage import DreamUsage, RunUsage, Tokens, read_dream_usage, usage_by_day, usage_by_run
from ..versions.commit_log import CommitHistory, CommitRecord, EntryChange, assistant_runs, load_history, peer_card, run_summary
from . import records
from .runtypes import RunRecord, record_json
from ..core.problems import Problem, WorkspaceError
from ..recovery.prunes import commit_records
from ..home.workspace import Workspace

KEPT_TRANSCRIPTS = 10          # nanobot 0.3.5 prunes its Dream sessions to the newest ten
GONE_TRANSCRIPT = f"nanobot keeps only its last {KEPT_TRANSCRIPTS} Dream transcripts; this run's is gone."
NOT_A_DREAM = "This commit was not made by a Dream run (a {kind}), so there is no transcript."
NO_RUN_TOKENS = "nanobot recorded no token usage for this run (its usage store holds other runs only)."


@dataclass
class AssistantSide:
    """What the home holds about the assistant's runs, read once per listing."""
    runs: list[CommitRecord] = field(default_factory=list)      # newest first
    transcripts: DreamTranscripts = field(default_factory=DreamTranscripts)
    usage: DreamUsage = field(default_factory=lambda: DreamUsage(None))
    usage_runs: list[RunUsage] = field(default_factory=list)    # oldest first
    transcript_of: dict[str, DreamTranscript] = field(default_factory=dict)   # commit sha -> its run's
    tokens_of: dict[str, RunUsage] = field(default_factory=dict)              # commit sha -> its run's
    own: AssistantRuns | None = None           # the runs it records itself (then no commit is read)


def usage_runs(usage: DreamUsage, transcripts: list[DreamTranscript], history: CommitHistory) -> list[RunUsage]:
    """The usage store's calls as Dream runs, each with its transcript and the assistant's commit
    it made (a commit Dreamdesk made is never the assistant's run's)."""
    if not usage.calls:
        return []
    first = int(usage.calls[0].started.timestamp())
    commits = [(c.sha, c.time) for c in history.records if not c.by_dreamdesk and c.time >= first]
    return usage_by_run(usage.calls, transcripts, commits)


def read_assistant_side(ws: Workspace, history: CommitHistory | None = None) -> AssistantSide:
    history = history or load_history(ws)
    side = AssistantSide(assistant_runs(ws, history))
    if ws.home is not None:
        side.transcripts = find_transcripts(ws)
    side.usage = read_dream_usage(ws)
    side.usage_runs = usage_runs(side.usage, side.transcripts.transcripts, history)
    keyed = {t.key: t for t in side.transcripts.transcripts}
    theirs = [(c.sha, c.time) for c in history.records if not c.by_dreamdesk]
    for key, sha in match_commits(side.transcripts.transcripts, theirs).items():
        side.transcript_of[sha] = keyed[key]
    side.tokens_of = {r.sha: r for r in side.usage_runs if r.sha}
    return side


def tokens_json(t: Tokens) -> dict:
    """An assistant's run's tokens under the keys Dreamdesk's own run records use."""
    return {"total": t.total, "prompt": t.input, "completion": t.output, "calls": t.calls}


def assistant_summary(rec: CommitRecord, side: AssistantSide) -> dict:
    out = run_summary(rec)
    used = side.tokens_of.get(rec.sha)
    tr = side.transcript_of.get(rec.sha)
    out["tokens"] = tokens_json(used.tokens) if used else None
    out["transcript"] = tr.key if tr else None
    return out


def every_run(ws: Workspace) -> tuple[list[dict], list[Problem], AssistantSide]:
    """One table of runs, as JSON: Dreamdesk's run records (their JSON, writer "dreamdesk") and
    the assistant's runs (writer "assistant", run_summary plus tokens and transcript key), newest
    first; the problems of unreadable records."""
    typed, problems = records.list_runs(ws)
    ours = [record_json(r) | {"writer": "dreamdesk"} for r in typed]
    own = assistant_of(ws).assistant_runs(ws)
    if own is not None:       # the assistant records its runs itself: its record, not commits
        side = AssistantSide(own=own)
        theirs = own.runs
        problems = problems + [Problem("the assistant's records", p) for p in own.problems]
    else:
        side = read_assistant_side(ws)
        theirs = [assistant_summary(c, side) for c in side.runs]
    every = sorted(ours + theirs, key=lambda r: _instant(r.get("started")), reverse=True)
    return every, problems, side


def cursor_move(before: int | None, after: int | None) -> str | None:
    """An assistant's run's .dream_cursor move as the Dream runs table and `dreamdesk runs` say
    it: "cursor —→6" when there was no cursor file before; None when it did not move."""
    if before == after:
        return None
    return f"cursor {'—' if before is None else before}→{'—' if after is None else after}"


def _instant(iso_time) -> float:
    t = clock.from_iso(iso_time)
    return t.timestamp() if t is not None else 0.0


# -- one assistant's run in full --------------------------------------------------------------
@dataclass(frozen=True)
class RemovedEntry:
    path: str
    entry: EntryChange
    prune_id: str | None       # c-<sha12>-<n>: restorable (USER.md and MEMORY.md entries only)
    back: bool = False         # its text is in the file again


@dataclass
class AssistantRunDetail:
    rec: CommitRecord
    peer_card: tuple[str | None, str | None]
    removed: list[RemovedEntry]
    transcript: DreamTranscript | None
    transcript_note: str | None        # why there is none
    tokens: RunUsage | None
    tokens_note: str | None            # why there are none


def assistant_run_detail(ws: Workspace, sha: str, side: AssistantSide | None = None) -> AssistantRunDetail:
    history = load_history(ws)
    rec = history.find(sha)
    if rec is None:
        raise WorkspaceError(f"no commit {sha[:12]} in this workspace's snapshots any more")
    side = side if side is not None else read_assistant_side(ws, history)
    transcript = side.transcript_of.get(rec.sha)
    t_note = None if transcript else (GONE_TRANSCRIPT if rec.kind == "dream" else NOT_A_DREAM.format(kind=rec.kind))
    tokens = side.tokens_of.get(rec.sha)
    u_note = None
    if tokens is None:
        u_note = side.usage.message if side.usage.state != "recorded" else NO_RUN_TOKENS
    return AssistantRunDetail(rec, peer_card(ws, rec), _removed(ws, rec), transcript, t_note, tokens, u_note)


def _removed(ws: Workspace, rec: CommitRecord) -> list[RemovedEntry]:
    """Each removed entry with the id the Archive gives it (the same numbering: prunes.commit_records)."""
    prunes = iter(commit_records(CommitHistory([rec])))
    out = []
    for path, e in rec.removed():
        arc = next(prunes) if path in ARCHIVED_FILES else None
        out.append(RemovedEntry(path, e, arc.id if arc else None, _is_back(ws, arc)))
    return out


def _is_back(ws: Workspace, arc: ArchiveRecord | None) -> bool:
    if arc is None:
        return False
    try:
        return not plan_record_restore(ws, arc).inserted
    except (WorkspaceError, OSError):
        return False


# -- tokens per day, both writers --------------------------------------------------------------
@dataclass(frozen=True)
class DayTokens:
    day: date
    assistant: int             # what nanobot's usage store recorded for its Dream that day
    dreamdesk: int             # the tokens of Dreamdesk's own runs that started that day


@dataclass(frozen=True)
class WeekTokens:
    monday: date               # the ISO week's first day
    assistant: int
    dreamdesk: int

    @property
    def label(self) -> str:
        iso = self.monday.isocalendar()
        return f"{iso.year}-W{iso.week:02d}"

    def to_json(self) -> dict:
        return {"week": self.label, "from": self.monday.isoformat(), "assistant": self.assistant,
                "dreamdesk": self.dreamdesk}


def tokens_by_week(days: list[DayTokens]) -> list[WeekTokens]:
    """The days summed by ISO week (Monday first), oldest first; a week with no tokens is left out."""
    weeks: dict[date, list[int]] = {}
    for d in days:
        sums = weeks.setdefault(d.day - timedelta(days=d.day.weekday()), [0, 0])
        sums[0] += d.assistant
        sums[1] += d.dreamdesk
    return [WeekTokens(m, a, o) for m, (a, o) in sorted(weeks.items())]


def token_totals(days: list[DayTokens]) -> dict:
    """What `runs --json` says of cost: each writer's Dream tokens in all, and per week."""
    return {"assistant": sum(d.assistant for d in days), "dreamdesk": sum(d.dreamdesk for d in days),
            "weeks": [w.to_json() for w in tokens_by_week(days)]}


def tokens_by_day(ws: Workspace, zone: tzinfo | None = None, runs: list[RunRecord] | None = None,
                  usage: DreamUsage | None = None) -> tuple[list[DayTokens], DreamUsage]:
    """Dream tokens per calendar day in the display zone (None: this machine's), oldest first,
    and the usage store as read (its message says why the assistant's side is empty).
    `runs`, `usage`: Dreamdesk's run records and the usage store when the caller has read them."""
    usage = usage if usage is not None else read_dream_usage(ws)
    theirs = {d.day: d.tokens.total for d in usage_by_day(usage.calls, zone)}
    ours: dict[date, int] = {}
    for r in runs if runs is not None else records.list_runs(ws)[0]:
        t, total = clock.from_iso(r.started), (r.tokens or {}).get("total")
        if t is not None and isinstance(total, int) and total > 0:
            day = t.astimezone(zone).date()
            ours[day] = ours.get(day, 0) + total
    days = sorted(set(theirs) | set(ours))
    return [DayTokens(d, theirs.get(d, 0), ours.get(d, 0)) for d in days], usage
