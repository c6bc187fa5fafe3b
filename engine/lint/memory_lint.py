"""Memory lint, no model needed: what a person would want to tidy in the memory files.

Six kinds of finding, over the entries of SOUL.md, USER.md, memory/MEMORY.md and every skill
(read by engine/text/entries.py, as everything else reads them):
- duplicate, near-duplicate, similar: the same entry again, one that says nothing another does
  not, and one that only looks alike (engine/lint/lint_copies.py);
- past-date: a plan, deadline, appointment or reminder whose day has passed (engine/text/stale_dates.py;
  a fact about a past event is history and stays);
- misplaced: a procedure in USER.md (it belongs in a skill), a preference of the user's in
  MEMORY.md (it belongs in USER.md);
- too-long: over rules.LINT_ENTRY_CHARS.
Each finding names the fix it offers (engine/lint/lint_fixes.py applies it), and whether it is offered
in one click or shown for review (engine/core/lint_finding.py). Read-only."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from datetime import date, datetime

from ..core import clock
from ..text.entries import split_entries
from .lint_copies import copies, similarity, words
from ..core.lint_finding import FIX, KINDS, MOVE, REMOVE, REVIEW, REWRITE, Finding, Place, action
from ..core.rules import LINT_ENTRY_CHARS, MEMORY, USER, memory_paths, skill_path
from ..text.stale_dates import past_dates
from ..text.textform import normalise
from ..home.workspace import Workspace
from ..core.problems import WorkspaceError
from ..assistants.base import LintReading

__all__ = ["FIX", "KINDS", "MOVE", "REMOVE", "REVIEW", "REWRITE", "Finding", "Place", "action", "counts", "lint",
           "preference_reason", "procedure_reason", "similarity", "words"]
_SKIPPED = ("front matter", "reference")      # not facts: a skill's header, link targets


# -- reading the workspace -------------------------------------------------------------------
def lint(ws: Workspace, today: date | None = None) -> list[Finding]:
    """Every finding of the workspace, in file order, then by kind. The home's assistant says how
    its files are read when not as the contract's (which entries, what each says, what is attached
    to it), which shared rules apply there, and adds its own rules' findings."""
    today = today or clock.today()
    reading = _reading(ws, today)
    places = reading.places if reading is not None else _places(ws)
    recorded = _recorded_days(ws, places)
    found = copies(places)
    for p in places:
        found += _past(p, recorded[p], today) + _misplaced(p, places) + _too_long(p)
    kinds: tuple[str, ...] = KINDS
    if reading is not None:
        found = _merged([f for f in found if f.kind in reading.shared], reading.findings)
        kinds += reading.kinds
    files: dict[str, int] = {}
    for p in places:
        files.setdefault(p.file, len(files))
    return sorted(found, key=lambda f: (files.get(f.target.file, len(files)), f.target.start,
                                        kinds.index(f.kind) if f.kind in kinds else len(kinds)))


def _reading(ws: Workspace, today: date) -> LintReading | None:
    from ..assistants import assistant_of
    try:
        return assistant_of(ws).lint_reading(ws, today)
    except WorkspaceError:           # an unreadable config says nothing of the assistant: the contract's reading
        return None


def _merged(shared: list[Finding], own: list[Finding]) -> list[Finding]:
    """The shared rules' findings and the assistant's own, an entry a fix removes left with that
    finding alone (the assistant's removal first: it says what the entry is)."""
    removed = {f.target for f in own if f.fix == REMOVE}
    out = [f for f in shared if f.target not in removed]
    removed |= {f.target for f in out if f.fix == REMOVE}
    return out + [f for f in own if f.fix == REMOVE or f.target not in removed]


def _places(ws: Workspace) -> list[Place]:
    out = []
    for rel in memory_paths(ws.root):
        state, _ = ws.read_file(rel)
        if not state.exists:
            continue
        out += [Place(rel, e.start, e.end, e.text, e.heading, e.kind) for e in split_entries(normalise(state.text))
                if e.kind not in _SKIPPED]
    return out


def _recorded_days(ws: Workspace, places: list[Place]) -> dict[Place, date]:
    """The day each entry was recorded: from Dream's provenance (the newest history entry it was
    made from) when a run record has it, else the day its file last changed."""
    made = _provenance_days(ws)
    file_day: dict[str, date] = {}
    for p in places:
        if p.file not in file_day:
            try:
                file_day[p.file] = datetime.fromtimestamp(os.stat(ws.root / p.file).st_mtime).date()
            except OSError:
                file_day[p.file] = clock.today()
    return {p: made.get((p.file, p.text), p.day or file_day[p.file]) for p in places}


def _provenance_days(ws: Workspace) -> dict[tuple[str, str], date]:
    from ..dream.records import list_runs, run_order
    runs, _ = list_runs(ws)
    facts = [(r, f) for r in sorted(runs, key=run_order) for f in r.created or [] if f.get("text")]
    if not facts:
        return {}
    stamps = {e.cursor: e.timestamp for e in ws.history().entries}
    out = {}
    for run, fact in facts:            # oldest run first: the newest run's reading wins
        times = [clock.from_history(stamps.get(c)) for c in fact.get("sources", [])]
        times = [t for t in times if t is not None] or [clock.from_iso(run.started)]
        if times[0] is not None:
            out[(fact["file"], fact["text"])] = max(t for t in times if t is not None).date()
    return out


