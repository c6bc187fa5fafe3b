"""Which assistant wrote a home, and its adapter: the only place that knows what a given
assistant does with its home. Reading only; cheap enough for every status read (no git process,
a few stats and one small read).

Each adapter (base.Assistant's subclasses) answers for its assistant; ADAPTERS are asked in
order whether the home is theirs (each with its signs, in words); with none, the home is read
as the contract describes it (Jenny-style). `open_home` opens a folder the way its assistant
lays its home out (OpenClaw: engine/home/layout.py's value for it), else as the contract's.
docs/architecture.md says how to add one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from ..core.problems import WorkspaceError
from ..home.workspace import Workspace, refuse_writes
from .base import Assistant
from .jenny import Jenny
from .nanobot import Nanobot, is_nanobot_template
from .openclaw import OpenClaw

JENNY, NANOBOT, OPENCLAW = Jenny.kind, Nanobot.kind, OpenClaw.kind
ADAPTERS: tuple[type[Assistant], ...] = (OpenClaw, Nanobot)
__all__ = ["ADAPTERS", "Assistant", "JENNY", "NANOBOT", "OPENCLAW", "assistant_of", "detect_assistant",
           "is_nanobot_template", "jobs_refused", "open_home", "refuse_jobs", "watch_refused"]
_NONE_FOUND = ("no sign of OpenClaw or nanobot (no openclaw.json or state/openclaw.sqlite, no "
               ".nanobot/workspace-id, no nanobot session layout, config keys or templates): read as the "
               "contract describes a Jenny-style home",)


def detect_assistant(root: Path, home: Path | None, config_raw: dict | None) -> Assistant:
    config = config_raw if isinstance(config_raw, dict) else {}
    for adapter in ADAPTERS:
        detect = getattr(adapter, "detect")
        found = detect(Path(root), Path(home) if home else None, config)
        if found is not None:
            return found
    return Jenny(_NONE_FOUND)


def assistant_of(ws, config_raw: dict | None = None) -> Assistant:
    """The assistant of an open Workspace (`config_raw`: its config when already read)."""
    if config_raw is None:
        config_raw = ws.config().raw
    config = config_raw if isinstance(config_raw, dict) else {}
    for adapter in ADAPTERS:
        found = adapter.of_workspace(ws, config)
        if found is not None:
            return found
    return Jenny(_NONE_FOUND)


def open_home(path: str | os.PathLike, agent: str | None = None, env: Mapping[str, str] | None = None) -> Workspace:
    """Open the folder a person gave as the home it is: each adapter is asked whether it is its
    assistant's (OpenClaw's: a state folder, a profile's, its openclaw.json, or an agent's
    workspace; OPENCLAW_* in `env`), `agent` choosing among its agents; else the contract's
    Workspace.open. Reads only; raises WorkspaceError in words."""
    p = Path(path).expanduser()
    if p.exists():
        for adapter in ADAPTERS:
            ws = adapter.open_home(p, agent, env)
            if ws is not None:
                return ws
    if agent is not None:
        raise WorkspaceError(f"{path}: --agent is for an OpenClaw home, and this is none")
    return Workspace.open(path)


def jobs_refused(ws) -> str | None:
    """Why Dreamdesk's own Dream, Compact, scheduling and watch do not run on this home, in
    words (the home's assistant does that work itself); None: they may."""
    try:
        assistant = assistant_of(ws)
    except Exception:        # an unreadable config says nothing about the assistant: the contract's home
        return None
    return None if assistant.runs_dreamdesk_jobs else assistant.jobs_refused


def watch_refused(ws) -> str | None:
    """Why Dreamdesk's watch does not run on this home, in words; None: it may."""
    try:
        assistant = assistant_of(ws)
    except Exception:        # an unreadable config says nothing about the assistant: the contract's home
        return None
    return None if assistant.watches else assistant.jobs_refused


def refuse_jobs(ws) -> None:
    """Raise WorkspaceError, in words, when Dreamdesk's own jobs do not run on this home."""
    why = jobs_refused(ws)
    if why:
        raise WorkspaceError(why)


def _assistants_refusal(ws: Workspace, rel: str) -> str | None:
    """The home's assistant asked before every write (engine/home/workspace.refuse_writes)."""
    try:
        who = assistant_of(ws)
    except WorkspaceError:
        return None          # an unreadable config: the contract's home, which refuses nothing
    return who.write_refusal(ws, rel)


refuse_writes(_assistants_refusal)
