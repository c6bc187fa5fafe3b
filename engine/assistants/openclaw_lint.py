"""Memory lint on an OpenClaw home (issue 29 item 5): how its memory files are read for the lint,
and the findings of OpenClaw's own rules, handed to engine/lint through Assistant.lint_reading.

Read: USER.md (its active directives and unmarked entries; a superseded directive is history kept
beside its replacement, as OpenClaw's user model has it) and MEMORY.md (every entry, a promoted
one with its marker lines attached and what it says without OpenClaw's annotations). SOUL.md,
AGENTS.md and IDENTITY.md are OpenClaw's seeded templates; daily notes are the day's record and
the sources OpenClaw's promotion keys point to: neither is read. The shared rules that apply:
copies (USER.md's copy kept over MEMORY.md's, the later MEMORY.md copy removed with its markers),
past plans and over-long entries; not "misplaced" (its files are the contract's).

Its own kinds, each with the precision measured on tests/fixtures/openclaw_lint_labelled.jsonl
(tests/engine/lint/test_lint_openclaw_labelled.py), so one under the bar is shown for review:
- raw-candidate, shell-command, code-snippet: an entry OpenClaw's dreaming promoted that is its
  pipeline's text, a command or code (openclaw_junk); removed with its own markers (and the
  generated section heading it alone fills), never another entry's.
- score-metadata: the `[score=…]` annotation of a promoted entry, taken out; marker and comments kept.
- superseded-active: a directive left active after a newer one in its section replaced it; its
  comment is marked `status: superseded` (its observed day kept), the entry kept.
- in-cut: an entry in the part of MEMORY.md or USER.md the prompt cut drops. A fact: no fix removes
  it; for review (make room, or raise bootstrapMaxChars)."""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING

from ..core.lint_finding import REMOVE, REWRITE, Finding, Place
from ..text.entries import Entry, split_entries
from ..text.textform import normalise
from .base import LintReading
from .openclaw_bootstrap import USER_MAX_CHARS, Injected
from .openclaw_directives import ACTIVE, METADATA, SUPERSEDED, Directive, parse_directives
from .openclaw_junk import SCORE, code_snippet, promoted_fact, raw_candidate, shell_command, without_score
from .openclaw_provenance import CONSOLIDATED_SECTION, LINEAGE, PROMOTED_SECTION, PROMOTION, MemoryEntry, \
    parse_provenance
from .openclaw_supersede import replaces

if TYPE_CHECKING:
    from ..home.workspace import Workspace
    from .openclaw import OpenClaw

USER, MEMORY = "USER.md", "MEMORY.md"
RAW, COMMAND, CODE, SCORE_KIND, STILL_ACTIVE, IN_CUT = ("raw-candidate", "shell-command", "code-snippet",
                                                         "score-metadata", "superseded-active", "in-cut")
KINDS = (RAW, COMMAND, CODE, SCORE_KIND, STILL_ACTIVE, IN_CUT)
SHARED = frozenset({"duplicate", "near-duplicate", "similar", "past-date", "too-long"})
# Precision of each kind on the labelled set, rounded down to a whole percent (the test fails when a
# figure here is not what it measures); under rules.LINT_PRECISION_BAR a kind is shown for review.
PRECISION = {RAW: 1.0, COMMAND: 1.0, CODE: 1.0, SCORE_KIND: 1.0, STILL_ACTIVE: 0.92, IN_CUT: 1.0}
_FACTS = ("item", "paragraph", "quote", "code")
_JUNK = ((RAW, raw_candidate), (CODE, code_snippet), (COMMAND, shell_command))
_MARKERS = "its OpenClaw promotion marker"
_ROOM = "it is a fact, so no fix removes it: make room (remove what the other findings name, or shorten the file by hand)"


def lint_reading(oc: OpenClaw, ws: Workspace, today: date) -> LintReading:
    user, directives = _user(_text(ws, USER))
    memory, promoted = _memory(_text(ws, MEMORY))
    places = user + memory
    findings = _junk(promoted) + _still_active(directives) + _in_cut(oc, ws, places)
    return LintReading(places, findings, SHARED, KINDS)


