"""Plans in a memory entry whose day has passed: absolute dates before today, and relative
phrases ("tomorrow", "next Tuesday") that were meant from a day now long enough ago.

A date counts only when its words make it a plan, a deadline, an appointment or a reminder
(engine/text/date_roles.py): a fact about a past event ("Beta shipped 2026-03-10") is history and
stays, and a birthday or an "every" date comes back each year. A date in quotes or code is an
example ("dates written like "12 Nov""). Two dates joined as a range ("2026-05-18 to 2026-05-20")
are one plan, over when its last day is. A date written without a year is the one nearest the day
the entry was recorded; a relative phrase counts from that day, at its latest reading ("next
Tuesday" can be up to 13 days later)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from .date_roles import PLAN, read_date

_MONTHS = {m[:3].lower(): i for i, m in enumerate(
    ("January February March April May June July August September October November December").split(), 1)}
_MONTH = r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
         r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_ABSOLUTE = [re.compile(p, re.IGNORECASE) for p in (
    rf"\b{_YEAR}-(?P<mnum>\d\d)-(?P<day>\d\d)\b",                       # 2026-11-03
    rf"\b{_DAY}\s+{_MONTH}(?:,?\s+{_YEAR})?(?![\w-])",                 # 3 Nov 2026, 3 November
    rf"\b{_MONTH}\s+{_DAY}(?!\s*[-:\d])(?:,?\s+{_YEAR})?(?![\w-])",    # November 3, Nov 3, 2026
)]
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAYS = "|".join(_WEEKDAYS)
_RELATIVE = re.compile(rf"\b(today|tonight|tomorrow|this (?:morning|afternoon|evening|week|weekend)|"
                       rf"next (?:week|weekend|{_DAYS})|this (?:{_DAYS})|(?<=\bon )(?:{_DAYS})|(?<=\bby )(?:{_DAYS}))"
                       r"(?!s\b)\b", re.IGNORECASE)
_RANGE = re.compile(r"\s*(?:-|–|—|to|until|till|through|and)\s*$", re.IGNORECASE)
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`")
_CONTINUED = re.compile(r"\n(?![ \t]*(?:[-*+]|\d+[.)])\s)[ \t]*")     # a wrapped line, not a new item


@dataclass(frozen=True, slots=True)
class PastDate:
    written: str        # as the entry has it: "1 Dec 2026", "next Tuesday"
    latest: date        # the latest day it can mean
    relative: bool      # a relative phrase (read from the recorded day)
    why: str = ""       # the words that make it a plan ("due", "will", "09:30")

    def reason(self, recorded: date) -> str:
        plan = f"; \"{self.why}\" makes it a plan" if self.why else ""
        if self.relative:
            return (f"says \"{self.written}\", recorded {recorded.isoformat()}: that was {self.latest.isoformat()} "
                    f"at the latest{plan}")
        return f"\"{self.written}\" ({self.latest.isoformat()}) is past{plan}"


@dataclass(frozen=True, slots=True)
class _Found:
    start: int
    end: int
    latest: date
    relative: bool
    has_year: bool
    weekday: bool        # a bare "on Friday"


def past_dates(text: str, recorded: date, today: date, relative: bool = True) -> list[PastDate]:
    """The plans in `text` whose day has passed by `today` (`relative`: also relative phrases,
    read from `recorded`, the day the entry was written)."""
    hidden = _QUOTED.sub(lambda m: " " * len(m.group()), text)    # same offsets, examples blanked
    hidden = _CONTINUED.sub(lambda m: " " * len(m.group()), hidden)
    found = _ranges(hidden, sorted(_dates(hidden, recorded, relative), key=lambda f: f.start))
    out = []
    for i, f in enumerate(found):
        if f.latest >= today:
            continue
        prev_end = found[i - 1].end if i else 0
        next_start = found[i + 1].start if i + 1 < len(found) else len(hidden)
        reading = read_date(hidden, f.start, f.end, prev_end, next_start, f.has_year, f.weekday)
        if reading.role == PLAN:
            out.append(PastDate(text[f.start:f.end], f.latest, f.relative, reading.why))
    return out


def _dates(hidden: str, recorded: date, relative: bool) -> list[_Found]:
    out: list[_Found] = []
    for pattern in _ABSOLUTE:
        for m in pattern.finditer(hidden):
            if any(f.start < m.end() and m.start() < f.end for f in out):
                continue                 # "3 Nov 2026" already read; not again as "Nov 2026"
            day = _absolute(m, recorded)
            if day is not None:
                out.append(_Found(m.start(), m.end(), day, False, bool(m.groupdict().get("year")), False))
    if relative:
        for m in _RELATIVE.finditer(hidden):
            phrase = m.group(1).lower()
            weekday = phrase in _WEEKDAYS and hidden[max(0, m.start() - 3):m.start()].lower() == "on "
            out.append(_Found(m.start(), m.end(), _latest(phrase, recorded), True, False, weekday))
    return out


def _ranges(hidden: str, found: list[_Found]) -> list[_Found]:
    """Dates joined as a range ("11–29 Jan", "2026-05-18 to 2026-05-20") read as one: its words
    are around the whole, and it is over when its last day is."""
    out: list[_Found] = []
    for f in found:
        if out and _RANGE.fullmatch(hidden[out[-1].end:f.start]) and not out[-1].relative and not f.relative:
            last = out.pop()
            f = _Found(last.start, f.end, max(last.latest, f.latest), False, last.has_year or f.has_year, False)
        out.append(f)
    return out


def _absolute(m: re.Match, recorded: date) -> date | None:
    g = m.groupdict()
    month = int(g["mnum"]) if g.get("mnum") else _MONTHS[g["mon"][:3].lower()]
    day = int(g["day"])
    if g.get("year"):
        return _date(int(g["year"]), month, day)
    # no year: the reading nearest the day it was recorded
    found = [d for y in (recorded.year - 1, recorded.year, recorded.year + 1)
             if (d := _date(y, month, day)) is not None]
    return min(found, key=lambda d: abs((d - recorded).days)) if found else None


def _date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _latest(phrase: str, recorded: date) -> date:
    """The latest day a relative phrase written on `recorded` can mean ("on/by Friday": the next
    Friday, a week on when written on a Friday)."""
    to_sunday = timedelta(days=6 - recorded.weekday())
    if phrase in ("today", "tonight") or phrase.startswith("this ") and phrase[5:] in ("morning", "afternoon", "evening"):
        return recorded
    if phrase == "tomorrow":
        return recorded + timedelta(days=1)
    if phrase in ("this week", "this weekend"):
        return recorded + to_sunday
    if phrase in ("next week", "next weekend"):
        return recorded + to_sunday + timedelta(days=7)
    if phrase in _WEEKDAYS:
        return recorded + timedelta(days=(_WEEKDAYS.index(phrase) - recorded.weekday()) % 7 or 7)
    ahead = (_WEEKDAYS.index(phrase.split()[1]) - recorded.weekday()) % 7
    return recorded + timedelta(days=ahead + (7 if phrase.startswith("next ") else 0))
