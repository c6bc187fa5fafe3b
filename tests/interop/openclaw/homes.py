"""The homes, built by the real OpenClaw step by step, and the oracles captured while building
them (what its model received, what each dreaming sweep changed, its own listings).

- fresh: set up and onboarded, then one real turn.
- dreamed: hand-written MEMORY.md, USER.md directives (active and superseded), daily notes
  (plain and slugged); recalls recorded by `memory search`; a dreaming sweep (all added), a
  `memory promote --apply`, a second sweep (one candidate merged with a hand-written entry),
  recalls left for the next sweep, one real private turn.
- over-cap: bootstrapMaxChars lowered to 6,000 through OpenClaw's own config command, MEMORY.md
  over it and USER.md over its 4,000, then one real turn (both cut 75/25 in the prompt).
- over-total: bootstrapTotalMaxChars lowered to 10,000; the files before MEMORY.md use most of
  it, MEMORY.md is cut to what is left.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from .driver import OpenClawHome
from .model import OpenClawModel, Rule
from .oracles import consolidation_history, line_diff, project_context

OVER_CAP_MAX_CHARS = 6000


@dataclass
class BuiltHome:
    name: str
    oc: OpenClawHome
    today: str
    oracles: dict = field(default_factory=dict)


def days(today: dt.date) -> dict:
    return {f"D{n}": (today - dt.timedelta(days=n)).isoformat() for n in range(8)}


def start(launcher: str, user: Path, model: OpenClawModel) -> OpenClawHome:
    oc = OpenClawHome(launcher, user)
    oc.setup()
    oc.onboard(model.url)
    return oc


def private_turn(oc: OpenClawHome, model: OpenClawModel, message: str = "What do you remember about me?") -> str:
    """One real private turn (the main session); the Project Context its model received."""
    before = len(model.prompts())
    oc.agent_turn(message)
    prompts = model.prompts()
    assert len(prompts) > before, "OpenClaw's turn did not reach the loopback model"
    return project_context(prompts[-1])


def build_fresh(launcher: str, user: Path, model: OpenClawModel) -> BuiltHome:
    oc = start(launcher, user, model)
    built = BuiltHome("fresh", oc, dt.date.today().isoformat())
    built.oracles["project_context"] = private_turn(oc, model, "Hello!")
    built.oracles["memory_status"] = oc.status()
    return built


USER_MD = """# USER.md - User Model

## Directives

<!-- observed: {D6} | status: superseded -->

- Prefer coffee with every morning check-in.

<!-- observed: {D2} | status: active -->

- Prefer green tea; never suggest coffee after noon.

<!-- observed: {D3} | status: active -->

- Always give the command first, then one line of explanation.
"""

MEMORY_MD = """# Memory

