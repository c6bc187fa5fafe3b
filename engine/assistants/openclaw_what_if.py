"""What OpenClaw's memory settings, typed and not applied, would change (issue 29 item 7): for the
caps, what the prompt would cut, computed by the code that computes the cut now
(openclaw_bootstrap.inject on the same bootstrap files, with the candidate limits): per file its
cap and the entries that would fall into the cut, and what all of them inject together, against
what they do now; for dreaming, whether it sweeps and when next. Nothing is written or read here
beyond the files the settings object read once."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..home.budgets import CutEntry
from . import openclaw_bootstrap as ob
from .openclaw_cron import CronError, next_fire
from .openclaw_jsstr import u16len
from .openclaw_runs import dreaming_zone
from .openclaw_settings import ENABLED, FREQUENCY, MAX_CHARS, PICKED_UP, TOTAL_MAX_CHARS
from .openclaw_sizes import now_ms, promotion_budget
from .own_settings import WhatIf

if TYPE_CHECKING:
    from .openclaw_config_write import OpenClawSettings

MAX_LISTED = 60          # entries listed per file in the details (the count says the rest)


def _cut(inj: ob.Injected) -> tuple[CutEntry, ...]:
    return tuple(CutEntry(c.entry.text, c.entry.start + 1, c.start, c.end, c.hidden, c.whole) for c in inj.cut)


def _state(inj: ob.Injected, cut: tuple[CutEntry, ...]) -> str:
    n = len(cut)
    if inj.content is None:
        return "left out whole"
    return f"{n} entr{'y' if n == 1 else 'ies'} in the cut" if inj.is_cut else "whole"


def _file_line(now: ob.Injected, then: ob.Injected, cut_now: tuple, cut_then: tuple, typed: bool) -> str:
    """A file's line; `typed`: the limits differ from those in effect (else it says what is now)."""
    name = now.source.name
    was, will = _state(now, cut_now), _state(then, cut_then)
    if then.content is None and then.note and was != will:
        return f"{name} ({now.length:,} chars): would be left out — {then.note} (now: {was})"
    cap = f"cap {now.cap:,}" if now.cap == then.cap or not then.cap else f"cap {now.cap:,} → {then.cap:,}"
    head = f"{name} ({now.length:,} chars), {cap}"
    if was == will:
        return f"{head}: {will}" + (", as now" if typed else "")
    if not then.is_cut:
        return f"{head}: would fit whole (now: {was})"
    n = len(cut_then)
    return f"{head}: {n} entr{'y' if n == 1 else 'ies'} would fall into the cut (now: {was})"


def _details(name: str, cut_now: tuple[CutEntry, ...], cut_then: tuple[CutEntry, ...]) -> list[str]:
    if not cut_then:
        return []
    before = {(c.line, c.text) for c in cut_now}
    out = [f"{name}: the entries that would fall into the cut"]
    for c in cut_then[:MAX_LISTED]:
        first = " ".join(c.text.split())
        first = first if len(first) <= 90 else first[:89] + "…"
        mark = "" if (c.line, c.text) in before else " (new)"
        out.append(f"  line {c.line}{'' if c.whole else ' (in part)'}{mark}: {first}")
    if len(cut_then) > MAX_LISTED:
        out.append(f"  … and {len(cut_then) - MAX_LISTED} more")
    return out