def _text(ws: Workspace, rel: str) -> str:
    state, _ = ws.read_file(rel)
    return normalise(state.text) if state.exists and not state.decode_error else ""


def _place(rel: str, e: Entry, **more) -> Place:
    return Place(rel, e.start, e.end, e.text, e.heading, e.kind, **more)


# -- USER.md ------------------------------------------------------------------------------------
Read = tuple[Directive, Place, Place]      # an active directive of one entry: its comment, its entry


def _user(text: str) -> tuple[list[Place], list[Read]]:
    """USER.md's entries as the lint reads them, and its active directives of one entry each."""
    entries = split_entries(text)
    at = {e.start: e for e in entries}
    places: list[Place] = []
    directives: list[Read] = []
    read = parse_directives(text)
    for d in read.directives:
        if d.status == SUPERSEDED or d.start not in at:
            continue                      # history, kept beside its replacement
        body = [e for e in entries if d.start < e.start < d.end and e.kind in _FACTS]
        comment = _place(USER, at[d.start])
        for e in body:
            one = len(body) == 1          # a comment over several entries stays with the others
            places.append(_place(USER, e, attached=(comment,) if one else (),
                                 attached_what="its observed/status comment" if one else "", day=d.date))
        if len(body) == 1 and d.status == ACTIVE:
            directives.append((d, comment, places[-1]))
    places += [_place(USER, e) for e in read.unmarked if e.kind in _FACTS]
    return sorted(places, key=lambda p: p.start), directives


def _still_active(directives: list[Read]) -> list[Finding]:
    out = []
    for d, comment, entry in directives:
        newer = [(n, e) for n, _, e in directives if n.heading == d.heading and d.date and n.date and n.date > d.date]
        for n, e in sorted(newer, key=lambda ne: ne[0].date or date.min):
            why = replaces(e.text, entry.text)
            if why is None:
                continue
            m = METADATA.match(comment.text)
            assert m is not None
            marked = comment.text[:m.start("status")] + SUPERSEDED + comment.text[m.end("status"):]
            out.append(Finding(STILL_ACTIVE, (e, entry), f"still active, but the directive observed {n.observed} "
                               f"({e.lines}) replaced it: {why}", REWRITE, precision=PRECISION[STILL_ACTIVE],
                               label=f"Mark it superseded in {USER} ({comment.lines}: status active → superseded); "
                                     f"both directives stay", changes=((comment, marked),)))
            break
    return out


# -- MEMORY.md ------------------------------------------------------------------------------------
def _memory(text: str) -> tuple[list[Place], list[tuple[Place, MemoryEntry]]]:
    """MEMORY.md's entries as the lint reads them, and those OpenClaw's dreaming promoted."""
    lines = text.split("\n")
    at = {e.start: e for e in split_entries(text)}
    places, promoted = [], []
    for m in parse_provenance(text).entries:
        e = m.entry
        if e.kind not in _FACTS:
            continue
        run = _run(lines, e.start)
        if any(i not in at for i in run):
            continue                      # a marker line that is no entry of its own: never split from it
        attached = tuple(_place(MEMORY, at[i]) for i in run) + _emptied_heading(lines, run, e)
        what = _MARKERS + (" and the section heading it alone fills" if len(attached) > len(run) else "")
        p = _place(MEMORY, e, fact=promoted_fact(e.text) if m.promotions else "", attached=attached,
                   attached_what=what if attached else "", day=_day(m.section_date))
        places.append(p)
        if m.promotions:
            promoted.append((p, m))
    return places, promoted


def _run(lines: list[str], start: int) -> list[int]:
    """The marker lines right above line `start`, top to bottom (OpenClaw pairs a marker with the next line)."""
    i = start - 1
    while i >= 0 and (PROMOTION.match(lines[i]) or LINEAGE.match(lines[i])):
        i -= 1
    return list(range(i + 1, start))