- The user's team ships Project Apollo.
- The user prefers green tea in the afternoon.
- Deploys happen on Tuesdays only.
"""

NOTES = {
    "memory/{D2}.md": "# {D2}\n\n- Kubernetes cluster upgrade is blocked on the storage driver.\n"
                      "- Booked the Lisbon offsite for May 12.\n",
    "memory/{D1}.md": "# {D1}\n\n- Decided to move the Apollo launch to March 14 after the vendor delay.\n",
    "memory/{D0}.md": "# {D0}\n\n- Storage driver patch landed; cluster upgrade can proceed.\n",
    "memory/{D0}-standup.md": "- The user prefers green tea in the afternoon.\n",
    "memory/{D1}-retro.md": "# Retro {D1}\n\n- The on-call rotation moves to a weekly handover on Mondays.\n",
}

# each note's recalls: three different queries each (OpenClaw's thresholds: 3 recalls, 3 unique queries)
QUERIES = {
    "first": ["Kubernetes storage driver blocked", "Lisbon offsite booking", "Apollo launch vendor delay",
              "when is the Apollo launch", "cluster upgrade blocker"],
    "apply": ["storage driver patch landed", "can the cluster upgrade proceed", "driver patch status"],
    "merge": ["green tea afternoon", "what does the user drink in the afternoon", "tea preference"],
    "left": ["on-call rotation handover", "weekly handover Mondays", "who is on call",
             "on-call rotation change", "when is the on-call handover"],
}


def write_dreamed_files(oc: OpenClawHome, d: dict) -> None:
    oc.write("USER.md", USER_MD.format(**d))
    oc.write("MEMORY.md", MEMORY_MD)
    for rel, text in NOTES.items():
        if "retro" not in rel:
            oc.write(rel.format(**d), text.format(**d))


def sweep(gw, oc: OpenClawHome, job_id: str) -> dict:
    """One real dreaming sweep, with the MEMORY.md change it made."""
    memory = oc.workspace / "MEMORY.md"
    before = memory.read_text(encoding="utf-8")
    gw.run_job(job_id)
    after = memory.read_text(encoding="utf-8")
    return {"memory_diff": line_diff(before, after), "memory_before": before, "memory_after": after}


def build_dreamed(launcher: str, user: Path, model: OpenClawModel) -> BuiltHome:
    oc = start(launcher, user, model)
    today = dt.date.today()
    d = days(today)
    built = BuiltHome("dreamed", oc, today.isoformat())
    write_dreamed_files(oc, d)
    oc.index()
    for q in QUERIES["first"]:
        oc.search(q)
    sweeps = []
    with oc.gateway() as gw:
        job = gw.dreaming_job()
        model.rules = []
        sweeps.append(sweep(gw, oc, job["id"]))
    for q in QUERIES["apply"]:
        oc.search(q)
    memory = (oc.workspace / "MEMORY.md").read_text(encoding="utf-8")
    built.oracles["promote_apply"] = oc.promote(apply=True)
    built.oracles["promote_apply_diff"] = line_diff(memory, (oc.workspace / "MEMORY.md").read_text(encoding="utf-8"))
    oc.index()
    for q in QUERIES["merge"]:
        oc.search(q)
    with oc.gateway() as gw:
        model.rules = [Rule("green tea in the afternoon", "merged", "green tea in the afternoon")]
        sweeps.append(sweep(gw, oc, job["id"]))
        model.rules = []
        built.oracles["cron_job"] = gw.dreaming_job()
    history = consolidation_history((oc.workspace / "DREAMS.md").read_text(encoding="utf-8"))
    built.oracles["sweeps"] = {"history": history, "sweeps": sweeps}
    oc.write(f"memory/{d['D1']}-retro.md", NOTES["memory/{D1}-retro.md"].format(**d))
    oc.index()
    for q in QUERIES["left"]:
        oc.search(q)
    built.oracles["promote_dry"] = oc.promote()
    built.oracles["project_context"] = private_turn(oc, model)
    built.oracles["memory_status"] = oc.status()
    return built


def over_cap_memory() -> str:
    lines = ["# Memory", ""]
    for i in range(1, 61):
        lines.append(f"- Fact {i:02d}: the build server rack {i} keeps its spare disks in drawer {i % 7}, "
                     f"labelled with the asset tag RK-{1000 + i} and checked every {i % 5 + 1} weeks.")
    return "\n".join(lines) + "\n"


def over_cap_user(d: dict) -> str:
    lines = ["# USER.md - User Model", "", "## Directives", ""]
    for i in range(1, 31):
        status = "superseded" if i % 6 == 0 else "active"
        lines += [f"<!-- observed: {d['D' + str(i % 7)]} | status: {status} -->", "",
                  f"- Prefer rule {i:02d}: answer questions about topic {i} with a short table, "
                  f"cite the runbook page {i * 3}, and end with one next step.", ""]
    return "\n".join(lines)


def build_over_cap(launcher: str, user: Path, model: OpenClawModel) -> BuiltHome:
    oc = start(launcher, user, model)
    today = dt.date.today()
    built = BuiltHome("over-cap", oc, today.isoformat())
    oc.config_set("agents.defaults.bootstrapMaxChars", str(OVER_CAP_MAX_CHARS))
    oc.write("MEMORY.md", over_cap_memory())
    oc.write("USER.md", over_cap_user(days(today)))
    built.oracles["project_context"] = private_turn(oc, model)
    built.oracles["memory_status"] = oc.status()
    return built


OVER_TOTAL_MAX_CHARS = 10000


def build_over_total(launcher: str, user: Path, model: OpenClawModel) -> BuiltHome:
    """Every file under its own cap, their sum over bootstrapTotalMaxChars (10,000): the files
    that come first use it up, MEMORY.md gets what is left (cut 75/25 to that)."""
    oc = start(launcher, user, model)
    today = dt.date.today()
    built = BuiltHome("over-total", oc, today.isoformat())
    oc.config_set("agents.defaults.bootstrapTotalMaxChars", str(OVER_TOTAL_MAX_CHARS))
    oc.write("MEMORY.md", over_cap_memory())
    oc.write("USER.md", USER_MD.format(**days(today)))
    built.oracles["project_context"] = private_turn(oc, model)
    built.oracles["memory_status"] = oc.status()
    return built


RECIPES = {"fresh": build_fresh, "dreamed": build_dreamed, "over-cap": build_over_cap, "over-total": build_over_total}
