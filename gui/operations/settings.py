"""Settings a person sets in the window, through engine/ops/settings.py: config.json's keys (Settings
→ Memory's Apply), re-applying and forgetting lost ones (the Dashboard), Dream's scope and token
ceiling (Settings → Memory), a pass's instructions (Dream → Edit Dream Prompts…)."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.ops import settings as op

from ..context.worker import Job
from .run import Initiator, run_op


def set_settings(by: Initiator, ws: Workspace, updates: dict[str, Any], confirm_below_floor: bool,
                 **on: Any) -> Job:
    return run_op(by, "apply settings",
                  lambda ctx, who: op.set_settings(ws, updates, who, confirm_below_floor=confirm_below_floor),
                  failure="Settings not written", **on)


def set_own_settings(by: Initiator, ws: Workspace, updates: dict[str, Any], **on: Any) -> Job:
    """The assistant's own settings in its own config (OpenClaw's openclaw.json), in one write."""
    return run_op(by, "apply the assistant's settings", lambda ctx, who: op.set_own_settings(ws, updates, who),
                  failure="Settings not written", **on)


def reapply(by: Initiator, ws: Workspace, **on: Any) -> Job:
    return run_op(by, "re-apply settings", lambda ctx, who: op.reapply(ws, who), failure="Not re-applied", **on)


def forget(by: Initiator, ws: Workspace, keys: list[str], **on: Any) -> Job:
    return run_op(by, "forget lost settings", lambda ctx, who: op.forget(ws, keys, who), failure="Not forgotten",
                  **on)


def set_ceiling(by: Initiator, ws: Workspace, tokens: int | None, **on: Any) -> Job:
    return run_op(by, "set the token ceiling", lambda ctx, who: op.set_ceiling(ws, tokens, who),
                  failure="Token ceiling not set", **on)


def change_scope(by: Initiator, ws: Workspace, area: str, on_: bool, **on: Any) -> Job:
    """Let Dreamdesk's Dream write `area` here again (`on_`), or no longer."""
    return run_op(by, "change Dream's scope",
                  lambda ctx, who: op.change_scope(ws, who, close=[] if on_ else [area], open_=[area] if on_ else []),
                  failure="Dream's scope not changed", **on)


def set_pass_prompt(by: Initiator, ws: Workspace, name: str, text: str, **on: Any) -> Job:
    return run_op(by, f"save the {name} pass's prompt", lambda ctx, who: op.set_pass_prompt(ws, name, text, who),
                  failure="Not saved", **on)
