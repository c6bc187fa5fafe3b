"""The tokens the assistant's own Dream spent, as nanobot 0.3.5 records them: an SQLite store
`llm_usage.sqlite3` in its data folder (the folder of its config.json, usually the home), table
`llm_calls`, one row per provider call, `source` "dream" for Dream's calls, `started_at_ms`
epoch milliseconds. Only nanobot's gateway records usage (its provider observer).

Read strictly read-only (engine/disk/sqlite_read.py: immutable, or a private copy while its
-wal is there): the file is never created, written or migrated, and nothing appears beside it.
A store that cannot be read gives one sentence, never a traceback.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Iterable, Sequence

from ..disk.sqlite_read import Unreadable, read_sqlite
from .nanobot_dreams import MATCH_WINDOW, Commit, DreamTranscript, assign_commits

DB_NAME = "llm_usage.sqlite3"
SOURCE = "dream"
COLUMNS = ("started_at_ms", "duration_ms", "provider", "model", "finish_reason",
           "input_tokens", "output_tokens", "total_tokens")
NONE_MESSAGE = "nanobot recorded no token usage for its Dream here"
# Calls of one Dream run follow each other within seconds; nanobot's runs are an hour apart
# at least. A longer pause between two calls no transcript claims starts a new run.
RUN_GAP = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class Tokens:
    calls: int = 0
    input: int = 0
    output: int = 0
    total: int = 0

    def __add__(self, other: "Tokens") -> "Tokens":
        return Tokens(self.calls + other.calls, self.input + other.input, self.output + other.output,
                      self.total + other.total)

    def to_json(self) -> dict:
        return {"calls": self.calls, "input": self.input, "output": self.output, "total": self.total}


@dataclass(frozen=True, slots=True)
class UsageCall:
    started: datetime           # aware (UTC)
    duration_ms: int
    provider: str
    model: str
    finish_reason: str
    tokens: Tokens              # calls=1; a call with no reported usage counts 0 tokens

    @property
    def ended(self) -> datetime:
        return self.started + timedelta(milliseconds=self.duration_ms)


@dataclass(frozen=True, slots=True)
class RunUsage:
    started: datetime           # the run's first call
    ended: datetime             # its last call's end
    tokens: Tokens
    key: str | None = None      # the Dream transcript it belongs to, when the home still holds it
    sha: str | None = None      # the commit the run made, when it made one

    def to_json(self) -> dict:
        return {"started": self.started.isoformat(), "ended": self.ended.isoformat(), "transcript": self.key,
                "commit": self.sha, "tokens": self.tokens.to_json()}


@dataclass(frozen=True, slots=True)
class DayUsage:
    day: date
    tokens: Tokens

    def to_json(self) -> dict:
        return {"day": self.day.isoformat(), "tokens": self.tokens.to_json()}


@dataclass
class DreamUsage:
    path: Path | None                                   # where nanobot keeps the store (None: no home)
    calls: list[UsageCall] = field(default_factory=list)    # oldest first
    error: str | None = None                            # the one sentence when it cannot be read

    @property
    def state(self) -> str:
        return "error" if self.error else ("recorded" if self.calls else "none")

    @property
    def message(self) -> str:
        if self.error:
            return self.error
        if not self.calls:
            return NONE_MESSAGE + "."
        return f"nanobot recorded {len(self.calls)} call(s) of its Dream, {self.total.total:,} tokens."

    @property
    def total(self) -> Tokens:
        return sum((c.tokens for c in self.calls), Tokens())


def usage_path(ws) -> Path | None:
    """nanobot's data folder is its config file's folder: the home's config.json, else the home."""
    if ws.config_path is not None:
        return Path(ws.config_path).parent / DB_NAME
    return ws.home / DB_NAME if ws.home is not None else None


def read_dream_usage(ws) -> DreamUsage:
    path = usage_path(ws)
    out = DreamUsage(path)
    if path is None or not path.is_file():
        return out
    try:
        out.calls = _read_calls(path)
    except Unreadable as exc:
        out.error = f"nanobot's token usage ({DB_NAME}) cannot be read: {exc}"
    return out


def _read_calls(path: Path) -> list[UsageCall]:
    return read_sqlite(path, _query) or []      # an empty file is an empty SQLite database


def _query(con: sqlite3.Connection) -> list[UsageCall]:
    have = {r[1] for r in con.execute("PRAGMA table_info(llm_calls)")}
    if not have:
        return []                   # nanobot creates the table on its first record
    missing = [c for c in (*COLUMNS, "source") if c not in have]
    if missing:
        raise Unreadable(f"its llm_calls table lacks {', '.join(missing)} (not nanobot 0.3.5's layout)")
    rows = con.execute(f"SELECT {', '.join(COLUMNS)} FROM llm_calls WHERE source = ? "
                       "ORDER BY started_at_ms, id", (SOURCE,))
    return [c for c in (_call(r) for r in rows) if c is not None]


def _call(row) -> UsageCall | None:
    started_ms, duration, provider, model, finish, inp, outp, total = row
    if not isinstance(started_ms, int) or started_ms < 0:
        return None                 # nanobot never writes one; a hand-edited row is skipped
    inp, outp = _count(inp), _count(outp)
    total = _count(total) or inp + outp
    return UsageCall(datetime.fromtimestamp(started_ms / 1000, timezone.utc), _count(duration),
                     str(provider), str(model), str(finish), Tokens(1, inp, outp, total))


def _count(v) -> int:
    return v if isinstance(v, int) and v > 0 else 0


# -- per day, per run ---------------------------------------------------------------------------
def usage_by_day(calls: Iterable[UsageCall], zone: tzinfo | None = None) -> list[DayUsage]:
    """Tokens per calendar day in the display zone (None: this machine's), oldest first."""
    days: dict[date, Tokens] = {}
    for c in calls:
        d = c.started.astimezone(zone).date()
        days[d] = days.get(d, Tokens()) + c.tokens
    return [DayUsage(d, t) for d, t in sorted(days.items())]


def usage_by_run(calls: Sequence[UsageCall], transcripts: Sequence[DreamTranscript] = (),
                 commits: Iterable[Commit] = (), window: timedelta = MATCH_WINDOW) -> list[RunUsage]:
    """The calls grouped into Dream runs, oldest first: calls inside a transcript's time (its
    start to its last save) are that run's; the others split where they pause for RUN_GAP.
    Each run then gets the commit it made (assign_commits: the earliest after its end)."""
    groups: list[tuple[str | None, list[UsageCall]]] = []
    for c in sorted(calls, key=lambda c: c.started):
        key = _transcript_of(c, transcripts)
        if groups and groups[-1][0] == key and (key is not None or c.started - groups[-1][1][-1].ended <= RUN_GAP):
            groups[-1][1].append(c)
        else:
            groups.append((key, [c]))
    spans = [(g[0].started, max(c.ended for c in g)) for _, g in groups]
    shas = assign_commits(spans, commits, window)
    return [RunUsage(start, end, sum((c.tokens for c in g), Tokens()), key, sha)
            for (key, g), (start, end), sha in zip(groups, spans, shas)]


def _transcript_of(c: UsageCall, transcripts: Sequence[DreamTranscript]) -> str | None:
    """The run whose transcript was open when the call began: the latest started at or before
    it (whole seconds: the key has no fraction) and last saved at or after it."""
    t = int(c.started.timestamp())
    best = None
    for tr in transcripts:
        start = int(tr.started.timestamp())
        end = int((tr.ended or tr.started + MATCH_WINDOW).timestamp())
        if start <= t <= end and (best is None or tr.started > best.started):
            best = tr
    return best.key if best else None
