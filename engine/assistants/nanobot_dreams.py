"""The assistant's own Dream transcripts: nanobot 0.3.5 saves each run of its Dream as a
session `dream:<YYYYmmdd-HHMMSS>` (the run's start, the wall clock of the assistant's
process) in the home's sessions folder, and keeps the newest ten (prune_dream_sessions).

A transcript is the Dream prompt (the first user message), one assistant message per model
turn with OpenAI-style `tool_calls` (arguments a JSON string), one `tool` message per result
(matched by `tool_call_id`) and the final answer. Read-only; a transcript nanobot could not
have written is reported as a problem, never a traceback.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Iterable, Sequence

from ..core import clock
from ..core.problems import WARNING, Problem
from .sessions import Session, scan_sessions

KEY = re.compile(r"dream:(\d{8}-\d{6})")
KEY_FORMAT = "%Y%m%d-%H%M%S"
# A Dream's commit lands when its run ends: minutes after the start, not hours (nanobot's
# shortest Dream interval is one hour).
MATCH_WINDOW = timedelta(minutes=30)
# The tools whose calls change a file: the arguments that name the file and the text.
WRITES = {"edit_file", "write_file", "apply_patch"}


@dataclass(frozen=True, slots=True)
class Edit:
    """One change a tool call asked for: `action` is replace (old → new), write (the whole
    file becomes `new_text`) or add (appended)."""
    path: str
    action: str
    old_text: str | None = None
    new_text: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict            # as the model sent them ({} when they were no JSON object)
    result: str | None = None  # the tool's answer as nanobot recorded it; None when there is none
    edits: tuple[Edit, ...] = ()

    @property
    def path(self) -> str | None:
        p = self.arguments.get("path")
        return p if isinstance(p, str) else (self.edits[0].path if self.edits else None)

    @property
    def failed(self) -> bool:
        """nanobot words a refused or failed call "Error ...": the model saw it, nothing changed."""
        return bool(self.result) and self.result.lstrip().startswith("Error")


@dataclass(frozen=True, slots=True)
class DreamTranscript:
    key: str
    started: datetime           # aware: the key's wall clock in the home's zone
    ended: datetime | None      # when nanobot last saved it (its metadata's updated_at)
    file: str                   # where it lives, relative to the home
    prompt: str | None
    calls: tuple[ToolCall, ...]
    answer: str | None
    problems: tuple[Problem, ...] = ()

    @property
    def edits(self) -> list[tuple[ToolCall, Edit]]:
        return [(c, e) for c in self.calls for e in c.edits]

    @property
    def files(self) -> list[str]:
        """The files its tool calls changed (or tried to), in first-touched order."""
        return list(dict.fromkeys(e.path for _, e in self.edits))


@dataclass
class DreamTranscripts:
    transcripts: list[DreamTranscript] = field(default_factory=list)   # oldest first
    problems: list[Problem] = field(default_factory=list)


def is_dream_key(key: str) -> bool:
    return KEY.fullmatch(key) is not None


def started_at(key: str, home: tzinfo | None = None) -> datetime | None:
    """When the run began, from its key: nanobot's `datetime.now()` wall clock."""
    m = KEY.fullmatch(key)
    if not m:
        return None
    try:
        return clock.from_wall(datetime.strptime(m.group(1), KEY_FORMAT), home)
    except ValueError:
        return None


def find_transcripts(ws) -> DreamTranscripts:
    """Every Dream transcript the home still holds for this workspace, oldest first."""
    sessions, problems = scan_sessions(ws.home, ws.root, want=is_dream_key)
    home = clock.home_zone(ws.config())
    out = DreamTranscripts(problems=list(problems))
    for s in sessions:
        start = started_at(s.key, home)
        if start is None:       # a file named for a dream key whose metadata says otherwise
            out.problems.append(Problem(s.display, f"is named as a Dream transcript but holds {s.key!r}; skipped",
                                        severity=WARNING))
            continue
        out.transcripts.append(parse_transcript(s, start, _saved_at(s, home)))
    out.transcripts.sort(key=lambda t: (t.started, t.key))
    return out


def _saved_at(s: Session, home: tzinfo | None) -> datetime | None:
    """The metadata's updated_at: nanobot's naive `datetime.now().isoformat()`."""
    raw = s.metadata.get("updated_at")
    try:
        t = datetime.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    return None if t is None else (t if t.tzinfo else clock.from_wall(t, home))


