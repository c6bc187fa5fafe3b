"""Memory lint, no model needed: what a person would want to tidy in the memory files.

Five kinds of finding, over the entries of SOUL.md, USER.md, memory/MEMORY.md and every skill
(read by engine/entries.py, as everything else reads them):
- duplicate: the same entry again (words compared, case, punctuation and list markers aside);
- near-duplicate: nearly the same words (rules.NEAR_DUPLICATE_JACCARD, measured there);
- past-date: a plan or deadline whose date has passed (engine/stale_dates.py);
- misplaced: a procedure in USER.md (it belongs in a skill), a preference of the user's in
  MEMORY.md (it belongs in USER.md);
- too-long: over rules.LINT_ENTRY_CHARS.
Each finding names the fix it offers (engine/lint_fixes.py applies it). Read-only."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime

from . import clock
from .entries import Entry, split_entries
from .rules import LINT_ENTRY_CHARS, MEMORY, NEAR_DUPLICATE_JACCARD, USER, memory_paths, skill_path
from .stale_dates import past_dates
from .textform import normalise
from .workspace import Workspace

KINDS = ("duplicate", "near-duplicate", "past-date", "misplaced", "too-long")
REMOVE, MOVE = "remove", "move"
_SKIPPED = ("front matter", "reference")      # not facts: a skill's header, link targets


@dataclass(frozen=True, slots=True)
class Place:
    file: str                 # workspace-relative
    start: int                # 0-based first line
    end: int                  # exclusive
    text: str                 # the entry as entries.py reads it
    heading: str | None
    kind: str = "item"        # entries.py's kind: item | paragraph | code | quote | html

    @property
    def lines(self) -> str:
        """'lines 3–5' as a person counts them."""
        return f"line {self.start + 1}" if self.end - self.start <= 1 else f"lines {self.start + 1}–{self.end}"

    def to_json(self) -> dict:
        return {"file": self.file, "start_line": self.start + 1, "end_line": self.end, "text": self.text,
                "heading": self.heading}


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str                         # one of KINDS
    places: tuple[Place, ...]         # a duplicate: the one kept first, then the copy
    reason: str                       # in words
    fix: str | None = None            # REMOVE | MOVE | None (edit it by hand)
    move_to: str | None = None        # MOVE: the file it goes to

    @property
    def target(self) -> Place:
        """The entry the finding is about (and the fix acts on): a duplicate's later copy."""
        return self.places[-1]

    @property
    def id(self) -> str:
        t = self.target
        return f"{self.kind}:{t.file}:{t.start + 1}"

    @property
    def fix_label(self) -> str:
        t = self.target
        if self.fix == REMOVE:
            keep = f" (keep the one in {self.places[0].file})" if len(self.places) > 1 else ""
            return f"Remove it from {t.file}{keep}"
        if self.fix == MOVE:
            return f"Move it from {t.file} to {self.move_to}"
        return "No automatic fix: shorten or split it in the Files tab"

    def to_json(self) -> dict:
        return {"id": self.id, "kind": self.kind, "reason": self.reason, "fix": self.fix, "move_to": self.move_to,
                "fix_label": self.fix_label, "places": [p.to_json() for p in self.places]}


# -- reading the workspace -------------------------------------------------------------------
def lint(ws: Workspace, today: date | None = None) -> list[Finding]:
    """Every finding of the workspace, in file order, then by kind."""
    today = today or clock.today()
    places = _places(ws)
    recorded = _recorded_days(ws, places)
    found = _duplicates(places)
    for p in places:
        found += _past(p, recorded[p], today) + _misplaced(p, places) + _too_long(p)
    order = {p: i for i, p in enumerate(places)}
    return sorted(found, key=lambda f: (order[f.target], KINDS.index(f.kind)))


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
    return {p: made.get((p.file, p.text), file_day[p.file]) for p in places}


def _provenance_days(ws: Workspace) -> dict[tuple[str, str], date]:
    from .dream.records import list_runs, run_order
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


# -- duplicates ------------------------------------------------------------------------------
_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.MULTILINE)


