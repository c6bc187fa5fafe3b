"""The Consolidator (spec section 6): compacts old chat from sessions/*.jsonl into
memory/history.jsonl, so that Dream has something to read. Nothing may be lost: when the model
fails, every message goes into `[RAW] N messages` entries (split into parts, never truncated).

Crash safety: before appending, the entries to write are put in a journal
(consolidator-journal.json in Dreamdesk's own state for the workspace, never in memory/ where
the assistant's git would see it); then they are appended (fsynced), then the session's
last_consolidated is advanced, then the journal is removed. A run that finds a journal finishes
it first: it appends only the entries not already in history.jsonl and advances the session,
so a crash anywhere in between neither loses nor duplicates a message.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable

import msgspec

from ..core import clock
from ..disk.files import ConflictError, FileLock, atomic_write_text, sweep_stale_temps, content_hash, current_hash, read_bytes, replace_keeping_appends
from ..home.cursors import read_cursor
from ..home.history import append_entry, read_history
from ..llm import Cancelled, LLMClient, LLMError
from ..core.problems import WorkspaceError
from ..assistants.prompt import build_prompt
from ..core.rules import KEEP_LAST
from ..home.gateway import running_assistant
from ..core.state import workspace_state_dir
from ..assistants.sessions import OFFSET_KEYS, Session, archivable, assistant_session_lock, find_sessions, read_session
from ..core.tokens import estimate_tokens
from ..home.workspace import Workspace

RAW_PART_CHARS = 16_000      # a [RAW] entry is split into parts of at most this many characters
SAFETY_TOKENS = 1024
NOTHING = "(nothing)"

SUMMARY_PROMPT = """You compact part of a chat between a user and their assistant into durable notes for \
the assistant's long-term memory. Write markdown bullet points, one fact per line, each starting with a tag:
[permanent] identity and facts that will not change; [durable] preferences, decisions, projects that hold \
for a while; [ephemeral] one-off requests and passing details; [correction] a fact that replaces something \
said before (say what it replaces).
Only facts the conversation states; no commentary. If nothing is worth keeping, answer exactly (nothing)."""


def _crash_point(name: str) -> None:
    # Fault injection for the crash-safety tests (a real os._exit, as a kill would do).
    if os.environ.get("DREAMDESK_CRASH_AT") == name:
        os._exit(86)


def message_text(m: dict) -> str:
    """Everything a message carries: its text, and the tool calls an assistant turn made (a turn
    with tool calls often has no text at all; "null" would lose what it did)."""
    content = m.get("content")
    if isinstance(content, list):
        content = "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    if content is None and m.get("tool_calls"):
        text = ""
    else:
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    calls = m.get("tool_calls")
    if isinstance(calls, list):
        for c in calls:
            fn = c.get("function") if isinstance(c, dict) else None
            if isinstance(fn, dict):
                text += f"\n[tool call {fn.get('name')}: {fn.get('arguments')}]"
            else:
                text += f"\n[tool call {json.dumps(c, ensure_ascii=False)}]"
        text = text.lstrip("\n")
    # an unpaired surrogate (valid JSON, not text) is kept visibly as \udXXX, never dropped
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def render_messages(msgs: list[dict]) -> str:
    lines = []
    for m in msgs:
        ts = m.get("timestamp")
        when = f" [{str(ts)[:16].replace('T', ' ')}]" if ts else ""
        lines.append(f"{str(m.get('role', '?')).upper()}{when}: {message_text(m)}")
    return "\n".join(lines)


def raw_entries(msgs: list[dict]) -> list[str]:
    """`[RAW] N messages` entries holding every character, split into `(part i/n)` parts."""
    body = render_messages(msgs)
    head = f"[RAW] {len(msgs)} messages"
    room = RAW_PART_CHARS - len(head) - 20
    if len(body) <= room:
        return [f"{head}\n{body}"]
    chunks = [body[i:i + room] for i in range(0, len(body), room)]
    return [f"{head} (part {i}/{len(chunks)})\n{c}" for i, c in enumerate(chunks, 1)]


def _parse_time(ts) -> datetime | None:
    if not isinstance(ts, str):
        return None
    try:
        t = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.astimezone()


@dataclass
class Plan:
    session: Session
    start: int               # first message index to compact (== last_consolidated)
    end: int                 # exclusive
    trigger: str             # pressure | idle | manual

    @property
    def count(self) -> int:
        return self.end - self.start


@dataclass
class CompactResult:
    session: str
    trigger: str
    messages: int
    entries: list[int] = field(default_factory=list)     # cursors written
    raw: bool = False
    nothing: bool = False
    error: str | None = None
    recovered: bool = False
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"session": self.session, "trigger": self.trigger, "messages": self.messages,
                "cursors": self.entries, "raw": self.raw, "nothing": self.nothing, "error": self.error,
                "recovered": self.recovered, "notes": self.notes}


_UNKNOWN = object()     # plan_session's `ahead` when the caller has not looked it up


def plan_session(ws: Workspace, s: Session, now: datetime, *, manual: bool = False,
                 base_tokens: int | None = None, ahead=_UNKNOWN) -> Plan | None:
    """What to compact in one session, or None. Project sessions and the assistant's own
    (its Dream transcripts) are never compacted."""
    if s.is_project or s.is_internal or s.meta_line is None:
        return None
    cfg = ws.config()
    start = min(s.last_consolidated, len(s.messages))
    start = (compacted_through(ws, s) if ahead is _UNKNOWN else ahead) or start
    live = s.messages[start:]
    if not live:
        return None
    budget = int(cfg.get("contextWindowTokens")) - int(cfg.get("maxTokens")) - SAFETY_TOKENS
    if base_tokens is None:
        hist = ws.history()
        _, dream, _ = ws.cursors()
        base_tokens = build_prompt(ws, hist, dream).total_tokens
    tokens = [estimate_tokens(message_text(m)) for m in live]
    if budget > 0 and base_tokens + sum(tokens) > budget:
        # compact the oldest messages until what stays fits consolidationRatio of the budget,
        # cutting where a user turn starts
        target = float(cfg.get("consolidationRatio")) * budget - base_tokens
        remaining = sum(tokens)
        cut = 0
        while cut < len(live) and remaining > target:
            remaining -= tokens[cut]
            cut += 1
        while cut < len(live) and live[cut].get("role") != "user":
            cut += 1
        if cut == 0:
            cut = len(live)
        return Plan(s, start, start + cut, "pressure")
    idle_min = int(cfg.get("idleCompactAfterMinutes"))
    if len(live) > KEEP_LAST:
        if manual:
            return Plan(s, start, len(s.messages) - KEEP_LAST, "manual")
        if idle_min > 0:
            last = _parse_time(s.messages[-1].get("timestamp")) if s.messages else None
            if last is not None and (now - last).total_seconds() >= idle_min * 60:
                return Plan(s, start, len(s.messages) - KEEP_LAST, "idle")
    return None


def ledger_path(ws: Workspace) -> Path:
    return workspace_state_dir(ws.root) / "compacted.json"


def _digest(msgs: list[dict]) -> str:
    h = hashlib.sha256()
    for m in msgs:
        h.update(json.dumps({k: v for k, v in m.items() if k != "_line"}, sort_keys=True,
                            ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
        h.update(b"\n")
    return h.hexdigest()


def read_ledger(ws: Workspace) -> dict:
    try:
        data = json.loads(ledger_path(ws).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _remember_compacted(ws: Workspace, s: Session, to: int) -> None:
    """What Dreamdesk compacted, in its own state: the assistant may save an older copy of the
    session over our offset, and those messages must still never be compacted twice."""
    ledger = read_ledger(ws)
    ledger[s.display] = {"key": s.key, "to": to, "digest": _digest(s.messages[:to])}
    p = ledger_path(ws)
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(p, json.dumps(ledger, ensure_ascii=False, indent=1))


def compacted_through(ws: Workspace, s: Session, ledger: dict | None = None) -> int | None:
    """How far Dreamdesk compacted this session when that is past the offset in its file (the
    assistant wrote its older offset back) and the messages are still the ones compacted."""
    e = (read_ledger(ws) if ledger is None else ledger).get(s.display)
    if not isinstance(e, dict):
        return None
    to = e.get("to")
    if not isinstance(to, int) or isinstance(to, bool) or not s.last_consolidated < to <= len(s.messages):
        return None
    return to if e.get("digest") == _digest(s.messages[:to]) else None


def journal_path(ws: Workspace) -> Path:
    return workspace_state_dir(ws.root) / "consolidator-journal.json"


LEGACY_JOURNAL = "memory/.consolidator-journal.json"   # where Dreamdesk 0.1 kept it


def _pending_journal(ws: Workspace) -> tuple[Path, str]:
    """The journal to finish, and how to name it: a legacy one in memory/ first."""
    legacy = ws.root / LEGACY_JOURNAL
    if legacy.exists():
        return legacy, LEGACY_JOURNAL
    jp = journal_path(ws)
    return jp, f"the compaction journal ({jp})"


def _set_last_consolidated(s: Session, expected_from: int, to: int) -> None:
    # nanobot 0.3.5 loads and saves a session only under its folder's `.session-files.lock`
    # (a flock, like ours): holding it, our metadata rewrite never interleaves with its save.
    lock = assistant_session_lock(s.path)
    if lock is None:
        return _rewrite_offset(s, expected_from, to)
    with FileLock(lock, timeout=30, what="the assistant's session lock"):
        # it may have started during a slow summary: then its copy would overwrite ours. The
        # entries already appended stay; the journal finishes the offset once it has stopped.
        pid = running_assistant(lock.parent.parent.parent)
        if pid is not None:
            raise WorkspaceError(f"{s.display}: the assistant started meanwhile (pid {pid}); the offset is "
                                 "moved once it has stopped (the summary is already in history)")
        return _rewrite_offset(s, expected_from, to)


def _rewrite_offset(s: Session, expected_from: int, to: int) -> None:
    """Rewrite only the session's metadata line, if nobody consolidated it meanwhile. Both offset
    fields are written, as the assistant writes them: it reads `last_archived` first, and an
    older release reads `last_consolidated`."""
    data = read_bytes(s.path)
    fresh = read_session(s.path, s.display)
    if fresh.meta_line is None:
        raise WorkspaceError(f"{s.display}: the metadata line is gone; not updating it")
    if fresh.last_consolidated != expected_from:
        if fresh.last_consolidated >= to:
            return  # already advanced (by the assistant or an earlier recovery)
        raise WorkspaceError(f"{s.display}: last_consolidated moved from {expected_from} to "
                             f"{fresh.last_consolidated} meanwhile; not overwriting it")
    lines = data.split(b"\n")
    meta = dict(fresh.metadata)
    for key in OFFSET_KEYS:
        meta[key] = to
    lines[fresh.meta_line - 1] = json.dumps(meta, ensure_ascii=False).encode("utf-8")
    # the assistant may append a message right now: keep it (see replace_keeping_appends)
    if not replace_keeping_appends(s.path, data, b"\n".join(lines)):
        raise ConflictError(s.display, content_hash(data), current_hash(s.path))


def _last_cursor(ws: Workspace) -> int:
    """The cursor history.jsonl has reached (what the next append builds on)."""
    entries = read_history(ws.history_path).entries
    cur, _ = read_cursor(ws.memory_dir / ".cursor", "memory/.cursor")
    return max([cur] + [e.cursor for e in entries[-1:]])


def _entry_key(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


class _JournalEntry(msgspec.Struct):
    content: str
    timestamp: str


class _Journal(msgspec.Struct):
    """The journal's shape, as compact() writes it. after_cursor, trigger and raw are read
    leniently: a journal without them still finishes (as one from Dreamdesk 0.1 does)."""
    path: str
    display: str
    start: int = msgspec.field(name="from")
    to: int
    entries: list[_JournalEntry]
    key: str | None = None
    trigger: object = "recovered"
    raw: object = False
    after_cursor: object = -1


def _load_journal(ws: Workspace, obj: object) -> tuple[_Journal | None, str | None]:
    """The journal, or why it cannot be finished."""
    try:
        j = msgspec.convert(obj, _Journal)
    except msgspec.ValidationError as exc:
        return None, str(exc)
    sessions = os.path.realpath(ws.home / "sessions") if ws.home else None
    real = os.path.realpath(j.path)
    if sessions is None or not real.startswith(sessions + os.sep):
        return None, "its session file is not under the home's sessions/ folder"
    if not 0 <= j.start <= j.to:
        return None, "its message range is impossible"
    return j, None


def recover(ws: Workspace) -> CompactResult | None:
    """Finish an interrupted compaction from its journal (see the module docstring)."""
    jp, named = _pending_journal(ws)
    try:
        obj = json.loads(jp.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise WorkspaceError(f"{named} is unreadable ({exc}); "
                             "move it aside after checking memory/history.jsonl") from None
    j, why = _load_journal(ws, obj)
    if j is None:
        raise WorkspaceError(f"{named} is not usable ({why}); move it aside after "
                             "checking memory/history.jsonl")
    # Only entries appended after the journal was written can be this compaction's: an older
    # entry with the same text (an identical summary weeks ago) must not stand in for one.
    after = j.after_cursor if type(j.after_cursor) is int else -1
    present = {}
    for e in read_history(ws.history_path).entries:
        if e.cursor > after:
            present.setdefault(_entry_key(e.content), []).append(e.cursor)
    written: list[int] = []
    for item in j.entries:
        hits = present.get(_entry_key(item.content))
        if hits:
            written.append(hits.pop(0))
        else:
            written.append(append_entry(ws.memory_dir, item.content, j.key, item.timestamp).entry.cursor)
    s = read_session(Path(j.path), j.display)
    _set_last_consolidated(s, j.start, j.to)
    _remember_compacted(ws, s, j.to)
    jp.unlink(missing_ok=True)
    return CompactResult(j.key or "", j.trigger, j.to - j.start, written, j.raw, False, None, True)


def compact(ws: Workspace, plan: Plan, client: LLMClient | None, cancel: threading.Event | None = None,
            now: datetime | None = None) -> CompactResult:
    """Summarise plan's messages into history.jsonl (or [RAW] entries on any model failure)."""
    now = now or datetime.now().astimezone()
    msgs = [m for m in plan.session.messages[plan.start:plan.end] if archivable(m)]
    result = CompactResult(plan.session.key, plan.trigger, plan.count)
    contents: list[str] = []
    if not msgs:
        result.nothing = True     # only command turns: nothing for memory, the offset still moves
    elif client is None:
        result.error = "no model configured"
    else:
        try:
            comp = client.complete([{"role": "system", "content": SUMMARY_PROMPT},
                                    {"role": "user", "content": render_messages(msgs)}], [], cancel)
            text = (comp.content or "").strip()
            if not text:
                raise LLMError("the model answered with an empty summary")
            if text == NOTHING:
                result.nothing = True
            else:
                contents = [text[i:i + RAW_PART_CHARS] for i in range(0, len(text), RAW_PART_CHARS)]
        except Cancelled:
            raise
        except LLMError as exc:
            result.error = str(exc)
    if result.error is not None:
        contents = raw_entries(msgs)
        result.raw = True
    ts = clock.history_stamp(now, clock.home_zone(ws.config()))   # in the zone the assistant stamps in
    journal = {"path": str(plan.session.path), "display": plan.session.display, "key": plan.session.key,
               "from": plan.session.last_consolidated, "to": plan.end, "trigger": plan.trigger, "raw": result.raw,
               "after_cursor": _last_cursor(ws),
               "entries": [{"content": c, "timestamp": ts} for c in contents]}
    jp = journal_path(ws)
    jp.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(jp, json.dumps(journal, ensure_ascii=False))
    _crash_point("after-journal")
    for c in contents:
        appended = append_entry(ws.memory_dir, c, plan.session.key, ts)
        result.entries.append(appended.entry.cursor)
        if appended.collided_with is not None:
            result.notes.append(f"the assistant wrote history cursor {appended.collided_with} at the same moment; "
                                f"Dreamdesk's entry moved to {appended.entry.cursor}")
        _crash_point("after-history-append")
    _set_last_consolidated(plan.session, plan.session.last_consolidated, plan.end)
    _crash_point("after-offset")
    _remember_compacted(ws, plan.session, plan.end)
    _crash_point("after-session-update")
    journal_path(ws).unlink(missing_ok=True)
    return result