def _caps(st: OpenClawSettings, values: dict[str, Any]) -> tuple[list[str], list[str], dict]:
    """The cut with the candidate caps against the cut now, file by file and in all."""
    agent = st.oc.agent
    then_config = st.config_with(values)
    limits_now, limits_then = ob.limits_for(st.config, agent), ob.limits_for(then_config, agent)
    sources = st.sources()
    now, then = ob.inject(sources, limits_now), ob.inject(sources, limits_then)
    lines, details, files = [], [], []
    for a, b in zip(now, then):
        if a.source.content is None:
            continue
        cut_a, cut_b = _cut(a), _cut(b)
        if not (a.is_cut or b.is_cut or a.content is None or b.content is None):
            continue
        lines.append(_file_line(a, b, cut_a, cut_b, limits_now != limits_then))
        if [(c.line, c.text) for c in cut_a] != [(c.line, c.text) for c in cut_b]:
            details += _details(a.source.name, cut_a, cut_b)
        files.append({"path": a.source.name, "length": a.length, "cap_now": a.cap, "cap_then": b.cap,
                      "cut_now": len(cut_a), "cut_then": len(cut_b), "left_out_then": b.note if b.content is None
                      else None, "entries_then": [c.to_json() for c in cut_b]})
    if not lines:
        lines.append("Every bootstrap file fits its cap, now and with these values: nothing is cut")
    inj_now = sum(u16len(f.content) for f in now if f.content is not None)
    inj_then = sum(u16len(f.content) for f in then if f.content is not None)
    total = (f"{limits_now.total_max_chars:,}" if limits_now.total_max_chars == limits_then.total_max_chars
             else f"{limits_now.total_max_chars:,} → {limits_then.total_max_chars:,}")
    same = "" if limits_now == limits_then else ", as now"
    lines.append(f"All bootstrap files: {inj_now:,} → {inj_then:,} characters in the prompt (total cap {total})"
                 if inj_now != inj_then else f"All bootstrap files: {inj_now:,} characters in the prompt{same} "
                 f"(total cap {total})")
    budget_now, budget_then = promotion_budget(st.config, agent), promotion_budget(then_config, agent)
    if budget_now != budget_then:
        lines.append(f"Dreaming's promotion budget for MEMORY.md: {budget_now:,} → {budget_then:,} (past it, its next "
                     "append drops the oldest promoted sections)")
    detail = {"files": files, "injected_now": inj_now, "injected_then": inj_then,
              "total_cap_now": limits_now.total_max_chars, "total_cap_then": limits_then.total_max_chars,
              "promotion_budget_now": budget_now, "promotion_budget_then": budget_then}
    return lines, details, detail


def _dreaming(st: OpenClawSettings, values: dict[str, Any]) -> tuple[list[str], dict]:
    on = values.get(ENABLED, st.find(ENABLED).value)
    expr = values.get(FREQUENCY, st.find(FREQUENCY).value)
    if not on:
        return (["Dreaming off: no sweep runs, and OpenClaw's Gateway removes its dreaming job; MEMORY.md changes "
                 f"only by hand or by the agent. {PICKED_UP}"], {"enabled": False, "frequency": expr, "next": None})
    zone = dreaming_zone(st.config_with(values), None)
    try:
        fire = next_fire(str(expr), datetime.fromtimestamp(now_ms() / 1000, timezone.utc), zone)
    except CronError as e:
        return [f"Sweep schedule {expr!r}: {e}"], {"enabled": True, "frequency": expr, "next": None}
    when = fire.strftime("%Y-%m-%d %H:%M %Z").strip() if fire else "never within five years"
    return ([f"Dreaming on, by {expr}: next sweep {when}. {PICKED_UP}"],
            {"enabled": True, "frequency": expr, "next": fire.isoformat() if fire else None})


def what_if(st: OpenClawSettings, values: dict[str, Any]) -> WhatIf:
    """What `values` (key -> typed value; refused ones are left out) would change."""
    ok = {k: v for k, v in values.items() if st.refusal(k, v) is None}
    lines: list[str] = []
    details: list[str] = []
    detail: dict = {}
    if any(k in ok for k in (MAX_CHARS, TOTAL_MAX_CHARS)):
        lines, details, detail = _caps(st, ok)
    if any(k in ok for k in (ENABLED, FREQUENCY)):
        more, dreaming = _dreaming(st, ok)
        lines += more
        detail["dreaming"] = dreaming
    return WhatIf(tuple(lines), tuple(details), detail)