def _emptied_heading(lines: list[str], run: list[int], e: Entry) -> tuple[Place, ...]:
    """The generated section heading (`## Promoted From Short-Term Memory (…)`, `## Consolidated
    Memory (…)`) right above an entry that is all its section holds: it goes with the entry."""
    first = run[0] if run else e.start
    h = first - 1
    while h >= 0 and not lines[h].strip():
        h -= 1
    if h < 0 or not (PROMOTED_SECTION.match(lines[h]) or CONSOLIDATED_SECTION.match(lines[h])):
        return ()
    after = e.end
    while after < len(lines) and not lines[after].strip():
        after += 1
    if after < len(lines) and not re.match(r"#{1,2}\s", lines[after]):
        return ()                         # more of the section follows
    return (Place(MEMORY, h, h + 1, lines[h], None, "heading"),)


def _day(section_date: str | None) -> date | None:
    try:
        return date.fromisoformat(section_date) if section_date else None
    except ValueError:
        return None


def _junk(promoted: list[tuple[Place, MemoryEntry]]) -> list[Finding]:
    out = []
    for p, m in promoted:
        found = next(((kind, why) for kind, test in _JUNK if (why := test(p.fact))), None)
        if found is not None:
            kind, why = found
            out.append(Finding(kind, (p,), f"{why}; promoted by OpenClaw's dreaming{_source(m)}", REMOVE,
                               precision=PRECISION[kind]))
        elif SCORE.search(p.text):
            out.append(Finding(SCORE_KIND, (p,), "OpenClaw's scoring of the promotion ([score=… recalls=… avg=…]) "
                               "written into the entry: the model reads it with every private chat", REWRITE,
                               rewrite_to=without_score(p.text), precision=PRECISION[SCORE_KIND],
                               label=f"Take the [score=…] metadata out of {MEMORY} {p.lines} (its marker and "
                                     "comments kept)"))
    return out


def _source(m: MemoryEntry) -> str:
    s = m.source
    if s is None:
        return ""
    if s.exists is False:
        return f" from {s.path}, which is gone (the archive keeps what the fix removes)"
    return f" from {s.path} (lines {s.start_line}–{s.end_line}), which keeps the text"


# -- the prompt cut ----------------------------------------------------------------------------------
def _in_cut(oc: OpenClaw, ws: Workspace, places: list[Place]) -> list[Finding]:
    from .openclaw_sizes import preview
    out: list[Finding] = []
    for inj in preview(oc, ws).files:
        name = inj.source.name
        if inj.source.personal or name not in (USER, MEMORY) or not inj.cut:
            continue
        seen: set[Place] = set()
        for c in inj.cut:
            p = next((p for p in places if p.file == name and any(
                q.start <= c.entry.start < q.end for q in (p, *p.attached))), None)
            if p is None or p in seen:
                continue
            seen.add(p)
            part = "" if c.whole else " in part"
            limit, hand = _limit(inj)
            out.append(Finding(IN_CUT, (p,), f"OpenClaw's prompt cut drops it{part}: {name} is {inj.length:,} "
                               f"characters, over {limit} of {inj.cap:,}, and the model sees only the first 75 % "
                               "and the last 25 %", precision=PRECISION[IN_CUT], hand=f"{_ROOM} or {hand}"))
    return out


def _limit(inj: Injected) -> tuple[str, str]:
    """The limit that cuts the file, and how a person raises it, in words."""
    if inj.cap < inj.file_cap:
        return ("what the files before it left of bootstrapTotalMaxChars",
                "raise bootstrapTotalMaxChars in Settings → Memory")
    if inj.source.name == USER and inj.file_cap == USER_MAX_CHARS:
        return "OpenClaw's own USER.md cap", "move it to MEMORY.md by hand (no setting raises USER.md's 4,000)"
    return "its per-file cap", "raise bootstrapMaxChars in Settings → Memory"
