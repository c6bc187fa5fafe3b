"""OpenClaw's "What's next": the recall store's candidates against the thresholds its next deep
sleep promotes by, and when that sweep runs.

For the caller: `whats_next(state, config, now)` once per read, with the `OpenClawState` from
openclaw_state.read_state and openclaw.json as a dict; `now` is the moment the scores are taken
at (they age: recency). Its `listed` are what `openclaw memory promote` (without --apply) lists,
in its order; `candidates` also holds the entries still short of a threshold, each saying which.
Read only.

Thresholds (OpenClaw 2026.9.6, `dreaming-*.mjs` resolveMemoryDreamingConfig): `plugins.entries.
<memory plugin>.config.dreaming.phases.deep.{minScore 0.75, minRecallCount 3, minUniqueQueries 3,
recencyHalfLifeDays 14, maxAgeDays 30, limit 10}`, each taken only when valid (a score in [0, 1],
a whole number), else the default; `dreaming.enabled` and `phases.deep.enabled` (default true).
The sweep: the managed cron job (table cron_jobs, declaration key
`memory-core:memory-dreaming-promotion`, or its name and tag in older rows) with its schedule
(`dreaming.frequency`, default `0 3 * * *`, in `dreaming.timezone` or `agents.defaults.
userTimezone`, else the Gateway's zone); `state.nextRunAtMs` is what the Gateway itself last
planned. Without a job (no Gateway started yet) the config's schedule is used and said so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo

from ..core import clock
from .openclaw_cron import CronError, next_fire
from .openclaw_recall import Candidate, Thresholds, rank
from .openclaw_runs import dreaming_settings, dreaming_zone
from .openclaw_state import CronJob, OpenClawState

DECLARATION = "memory-core:memory-dreaming-promotion"
JOB_NAME, JOB_TAG = "Memory Dreaming Promotion", "[managed-by=memory-core.short-term-promotion]"
DEFAULT_FREQUENCY = "0 3 * * *"


@dataclass(frozen=True, slots=True)
class NextSweep:
    enabled: bool
    expr: str | None
    zone: str | None                  # the schedule's zone by name (None: the Gateway's, taken as this machine's)
    at: str | None                    # the next time the schedule fires after now (ISO)
    planned_at: str | None            # what the Gateway planned (the job's nextRunAtMs), when it has
    last_run_at: str | None
    last_status: str | None
    job: str | None                   # the cron job's id
    how: str                          # where the schedule was read, in words

    def to_json(self) -> dict:
        return {"enabled": self.enabled, "expr": self.expr, "zone": self.zone, "at": self.at,
                "planned_at": self.planned_at, "last_run_at": self.last_run_at, "last_status": self.last_status,
                "job": self.job, "how": self.how}


SOON = timedelta(minutes=15)      # a sweep due within this is said on the Dashboard


@dataclass
class WhatsNext:
    thresholds: Thresholds
    candidates: list[Candidate]                       # the eligible first, in OpenClaw's order
    next_sweep: NextSweep
    at: str                                           # when the scores were taken
    problems: list[str] = field(default_factory=list)
    busy: str | None = None      # OpenClaw writing its memory now, or its sweep due soon: in words

    @property
    def listed(self) -> list[Candidate]:
        """What `openclaw memory promote` lists now: every eligible candidate."""
        return [c for c in self.candidates if c.eligible]

    @property
    def next_batch(self) -> list[Candidate]:
        """What the next sweep would take if nothing changed before it: the first `limit` listed."""
        return self.listed[:self.thresholds.limit]

    def to_json(self) -> dict:
        return {"at": self.at, "thresholds": self.thresholds.to_json(),
                "candidates": [c.to_json() for c in self.candidates],
                "next_batch": [c.key for c in self.next_batch], "next_sweep": self.next_sweep.to_json(),
                "problems": self.problems, "busy": self.busy}


def whats_next(state: OpenClawState, config: dict | None = None, now: datetime | None = None,
               zone: tzinfo | None = None) -> WhatsNext:
    """`zone`: the Gateway's zone when the config names none (None: this machine's)."""
    now = now or datetime.now(timezone.utc)
    t = thresholds(config or {})
    candidates = rank(state.recalls, state.phase_signals, t, now.timestamp() * 1000)
    sweep, problems = next_sweep(state.cron_jobs, config or {}, now, zone)
    return WhatsNext(t, candidates, sweep, _iso_ms(now.timestamp() * 1000) or "", problems,
                     busy_words(state, sweep, now))


def busy_words(state: OpenClawState, sweep: NextSweep, now: datetime) -> str | None:
    """What the Dashboard says around a sweep: OpenClaw holding its workspace lock now, or the
    sweep due within SOON (Dreamdesk's writes are refused while it runs)."""
    now_ms = int(now.timestamp() * 1000)
    if state.lock is not None and not state.lock.stale(now_ms):
        since = _iso_ms(state.lock.acquired_at_ms)
        return (f"OpenClaw is writing this workspace's memory now (since {clock.show_iso(since, seconds=True)}): "
                "Dreamdesk's writes are refused until it is done")
    at = sweep.at or sweep.planned_at
    when = _when(at) if sweep.enabled and at else None
    if when is not None and timedelta(0) <= when - now <= SOON:
        return (f"OpenClaw's dreaming sweep is due {clock.show_iso(at)}: while it runs, Dreamdesk's writes to "
                "this workspace are refused")
    return None


def _when(iso: str) -> datetime | None:
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None


def thresholds(config: dict) -> Thresholds:
    deep = _dict(_dict(dreaming_settings(config).get("phases")).get("deep"))
    d = Thresholds()
    values = {"min_score": _score(deep.get("minScore")), "min_recall_count": _whole(deep.get("minRecallCount")),
              "min_unique_queries": _whole(deep.get("minUniqueQueries")),
              "recency_half_life_days": _whole(deep.get("recencyHalfLifeDays")) or None,
              "max_age_days": _whole(deep.get("maxAgeDays")) or None, "limit": _whole(deep.get("limit"))}
    given = {k: v for k, v in values.items() if v is not None}
    return Thresholds(**{**{k: getattr(d, k) for k in values}, **given, "configured": tuple(given)})


def _dict(v) -> dict:
    return v if isinstance(v, dict) else {}


def _score(v) -> float | None:
    """normalizeScore: a number (or numeric text) in [0, 1]."""
    if isinstance(v, bool):
        return None
    try:
        n = float(v.strip()) if isinstance(v, str) else float(v)
    except (TypeError, ValueError, AttributeError):
        return None
    return n if 0 <= n <= 1 else None


def _whole(v) -> int | None:
    """parseStrictNonNegativeInteger: a whole number (or its digits as text), ≥ 0."""
    if isinstance(v, bool):
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, str) and re.fullmatch(r"\s*\+?\d+\s*", v):
        v = int(v)
    return v if isinstance(v, int) and v >= 0 else None