def words(text: str) -> list[str]:
    """An entry's words, lowercased, without list markers or punctuation."""
    return re.findall(r"\w+", _MARKER.sub("", text).lower())


def bigrams(ws: list[str]) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(ws[i:i + 2]) for i in range(max(1, len(ws) - 1)))


def similarity(a: str, b: str) -> float:
    """Jaccard index of the two entries' word bigrams (see rules.NEAR_DUPLICATE_JACCARD)."""
    x, y = bigrams(words(a)), bigrams(words(b))
    return len(x & y) / len(x | y) if x | y else 0.0


def _duplicates(places: list[Place]) -> list[Finding]:
    """Each entry that repeats an earlier one: exactly (same words) or nearly. An entry is
    reported once, against the earlier entry it is most like."""
    out: list[Finding] = []
    first: dict[tuple[str, ...], Place] = {}
    grams = [bigrams(words(p.text)) for p in places]
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)     # bigram -> earlier entries holding it
    for i, p in enumerate(places):
        key = tuple(words(p.text))
        if key and key in first:
            out.append(Finding("duplicate", (first[key], p), f"the same words as {_where(first[key], p)}", REMOVE))
        elif key:
            first[key] = p
            near = _nearest(i, grams, index, places)
            if near is not None:
                j, score = near
                out.append(Finding("near-duplicate", (places[j], p),
                                   f"{score:.0%} of their word pairs shared with {_where(places[j], p)}", REMOVE))
        for g in grams[i]:
            index[g].append(i)
    return out


def _nearest(i: int, grams: list[frozenset], index: dict, places: list[Place]) -> tuple[int, float] | None:
    """The earlier entry most like entry i, when it reaches the threshold (exact copies aside)."""
    mine = grams[i]
    if len(mine) < 2:
        return None                      # two words or fewer: too little to call alike
    best = None
    for j in {j for g in mine for j in index.get(g, ())}:
        if tuple(words(places[j].text)) == tuple(words(places[i].text)):
            continue
        score = len(mine & grams[j]) / len(mine | grams[j])
        if score >= NEAR_DUPLICATE_JACCARD and (best is None or (score, -j) > (best[1], -best[0])):
            best = (j, score)
    return best


def _where(kept: Place, p: Place) -> str:
    return f"{kept.lines}" + ("" if kept.file == p.file else f" of {kept.file}")


# -- past dates ------------------------------------------------------------------------------
def _past(p: Place, recorded: date, today: date) -> list[Finding]:
    # a skill is a procedure for any week: its "next week" is no date
    gone = past_dates(p.text, recorded, today, relative=not p.file.startswith("skills/"))
    if not gone:
        return []
    return [Finding("past-date", (p,), "; ".join(d.reason(recorded) for d in gone), REMOVE)]


# -- misplaced -------------------------------------------------------------------------------
_STEP = re.compile(r"^\s*\d+[.)]\s", re.MULTILINE)
_IMPERATIVE = re.compile(r"^(?:to \w+[^:]*:\s*)?(run|open|check|build|deploy|install|restart|click|go|copy|"
                         r"create|set|add|delete|remove|type|press|ssh|push|pull|commit|send|ask|draft|log in|"
                         r"start|stop|update|upload|download|rsync|tag|verify)\b", re.IGNORECASE)
_SEQUENCE = re.compile(r"\b(then|after that|afterwards|finally|next,)\b|->|→", re.IGNORECASE)
_PREFERENCE = re.compile(r"(?:^|[.;]\s+)(?:(?:she|he|they|i|the user|user)\s+(?:really\s+|strongly\s+)?)?"
                         r"(prefers?|likes?|loves?|hates?|dislikes?|enjoys?|can't stand|cannot stand)\b",
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
    if len(p.text) <= LINT_ENTRY_CHARS or p.kind == "code":
        return []     # a code block is as long as the code
    return [Finding("too-long", (p,), f"{len(p.text):,} characters, over the {LINT_ENTRY_CHARS}-character limit "
                    "for one entry: several facts folded into one")]


def counts(found: list[Finding]) -> dict[str, int]:
    return {k: sum(f.kind == k for f in found) for k in KINDS}