def parse_transcript(s: Session, started: datetime, ended: datetime | None = None) -> DreamTranscript:
    problems = list(s.problems)
    results = {m.get("tool_call_id"): m for m in s.messages if m.get("role") == "tool"}
    calls: list[ToolCall] = []
    prompt = answer = None
    for m in s.messages:
        role = m.get("role")
        if role == "user" and prompt is None:
            prompt = _text(m.get("content"))
        elif role == "assistant":
            for raw in m.get("tool_calls") or []:
                call = _call(raw, results, problems, s.display, m.get("_line"))
                if call is not None:
                    calls.append(call)
            if not m.get("tool_calls") and _text(m.get("content")):
                answer = _text(m.get("content"))
    return DreamTranscript(s.key, started, ended, s.display, prompt, tuple(calls), answer, tuple(problems))


def _call(raw, results: dict, problems: list[Problem], where: str, line) -> ToolCall | None:
    fn = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        problems.append(Problem(where, "a tool call without a name; skipped", line=line, severity=WARNING))
        return None
    args = fn.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            problems.append(Problem(where, f"the arguments of a {fn['name']} call are no JSON; shown empty",
                                    line=line, severity=WARNING))
            args = {}
    args = args if isinstance(args, dict) else {}
    cid = raw.get("id") if isinstance(raw.get("id"), str) else ""
    res = results.get(cid) if cid else None
    return ToolCall(cid, fn["name"], args, _text(res.get("content")) if res else None,
                    _edits(fn["name"], args))


def _edits(name: str, args: dict) -> tuple[Edit, ...]:
    """The changes a call asked for, in nanobot 0.3.5's argument names."""
    if name not in WRITES:
        return ()
    if name == "apply_patch":
        items = [e for e in args.get("edits") or [] if isinstance(e, dict)]
        return tuple(Edit(_s(e.get("path")) or "?", _s(e.get("action")) or "replace",
                          _s(e.get("old_text")), _s(e.get("new_text"))) for e in items)
    path = _s(args.get("path")) or "?"
    if name == "write_file":
        return (Edit(path, "write", None, _s(args.get("content"))),)
    return (Edit(path, "replace", _s(args.get("old_text")), _s(args.get("new_text"))),)


def _s(v) -> str | None:
    return v if isinstance(v, str) else None


def _text(content) -> str | None:
    """A message's text: a string, or the text parts of a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "\n".join(parts) if parts else None
    return None


# -- which commit a run made ----------------------------------------------------------------
Commit = tuple[str, datetime | float]     # (sha, commit time: aware datetime or epoch seconds)


def match_commits(transcripts: Sequence[DreamTranscript], commits: Iterable[Commit],
                  window: timedelta = MATCH_WINDOW) -> dict[str, str]:
    """{transcript key: commit sha}: see assign_commits; a transcript's run ended when nanobot
    last saved it (else: its start)."""
    runs = sorted(transcripts, key=lambda t: t.started)
    shas = assign_commits([(t.started, t.ended) for t in runs], commits, window)
    return {t.key: sha for t, sha in zip(runs, shas) if sha is not None}


def assign_commits(spans: Sequence[tuple[datetime, datetime | None]], commits: Iterable[Commit],
                   window: timedelta = MATCH_WINDOW) -> list[str | None]:
    """The commit each run made, for runs given as (start, end or None) in time order. nanobot
    finishes a run (transcript saved, tokens spent), then commits, and only then can the next
    run start: so a run's commit is the earliest one at or after its end (else its start),
    within `window` of that and not after the next run began. A commit goes to one run at
    most; a run that changed nothing has none. All compare in whole seconds, as git keeps
    commit times (two runs in one second cannot be told apart)."""
    times = sorted((_second(t), sha) for sha, t in commits)
    out: list[str | None] = []
    used: set[str] = set()
    for i, (start, end) in enumerate(spans):
        lo = _second(end or start)
        hi = lo + int(window.total_seconds())
        if i + 1 < len(spans):
            hi = min(hi, _second(spans[i + 1][0]))
        sha = next((sha for t, sha in times if lo <= t <= hi and sha not in used), None)
        out.append(sha)
        if sha is not None:
            used.add(sha)
    return out


def _second(t: datetime | float) -> int:
    return int(t.timestamp() if isinstance(t, datetime) else t)