def enabled_value(v, default: bool = True) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    return default


def managed_job(jobs: tuple[CronJob, ...]) -> CronJob | None:
    """isManagedDreamingJob: by declaration key, else by name with memory-core's tag or its message."""
    for j in jobs:
        if j.declaration_key == DECLARATION:
            return j
    for j in jobs:
        if j.name.strip() == JOB_NAME and (JOB_TAG in (j.description or "") or
                                           j.payload.get("message") == "__openclaw_memory_core_short_term_promotion_dream__"):
            return j
    return None


def next_sweep(jobs: tuple[CronJob, ...], config: dict, now: datetime,
               zone: tzinfo | None = None) -> tuple[NextSweep, list[str]]:
    dreaming = dreaming_settings(config)
    on = enabled_value(dreaming.get("enabled")) and enabled_value(_dict(_dict(dreaming.get("phases")).get("deep")).get("enabled"))
    job = managed_job(jobs)
    if not on:
        return NextSweep(False, None, None, None, None, None, None, job.id if job else None,
                         "dreaming is turned off in openclaw.json: no sweep is planned"), []
    if job is not None:
        expr, tz = job.schedule.get("expr"), job.schedule.get("tz")
        how = "the dreaming cron job in the state database"
        state = job.state
    else:
        frequency = dreaming.get("frequency")
        expr = frequency.strip() if isinstance(frequency, str) and frequency.strip() else DEFAULT_FREQUENCY
        tz, state = None, {}
        how = ("no dreaming cron job yet (the Gateway creates it when it starts): the schedule openclaw.json "
               "gives" + (" (OpenClaw's default)" if expr == DEFAULT_FREQUENCY else ""))
    # the job carries the config's zone as tz when there is one; without it the Gateway's own zone applies
    where = clock.zone_named(tz) or (dreaming_zone(config, zone) if job is None else zone)
    at, problems = None, []
    if job is not None and job.schedule.get("kind") != "cron":
        problems.append(f"the dreaming job's schedule is {job.schedule.get('kind')!r}, not a cron expression: "
                        "only the Gateway's planned time is shown")
    else:
        try:
            fire = next_fire(str(expr), now, where)
            at = clock.iso(fire) if fire else None
        except CronError as e:
            problems.append(f"the dreaming schedule {expr!r} is not read here: {e}")
    name = tz if isinstance(tz, str) else (str(where) if where is not None else None)
    return NextSweep(True, str(expr) if expr else None, name, at, _iso_ms(state.get("nextRunAtMs")),
                     _iso_ms(state.get("lastRunAtMs")), state.get("lastRunStatus") or state.get("lastStatus"),
                     job.id if job else None, how), problems


def _iso_ms(ms) -> str | None:
    if isinstance(ms, bool) or not isinstance(ms, (int, float)):
        return None
    return clock.iso(datetime.fromtimestamp(ms / 1000, timezone.utc))
