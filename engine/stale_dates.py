"""Dates in a memory entry that have passed: absolute dates before today, and relative phrases
("tomorrow", "next Tuesday") that were meant from a day now long enough ago.

A date is read as a plan or a deadline unless its words say otherwise: a date in quotes or code
is an example ("dates written like "12 Nov""), a date after "since", "as of", "added" … records
the past on purpose, and a birthday or an "every" date comes back each year. A date written
without a year is the one nearest the day the entry was recorded; a relative phrase counts from
that day, at its latest reading ("next Tuesday" can be up to 13 days later)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

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
_RELATIVE = re.compile(r"\b(today|tonight|tomorrow|this (?:morning|afternoon|evening|week|weekend)|"
                       r"next (?:week|weekend|" + "|".join(_WEEKDAYS) + r")|this (?:" + "|".join(_WEEKDAYS) + r"))\b",
                       re.IGNORECASE)
# words right before a date that make it a record of the past, not a plan
_LOOK_BACK = re.compile(r"\b(since|as of|added|at the|was|were|did|done|ago|last|updated|started|finished|"
                        r"bought|paid|met|moved|changed|converted|fixed)(?:\s+(?:on|in|the))?\s*$", re.IGNORECASE)
# words anywhere in the clause that make a date come back every year
_RECURRING = re.compile(r"\b(birthday|anniversary|every|each|annual(?:ly)?|yearly)\b", re.IGNORECASE)
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`")
_CLAUSE_END = re.compile(r"[.;!?\n]|:\s")


@dataclass(frozen=True, slots=True)
class PastDate:
    written: str        # as the entry has it: "1 Dec 2026", "next Tuesday"
    latest: date        # the latest day it can mean
    relative: bool      # a relative phrase (read from the recorded day)

    def reason(self, recorded: date) -> str:
        if self.relative:
            return f"says \"{self.written}\", recorded {recorded.isoformat()}: that was {self.latest.isoformat()} at the latest"
        return f"\"{self.written}\" ({self.latest.isoformat()}) is past"


def past_dates(text: str, recorded: date, today: date, relative: bool = True) -> list[PastDate]:
    """The dates in `text` that have passed by `today` (`relative`: also relative phrases, read
    from `recorded`, the day the entry was written)."""
    hidden = _QUOTED.sub(lambda m: " " * len(m.group()), text)    # same offsets, examples blanked
    out: list[PastDate] = []
    taken: list[tuple[int, int]] = []
    for pattern in _ABSOLUTE:
        for m in pattern.finditer(hidden):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue                 # "3 Nov 2026" already read; not again as "Nov 2026"
            taken.append(m.span())
            day = _absolute(m, recorded)
            if day is not None and day < today and _plan(hidden, m.start()):
                out.append(PastDate(text[m.start():m.end()], day, False))
    if relative:
        for m in _RELATIVE.finditer(hidden):
            latest = _latest(m.group(1).lower(), recorded)
            if latest < today and _plan(hidden, m.start()):
                out.append(PastDate(text[m.start():m.end()], latest, True))
    return out


def _plan(text: str, at: int) -> bool:
    """Is the date at `at` a plan or a deadline (not a record of the past, not a yearly date)?"""
    before = text[:at]
    clause_start = max((m.end() for m in _CLAUSE_END.finditer(before)), default=0)
    clause = before[clause_start:] + text[at:at + 40].split("\n")[0]
    return not _LOOK_BACK.search(before) and not _RECURRING.search(clause)


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
    """The latest day a relative phrase written on `recorded` can mean."""
    to_sunday = timedelta(days=6 - recorded.weekday())
    if phrase in ("today", "tonight") or phrase.startswith("this ") and phrase[5:] in ("morning", "afternoon", "evening"):
        return recorded
    if phrase == "tomorrow":
        return recorded + timedelta(days=1)
    if phrase in ("this week", "this weekend"):
        return recorded + to_sunday
    if phrase in ("next week", "next weekend"):
        return recorded + to_sunday + timedelta(days=7)
    ahead = (_WEEKDAYS.index(phrase.split()[1]) - recorded.weekday()) % 7
    return recorded + timedelta(days=ahead + (7 if phrase.startswith("next ") else 0))
