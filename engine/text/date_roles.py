"""What a date in a memory entry is there for: a plan (a deadline, an appointment, a reminder,
something she will do), a record of the past (history), or a day that comes back.

Only a plan goes stale when its day passes: "Dentist at 09:30 on 2026-05-12" is done with,
"Beta shipped 2026-03-10" or "Distance running (Berlin half marathon on 2026-03-29)" is still
true. So a date reads as a plan only on positive evidence, in the words around it (its scope: its
clause, from the date before it, and after it up to the next comma or "and"):
1. a birthday, an anniversary, "every"/"each" (and "weekly"… on a day without a year): recurring;
2. right before it, "since", "as of", "the" ("the 4 Nov vet check"): history;
3. a word of intent (will, going to, need to, must, remind, to-do, booked for, moved to …): a plan;
4. a verb in the past ("shipped", "ran", "was", "went", "so far"): history;
5. a mark of a plan (due, by, deadline, target, next, an appointment word, a time of day, an
   imperative first word, "tomorrow"): a plan;
6. none of these: not a plan. A bare weekday ("on Friday") needs a word of intent (3): it is as
   often a routine as a plan.
The word lists are measured on tests/fixtures/lint_labelled.jsonl (tests/engine/lint/test_lint_labelled.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

PLAN, HISTORY, RECURRING = "plan", "history", "recurring"


def _words(*alternatives: str) -> re.Pattern:
    return re.compile(r"(?<![\w'])(?:" + "|".join(alternatives) + r")(?![\w'])", re.IGNORECASE)


_RECURRING = _words("birthdays?", "anniversary", "anniversaries", "every", "each")
_RECURRING_UNDATED = _words("annual(?:ly)?", "yearly", "weekly", "monthly", "daily")   # without a year only
_LOOK_BACK = re.compile(r"(?<![\w'])(?:since|as of|the|'s|ago)\s*$", re.IGNORECASE)
_INTENT = _words(r"will", r"\w+'ll", "shall", "going to", "gonna", r"plan(?:s|ning)? to", r"intends? to",
                 r"wants? to", r"hopes? to", r"aims? to", r"needs? to", "has to", "have to", "must", "should",
                 r"remind(?:er|s|ed)?", "don't forget", "do not forget", "to-?do",
                 r"(?:booked|scheduled|planned|rescheduled|postponed|moved|pushed back|delayed|confirmed|set) "
                 r"(?:for|to|until|till)")
_CHECKBOX = re.compile(r"^\s*(?:[-*+]\s+)?\[ \]")
_PAST_WORDS = _words("was", "were", "had", "did", "done", "happened", "took place", "already", "so far", "back in",
                     "last", "ago", "ran", "went", "met", "got", "bought", "sold", "paid", "left", "began", "took",
                     "gave", "made", "won", "lost", "saw", "came", "became", "sent", "spent", "flew", "wrote",
                     "built", "held", "found", "kept", "told", "said", "broke", "drove", "swam", "rode", "quit",
                     "grew", "knew", "felt", "brought", "caught", "taught", "thought", "born", "stolen", "given",
                     "taken", "begun", "gone", "seen", "known", "shown", "learnt", "spoke", "PB", "personal best")
_ED = re.compile(r"(?:(\w+)\s+)?(?<![\w'])([a-z]{3,}ed)(?![\w'])", re.IGNORECASE)
_DETERMINERS = frozenset("the a an her his their my our its this that".split())
# words ending in -ed that are no record of the past: plans, and words that are not verbs
_ED_NOT_PAST = frozenset("""scheduled rescheduled planned booked expected postponed delayed arranged pencilled
    penciled needed required interested related based limited advanced detailed dedicated automated unscheduled
    unplanned named called speed breed embed proceed exceed succeed indeed hundred seed feed weed need""".split())
_PLAN_MARKS = _words("due", "deadline", "target", "goal", "next", "upcoming", "tentative(?:ly)?", "scheduled",
                     "planned", "booked", r"appointments?", "appt", "dentist", r"doctor(?:'s)?", "GP", r"vet check",
                     r"check-?up", r"meetings?", "meeting with", "call with", r"interviews?", "flight", "train to",
                     r"tickets?", "concert", "dinner", "lunch", "party", "exam", "workshop", "haircut", "class",
                     "parents' evening", r"expires?", "expiry", "renewal", "starts", "begins", "ends", "opens",
                     "closes", "departs", "arrives", "tomorrow", "tonight", "this weekend",
                     r"this (?:mon|tues|wednes|thurs|fri|satur|sun)day")
_DEADLINE_BEFORE = re.compile(r"(?<![\w'])(?:by|before|until|till|no later than)\s*$", re.IGNORECASE)
_TIME_OF_DAY = re.compile(r"(?<![\d:.])(?:[01]?\d|2[0-3]):[0-5]\d(?![\d:])|(?<!\d)(?:1[0-2]|0?[1-9])\s?[ap]m\b",
                          re.IGNORECASE)
_IMPERATIVE = _words("call", "book", "buy", "pay", "renew", "send", "submit", "email", "ask", "pick up", "drop off",
                     "return", "cancel", "finish", "file", "bring", "collect", "order", "register", "sign up",
                     "apply", "prepare", "water", "confirm", "reply", "print", "hand in", "visit", "meet")
# a clause ends at a sentence's end (not after "Dr." or in "1.9"), a semicolon or a new list item
_CLAUSE_END = re.compile(r"(?<!\b(?:Dr|Mr|Ms|St|No|vs))(?<!\b(?:Mrs|etc|inc))(?<!\bProf)[.!?](?=\s|$)|;|"
                         r"\n(?=\s*(?:[-*+]|\d+[.)])\s)")
_SCOPE_END = re.compile(r",|\band\b|\bbut\b| — | – |\)")
_MARKER = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?(?:\[[ xX]\]\s+)?")
_LABEL = re.compile(r"^(?:\*\*[^*\n]+\*\*|[\w' -]{1,30}):\s+")


@dataclass(frozen=True, slots=True)
class Reading:
    role: str             # PLAN | HISTORY | RECURRING | "" (nothing says)
    why: str = ""         # the words that said so


def read_date(text: str, start: int, end: int, prev_end: int, next_start: int, has_year: bool,
              weekday: bool = False) -> Reading:
    """What the date at text[start:end] is for. prev_end / next_start: where the dates before and
    after it end and start (0 / len(text) when none); `weekday`: a bare "on Friday"."""
    clause_start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, start)), default=0)
    m = _CLAUSE_END.search(text, end)
    clause_end = m.start() if m else len(text)
    clause = text[clause_start:clause_end]
    before = text[max(clause_start, prev_end):start]
    after = text[end:min(clause_end, next_start)]
    cut = _SCOPE_END.search(after)
    # the date's own words count as marks ("tomorrow", "next Tuesday"), not as the clause's verbs
    scope = before + " " + (after[:cut.start()] if cut else after)
    marks = before + " " + text[start:end] + " " + (after[:cut.start()] if cut else after)
    if (found := _RECURRING.search(clause)) or (not has_year and (found := _RECURRING_UNDATED.search(clause))):
        return Reading(RECURRING, found.group())
    if found := _LOOK_BACK.search(before):
        return Reading(HISTORY, found.group().strip())
    if found := _INTENT.search(scope):
        return Reading(PLAN, found.group())
    if _CHECKBOX.match(text[clause_start:start]):
        return Reading(PLAN, "[ ]")
    if found := _past(scope):
        return Reading(HISTORY, found)
    if weekday:
        return Reading("")
    if found := _DEADLINE_BEFORE.search(before):
        return Reading(PLAN, found.group().strip())
    if found := _PLAN_MARKS.search(marks) or _TIME_OF_DAY.search(scope) or _imperative(clause):
        return Reading(PLAN, found if isinstance(found, str) else found.group())
    return Reading("")


def _past(scope: str) -> str | None:
    if found := _PAST_WORDS.search(scope):
        return found.group()
    # an -ed word, unless right after a determiner ("the repaired bike": an adjective, not a verb)
    return next((w for before, w in _ED.findall(scope)
                 if w.lower() not in _ED_NOT_PAST and before.lower() not in _DETERMINERS), None)


def _imperative(clause: str) -> str | None:
    """The clause's first word when it is an instruction ("Call the plumber …")."""
    body = _LABEL.sub("", _MARKER.sub("", clause, count=1), count=1)
    m = _IMPERATIVE.match(body)
    return m.group() if m else None