def run_consolidator(ws: Workspace, client: LLMClient | None, *, only: str | None = None, manual: bool = False,
                     cancel: threading.Event | None = None, now: datetime | None = None,
                     log: Callable[[str], None] | None = None) -> list[CompactResult]:
    """One pass over the sessions: recover an interrupted run, then compact what is due. The
    client is closed when the pass ends (its connection and thread end with it)."""
    try:
        return _consolidate(ws, client, only, manual, cancel, now, log)
    finally:
        if client is not None:
            client.close()


def _compaction_folders(ws: Workspace) -> list[Path]:
    """Where a compaction writes outside the workspace: Dreamdesk's state for it (the journal,
    the ledger) and the session folders (the offset rewrite). A kill there leaves a temp file
    that the workspace's own sweep never sees."""
    folders = [workspace_state_dir(ws.root)]
    sdir = ws.home / "sessions" if ws.home else None
    if sdir is not None and sdir.is_dir():
        folders += [sdir] + [d for d in sdir.iterdir() if d.is_dir() and not d.is_symlink()]
    return folders


def _consolidate(ws: Workspace, client: LLMClient | None, only: str | None, manual: bool,
                 cancel: threading.Event | None, now: datetime | None,
                 log: Callable[[str], None] | None) -> list[CompactResult]:
    now = now or datetime.now().astimezone()
    log = log or (lambda m: None)
    results: list[CompactResult] = []
    sweep_stale_temps(ws.root, folders=_compaction_folders(ws))
    rec = recover(ws)
    if rec:
        log(f"recovered an interrupted compaction of {rec.session}: {len(rec.entries)} entr(ies) in place")
        results.append(rec)
    hist = ws.history()
    _, dream, _ = ws.cursors()
    base = build_prompt(ws, hist, dream).total_tokens
    assistant_pid = running_assistant(ws.home)
    ledger = read_ledger(ws)
    for s in find_sessions(ws.home, ws.root):
        if only and s.key != only:
            continue
        ahead = compacted_through(ws, s, ledger)
        if ahead is not None:
            log(f"{s.key}: the assistant saved an older copy of this session (offset {s.last_consolidated}); "
                f"its first {ahead} messages were already compacted by Dreamdesk and are not compacted again")
        if s.is_project or s.is_internal:
            if only:
                log(f"{s.key}: " + ("a project conversation never feeds personal memory" if s.is_project
                                    else "the assistant's own Dream transcript, which it never compacts")
                    + "; not compacted")
            continue
        plan = plan_session(ws, s, now, manual=manual, base_tokens=base, ahead=ahead)
        if plan is None:
            continue
        if assistant_pid is not None and assistant_session_lock(s.path) is not None:
            log(f"{s.key}: not compacted while the assistant is running (nanobot gateway, pid {assistant_pid}): "
                "it keeps this session in memory and would write its older offset back, archiving the same "
                "messages again. Stop it first, or let it compact its own sessions")
            continue
        r = compact(ws, plan, client, cancel, now)
        what = "nothing worth keeping" if r.nothing else (
            f"[RAW] fallback ({r.error})" if r.raw else f"summary -> cursor {r.entries}")
        log(f"{s.key}: compacted {r.messages} message(s) on {plan.trigger}: {what}")
        results.append(r)
    return results


def compact_now(ws: Workspace, client: LLMClient | None, *, only: str | None = None,
                cancel: threading.Event | None = None,
                log: Callable[[str], None] | None = None) -> list[CompactResult]:
    """"Compact now" (the CLI's `compact`, the GUI's button): a manual pass under the workspace's
    job lock, as every job takes it (another Dreamdesk, `serve`); a held lock raises LockHeld."""
    from ..recovery.job_lock import job_lock
    with job_lock(ws):
        return run_consolidator(ws, client, only=only, manual=True, cancel=cancel, log=log)


def nothing_to_compact() -> str:
    return f"Nothing to compact: every session keeps at most its last {KEEP_LAST} messages live."
