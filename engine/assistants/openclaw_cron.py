"""When a cron expression next fires: enough of croner's syntax (the scheduler OpenClaw 2026.9.6
runs its jobs with) for the schedule of its dreaming job, `plugins.entries.memory-core.config.
dreaming.frequency` (default `0 3 * * *`).

For the caller: `next_fire(expr, after, zone)`; a form it does not read raises CronError, whose
text says which (openclaw_next turns it into words for the person).

Read: five fields (minute hour day-of-month month day-of-week) or six (seconds first); `*`, `?`,
numbers, ranges, steps (`*/n`, `a-b/n`, `a/n`), lists, month and weekday names, 7 as Sunday, the
nicknames @yearly @annually @monthly @weekly @daily @midnight @hourly. When both day fields are
restricted a day matching either fires (croner's default, like Vixie cron). Times are wall times
in the job's zone (its `tz`, else the Gateway's; a wall time a DST change skips does not fire).
Not read: `L`, `W`, `#` and year fields (OpenClaw's default never uses them).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo

from ..core import clock

NICKNAMES = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
             "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
_MONTHS = {m: i for i, m in enumerate("JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split(), 1)}
_DAYS = {d: i for i, d in enumerate("SUN MON TUE WED THU FRI SAT".split())}
SEARCH_DAYS = 5 * 366 + 1          # a Feb 29 fires within four years; more means it never does


class CronError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Cron:
    seconds: frozenset[int]
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]           # 0 = Sunday
    any_day: bool                      # day-of-month is * (or ?)
    any_weekday: bool

    def day_matches(self, d) -> bool:
        if d.month not in self.months:
            return False
        dom, dow = d.day in self.days, (d.weekday() + 1) % 7 in self.weekdays
        if self.any_day or self.any_weekday:
            return dom and dow
        return dom or dow


def parse(expr: str) -> Cron:
    text = NICKNAMES.get(expr.strip().lower(), expr.strip())
    fields = text.split()
    if len(fields) == 5:
        fields = ["0", *fields]
    if len(fields) != 6:
        raise CronError(f"{expr!r} has {len(fields)} fields; a cron expression has 5 (or 6 with seconds)")
    sec, minute, hour, dom, month, dow = fields
    weekdays = {v % 7 for v in _field(dow, 0, 7, _DAYS)}
    return Cron(_field(sec, 0, 59), _field(minute, 0, 59), _field(hour, 0, 23), _field(dom, 1, 31),
                _field(month, 1, 12, _MONTHS), frozenset(weekdays), dom in ("*", "?"), dow in ("*", "?"))


def _field(text: str, lo: int, hi: int, names: dict[str, int] | None = None) -> frozenset[int]:
    out: set[int] = set()
    for part in text.split(","):
        rng, _, step = part.partition("/")
        every = _number(step, names=None) if step else 1
        if every < 1:
            raise CronError(f"{part!r} has a step below 1")
        if rng in ("*", "?"):
            first, last = lo, hi
        elif "-" in rng:
            a, b = rng.split("-", 1)
            first, last = _number(a, names), _number(b, names)
        else:
            first = _number(rng, names)
            last = hi if step else first
        if not lo <= first <= last <= hi:
            raise CronError(f"{part!r} is outside {lo}-{hi}")
        out.update(range(first, last + 1, every))
    return frozenset(out)


def _number(text: str, names: dict[str, int] | None) -> int:
    key = text.strip().upper()
    if names and key in names:
        return names[key]
    if not key.isdigit():
        raise CronError(f"{text!r} is neither a number nor a name (L, W and # are not read here)")
    return int(key)


def next_fire(expr: str, after: datetime, zone: tzinfo | None) -> datetime | None:
    """The first time strictly after `after` (aware) the expression fires, in `zone` (None: this
    machine's); None when it never does within five years."""
    cron = parse(expr)
    zone = zone or clock.zone_named(clock.local_zone_name()) or after.astimezone().tzinfo or timezone.utc
    start = after.astimezone(zone).replace(tzinfo=None, microsecond=0) + timedelta(seconds=1)
    day = start.date()
    for _ in range(SEARCH_DAYS):
        if cron.day_matches(day):
            hit = _first_in_day(cron, day, start, zone)
            if hit is not None:
                return hit
        day += timedelta(days=1)
    return None


def _first_in_day(cron: Cron, day, start: datetime, zone: tzinfo) -> datetime | None:
    for h in sorted(cron.hours):
        if day == start.date() and h < start.hour:
            continue
        for m in sorted(cron.minutes):
            for s in sorted(cron.seconds):
                wall = datetime(day.year, day.month, day.day, h, m, s)
                if wall < start:
                    continue
                aware = wall.replace(tzinfo=zone)
                if aware.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None) == wall:
                    return aware
    return None
