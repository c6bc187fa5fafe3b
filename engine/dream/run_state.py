"""memory/dreams/state.json: what Dream carries from one run to the next (held batches,
refusal streaks, the last run). Its own module: the scheduler and the views read it without
loading the Dream run itself."""

from __future__ import annotations

import json

from ..core import redact
from ..assistants.home_repo import hide_own_files
from ..disk.files import atomic_write_text, read_bytes
from ..home.workspace import Workspace
from .runtypes import RunState, decode_state, state_json


def state_path(ws: Workspace):
    return ws.dreams_dir / "state.json"


def read_state(ws: Workspace) -> RunState:
    """memory/dreams/state.json: a missing or unreadable file reads as a fresh state."""
    try:
        return decode_state(json.loads(read_bytes(state_path(ws)).decode("utf-8")))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return RunState()


def load_state(ws: Workspace) -> dict:
    """The state as JSON, for readers outside the run (scheduler, views)."""
    return state_json(read_state(ws))


def save_state(ws: Workspace, st: RunState | dict) -> None:
    """Write the state (a dict, as the demo's history holds one, is read as the file would be)."""
    body = state_json(st if isinstance(st, RunState) else decode_state(st))
    hide_own_files(ws)
    atomic_write_text(state_path(ws), redact.scrub(json.dumps(body, indent=2, ensure_ascii=False)) + "\n")