# -- past dates ------------------------------------------------------------------------------
def _past(p: Place, recorded: date, today: date) -> list[Finding]:
    # a skill is a procedure for any week: its "next week" is no date
    gone = past_dates(p.said, recorded, today, relative=not p.file.startswith("skills/"))
    if not gone:
        return []
    reason = "; ".join(d.reason(recorded) for d in gone)
    rest = _other_sentences(p.said, recorded, today, not p.file.startswith("skills/"))
    if rest and p.fact:     # the assistant's annotations around it: no rewrite would keep them
        return [Finding("past-date", (p,), f"{reason}; the rest of the entry says more: take the plan out by hand")]
    if rest:       # the entry says more than the plan: the fix takes out the plan only
        marker = _MARKER.match(p.text)
        return [Finding("past-date", (p,), f"{reason}; the rest of the entry is kept", REWRITE,
                        rewrite_to=(marker.group() if marker else "") + rest)]
    return [Finding("past-date", (p,), reason, REMOVE)]


_SENTENCE = re.compile(r"(?<=[.!?;])[ \t]+|\n+")


def _other_sentences(text: str, recorded: date, today: date, relative: bool) -> str:
    """The sentences of an entry that hold no past plan (of more than two words), joined."""
    body = _MARKER.sub("", text, count=1)
    rest = [s.strip() for s in _SENTENCE.split(body)
            if len(s.split()) > 2 and not past_dates(s, recorded, today, relative=relative)]
    return " ".join(rest)


# -- misplaced -------------------------------------------------------------------------------
_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.MULTILINE)
_STEP = re.compile(r"^\s*\d+[.)]\s", re.MULTILINE)
_VERB = (r"(?:run|open|check|build|deploy|install|restart|reboot|click|go|copy|create|set|add|delete|remove|type|"
         r"press|ssh|push|pull|commit|send|ask|draft|log in|start|stop|update|upload|download|rsync|tag|verify|"
         r"back up|plug in|eject|renew|compare|call|pay|read|list|pick|post|merge|restore|mount|export|import)\b")
# an instruction's first word, after a short label ("To publish: build …", "Weekly review: open …")
_IMPERATIVE = re.compile(rf"^(?:(?:[\w'-]+ ){{0,3}}[\w'-]+:\s+)?{_VERB}", re.IGNORECASE)
# "then" (or an arrow) and another action: a second step, not "…; then a link"
_SEQUENCE = re.compile(rf"(?:\b(?:then|after that|afterwards|finally|next),?|->|→)\s+{_VERB}", re.IGNORECASE)
_WHO = r"(?:she|he|they|the user|user)"     # not "I": in MEMORY.md that is the assistant
_PREFERENCE = re.compile(rf"(?:^|[.;]\s+)(?:{_WHO}\s+(?:(?:said|says|mentioned)\s+(?:that\s+)?{_WHO}\s+)?)?"
                         r"(?:really\s+|strongly\s+|would\s+)?"
                         r"(prefers?|likes?|loves?|hates?|dislikes?|enjoys?|rather|can't stand|cannot stand)\b",
                         re.IGNORECASE)


def procedure_reason(text: str) -> str | None:
    """Why an entry reads as a procedure (numbered steps, or an instruction done in sequence)."""
    body = _MARKER.sub("", text, count=1).strip()
    if len(_STEP.findall(text)) >= 2:
        return "numbered steps: a procedure"
    if _IMPERATIVE.match(body) and _STEP.match(text):
        return "a numbered instruction: a step of a procedure"
    if _IMPERATIVE.match(body) and _SEQUENCE.search(body):
        return "an instruction done in steps (\"… then …\"): a procedure"
    return None


def preference_reason(text: str) -> str | None:
    """Why an entry reads as a preference of the user's ("she prefers …", "Hates …")."""
    m = _PREFERENCE.search(_MARKER.sub("", text, count=1).strip())
    return f"a preference of the user's (\"{m.group(1)}\")" if m else None


def _misplaced(p: Place, places: list[Place]) -> list[Finding]:
    if p.file == USER and (why := procedure_reason(p.text)):
        return [Finding("misplaced", (p,), f"{why}, which belongs in a skill", MOVE, _skill_for(p, places))]
    if p.file == MEMORY and (why := preference_reason(p.text)):
        return [Finding("misplaced", (p,), f"{why}, which belongs in {USER}", MOVE, USER)]
    return []


def _skill_for(p: Place, places: list[Place]) -> str:
    """The skill a procedure joins: the existing one whose words it shares most, else a new one
    named after its heading (or its first words)."""
    mine = set(words(p.text))
    scores: dict[str, int] = defaultdict(int)
    for q in places:
        if q.file.startswith("skills/"):
            scores[q.file] += len(mine & set(words(q.text)))
    best = max(scores.items(), key=lambda kv: (kv[1], kv[0]), default=None)
    if best is not None and best[1] >= 5:
        return best[0]
    source = (p.heading or "").lstrip("#").strip() or " ".join(words(p.text)[:3])
    return skill_path(re.sub(r"[^a-z0-9]+", "-", source.lower()).strip("-")[:40] or "procedure")


# -- too long --------------------------------------------------------------------------------
def _too_long(p: Place) -> list[Finding]:
    if len(p.said) <= LINT_ENTRY_CHARS or p.kind == "code":
        return []     # a code block is as long as the code
    return [Finding("too-long", (p,), f"{len(p.said):,} characters, over the {LINT_ENTRY_CHARS}-character limit "
                    "for one entry: several facts folded into one")]


def counts(found: list[Finding]) -> dict[str, int]:
    """Findings per kind: every shared kind, then any other kind found (an assistant's own)."""
    kinds = list(KINDS) + list(dict.fromkeys(f.kind for f in found if f.kind not in KINDS))
    return {k: sum(f.kind == k for f in found) for k in kinds}
