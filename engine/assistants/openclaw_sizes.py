"""An OpenClaw workspace's files against the limits that really apply to them, and its prompt
preview, both from openclaw_bootstrap's preview of a private session (issue 28 items 2-3): each
bootstrap file against its cap (USER.md's 4,000, what is left of the total), MEMORY.md also
against the promotion budget of OpenClaw's dreaming, the total against bootstrapTotalMaxChars,
and the entries that fall into the 75/25 cut. Sizes are OpenClaw's: UTF-16 units of the file
with its trailing whitespace trimmed. Daily notes and DREAMS.md are listed, never capped."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from ..core import clock
from ..core.problems import Problem
from ..core.rules import OVER, budget_state
from ..disk.files import read_bytes
from ..home.budgets import CutEntry, FileSize, Limit, Sizes, Total
from ..home.layout import DAILY
from ..home.workspace import MemoryFile, Workspace
from . import openclaw_bootstrap as ob
from .openclaw_home import section
from .openclaw_jsstr import trim_end, u16len
from .openclaw_setup import setup_completed
from .prompt_parts import PromptPart, PromptPreview

if TYPE_CHECKING:
    from .openclaw import OpenClaw

PROMOTION_MAX_CHARS = 10_000        # DEFAULT_MEMORY_FILE_MAX_CHARS (dist/memory-budget-*.mjs)
TOTAL_NAME = "All bootstrap files (a private session)"
_CUT_RULE = ("over it, OpenClaw injects the first 75 % and the last 25 % around a truncation marker "
             "(AGENTS.md: 45 % head, a digest of its policy lines, 15 % tail); the file itself is never changed")
_NOT_CAPPED = {
    DAILY: "a daily note: not in the system prompt; today's and yesterday's lead the first message of a /new "
             "session (1,200 characters a note, 2,800 in all)",
    "dreams": "OpenClaw's dream diary: not injected",
    "tools": "not injected by OpenClaw 2026.9.x",
    "heartbeat": "not injected by OpenClaw 2026.9.x (read by its heartbeat job)",
    "bootstrap": "not injected: OpenClaw drops BOOTSTRAP.md once the workspace's setup is completed",
}


def now_ms() -> float:
    """Now, or noon (UTC) of $DREAMDESK_TODAY when a test pins the day: /new's notes are today's."""
    if os.environ.get(clock.TODAY_ENV, "").strip():
        day = clock.today()
        return datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc).timestamp() * 1000
    return time.time() * 1000


def preview(oc: OpenClaw, ws: Workspace, new_session: bool = False) -> ob.Preview:
    """What OpenClaw sends of this workspace at the start of a private session (its main chat)."""
    return ob.preview(ws.root, oc.config, oc.agent, new_session=new_session,
                      setup_completed=setup_completed(oc.state_dir, ws.root), now_ms=now_ms())


# -- sizes ----------------------------------------------------------------------------------------
def sizes(oc: OpenClaw, ws: Workspace) -> Sizes:
    pv = preview(oc, ws)
    injected = {f.source.name: f for f in pv.files if not f.source.personal}
    files: list[FileSize] = []
    problems = [Problem(ws.config_display, p) for p in oc.problems]
    for mf in ws.memory_files():
        if mf.kind == DAILY:          # listed as plain files: their length is all (a home may hold hundreds)
            files.append(_note_size(ws, mf))
            continue
        state, probs = ws.read_file(mf.path)
        problems.extend(probs)
        length = u16len(trim_end(state.text)) if state.exists else 0
        inj = injected.get(mf.path)
        if inj is not None:
            files.append(_injected(oc, mf, inj, pv, state.exists))
        elif mf.path in ob.FILE_NAMES and mf.kind != "bootstrap":
            files.append(FileSize(mf.path, mf.kind, state.exists, length, pv.limits.max_chars, budget_state(
                length, pv.limits.max_chars), _cap_key(oc), _limits(oc, mf.path, pv.limits, None), (),
                "missing: OpenClaw injects nothing for it" if not state.exists else ""))
        else:
            files.append(FileSize(mf.path, mf.kind, state.exists, length, 0, budget_state(length, 0), None,
                                  note=_NOT_CAPPED.get(mf.kind, "")))
    return Sizes(files, [_total(oc, pv)], problems)


def _note_size(ws: Workspace, mf: MemoryFile) -> FileSize:
    try:
        length = u16len(trim_end(read_bytes(ws.root / mf.path).decode("utf-8", "replace")))
    except OSError:
        length = 0          # gone since it was listed: the next read lists it no more
    return FileSize(mf.path, mf.kind, True, length, 0, budget_state(length, 0), None, note=_NOT_CAPPED[DAILY])


def _left_before(pv: ob.Preview, inj: ob.Injected) -> int:
    """What the files before `inj` left of the total (a skipped file's own record says 0)."""
    used = 0
    for f in pv.files:
        if f is inj:
            break
        used += u16len(f.content) if f.content is not None else 0
    return max(0, pv.limits.total_max_chars - used)


def _injected(oc: OpenClaw, mf: MemoryFile, inj: ob.Injected, pv: ob.Preview, exists: bool) -> FileSize:
    limits = pv.limits
    if inj.content is None and inj.cap == 0 and limits.injection == "never":
        return FileSize(mf.path, mf.kind, exists, inj.length, 0, budget_state(0, 0), None, note=inj.note)
    if inj.content is None and inj.cap == 0:          # skipped: under 64 left of the total
        left = _left_before(pv, inj)
        return FileSize(mf.path, mf.kind, exists, inj.length, left, OVER if inj.length else budget_state(0, left),
                        _total_key(oc), _limits(oc, mf.path, limits, replace(inj, budget_left=left)), (), inj.note)
    binding = (_total_key(oc) if inj.cap < inj.file_cap       # what the files before it left of the total
               else None if inj.file_cap < limits.max_chars     # USER.md's 4,000: OpenClaw's own, no key sets it
               else _cap_key(oc))
    cut = tuple(CutEntry(c.entry.text, c.entry.start + 1, c.start, c.end, c.hidden, c.whole) for c in inj.cut)
    return FileSize(mf.path, mf.kind, exists, inj.length, inj.cap, budget_state(inj.length, inj.cap), binding,
                    _limits(oc, mf.path, limits, inj), cut, inj.note or ("injected whole" if inj.content else ""))


def _limits(oc: OpenClaw, path: str, limits: ob.Limits, inj: ob.Injected | None) -> tuple[Limit, ...]:
    out = [Limit("per-file cap", limits.max_chars, _cap_key(oc), _CUT_RULE)]
    if path == ob.USER:
        out.append(Limit("USER.md cap", min(limits.max_chars, ob.USER_MAX_CHARS), None,
                         "OpenClaw caps USER.md at 4,000 characters; the config can only lower it"))
    if inj is not None:
        took = limits.total_max_chars - inj.budget_left
        out.append(Limit("left of the total", inj.budget_left, _total_key(oc),
                         f"{limits.total_max_chars:,} for all bootstrap files; the files before this one took "
                         f"{took:,}"))
    if path == ob.MEMORY:
        out.append(Limit("promotion budget", promotion_budget(oc.config, oc.agent), None,
                         "past it, OpenClaw's dreaming drops the oldest generated 'Promoted From Short-Term "
                         "Memory' sections when it next appends"))
    return tuple(out)


def _total(oc: OpenClaw, pv: ob.Preview) -> Total:
    whole = sum(f.length for f in pv.files)
    injected = pv.injected_chars
    note = (f"{len(pv.files)} files, {whole:,} characters together; OpenClaw injects {injected:,} of them"
            if pv.files else "no bootstrap file")
    return Total(TOTAL_NAME, whole, pv.limits.total_max_chars, budget_state(whole, pv.limits.total_max_chars),
                 _total_key(oc), note)


def _key(oc: OpenClaw, name: str) -> str:
    entry = ob.agent_entry(oc.config, oc.agent) if oc.agent else None
    if entry and entry.get(name) is not None:
        return f"agents.entries.{oc.agent}.{name}"
    return f"agents.defaults.{name}"


def _cap_key(oc: OpenClaw) -> str:
    return _key(oc, "bootstrapMaxChars")


def _total_key(oc: OpenClaw) -> str:
    return _key(oc, "bootstrapTotalMaxChars")


def promotion_budget(config: dict, agent: str | None) -> int:
    """resolveMemoryPromotionFileMaxChars for the agent: 10,000, or its bootstrapMaxChars (its own
    entry's, else agents.defaults') when lower."""
    own = (ob.agent_entry(config, agent) or {}) if agent else {}
    raw = own.get("bootstrapMaxChars")
    raw = section(config, "agents", "defaults").get("bootstrapMaxChars") if raw is None else raw
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw == raw and 0 < raw < float("inf"):
        return min(PROMOTION_MAX_CHARS, int(raw // 1))
    return PROMOTION_MAX_CHARS


# -- the prompt preview -------------------------------------------------------------------------------
def prompt_preview(oc: OpenClaw, ws: Workspace, new_session: bool = False) -> PromptPreview:
    """The Project Context OpenClaw sends for a private session, byte for byte, part by part
    (each bootstrap file as injected); on /new also the prelude that leads the first message."""
    pv = preview(oc, ws, new_session)
    parts = [PromptPart(_name(f), ws.rel(f.source.path), f.content or "", f.content is not None,
                        f.note or "injected whole") for f in pv.files]
    if pv.prelude is not None:
        parts.append(PromptPart("Startup context (/new)", "memory/", pv.prelude, True,
                                "leads the first user message of a /new session, not the system prompt"))
    elif new_session:
        parts.append(PromptPart("Startup context (/new)", "memory/", "", False,
                                "no daily note of today or yesterday has text (or startupContext is off)"))
    return PromptPreview(parts, 0, [], 0, text=pv.project_context, first_message=pv.prelude)


def _name(f: ob.Injected) -> str:
    return f"users/{f.source.path.parent.name}/USER.md" if f.source.personal else f.source.name
