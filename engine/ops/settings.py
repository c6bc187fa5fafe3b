"""Settings a person sets (Settings → Memory, the Dashboard's lost-settings box, the prompts
dialog, `dreamdesk config set|reapply|forget`, `scope`, `ceiling`, `prompts`): config.json's keys
through the config funnel, an assistant's own settings in its own config (OpenClaw's openclaw.json), and Dreamdesk's own per-workspace state (Dream's scope, its token
ceiling, its passes' instructions). No write when nothing changes."""

from __future__ import annotations

from typing import Any, Sequence

from ..assistants import assistant_of
from ..assistants.own_settings import OwnWrite
from ..core.problems import WorkspaceError
from ..dream import prompt_edits, write_scope
from ..home import config as config_mod, token_ceiling
from ..home.config import Config, LostSetting
from ..home.workspace import Workspace
from .result import OpResult, perform


def set_settings(ws: Workspace, updates: dict[str, Any], initiator: str, *,
                 confirm_below_floor: bool = False) -> OpResult[Config]:
    """Every key of `updates` (a CLI string or a typed value each) in one config.json write; one
    refused value writes nothing. A config.json Dreamdesk cannot read is never rewritten."""

    def work() -> Config:
        config_mod.writable(ws)
        return config_mod.write_settings(ws, updates, confirm_below_floor=confirm_below_floor,
                                         note=assistant_of(ws).config_note)

    def said(cfg: Config) -> str:
        return ", ".join(f"{config_mod.find_setting(k).name} = {v}" for k, v in updates.items()) + \
            f" written to {cfg.path}"

    return perform(ws, "set settings", initiator, work, said)


def set_own_settings(ws: Workspace, updates: dict[str, Any], initiator: str) -> OpResult[OwnWrite]:
    """The home's assistant's own settings (OpenClaw's caps and dreaming), each of `updates` in one
    write to its own config; one refused value writes nothing; values already in effect write nothing."""
    return perform(ws, "set the assistant's own settings", initiator,
                   lambda: assistant_of(ws).write_own_settings(ws, updates), lambda w: w.said())


def reapply(ws: Workspace, initiator: str) -> OpResult[tuple[Config, list[LostSetting]]]:
    """Write back what config.json lost of what Dreamdesk wrote (only because it was asked)."""
    return perform(ws, "re-apply settings", initiator, lambda: config_mod.reapply(ws),
                   lambda got: f"Re-applied {len(got[1])} setting(s) to config.json" if got[1]
                   else "Nothing to re-apply: config.json holds every setting Dreamdesk wrote")


def forget(ws: Workspace, keys: list[str] | None, initiator: str) -> OpResult[list[str]]:
    """Stop remembering these lost settings (all: None); config.json is not touched."""
    return perform(ws, "forget lost settings", initiator, lambda: config_mod.forget(ws, keys),
                   lambda gone: f"Forgot {len(gone)} setting(s); config.json untouched" if gone
                   else "Nothing to forget.")


def set_ceiling(ws: Workspace, tokens: int | None, initiator: str) -> OpResult[int | None]:
    """Each Dreamdesk Dream run here stops after `tokens` (None: no ceiling)."""

    def work() -> int | None:
        try:
            if token_ceiling.load(ws.root) == tokens:
                return tokens                  # no change, no write
        except WorkspaceError:
            pass                               # an unreadable file: the new value replaces it
        return token_ceiling.save(ws.root, tokens)

    return perform(ws, "set the token ceiling", initiator, work,
                   lambda t: f"Each of Dreamdesk's Dream runs here now stops after {t:,} tokens" if t
                   else "Dreamdesk's Dream runs here have no token ceiling now")


def change_scope(ws: Workspace, initiator: str, *, close: Sequence[str] = (),
                 open_: Sequence[str] = ()) -> OpResult[write_scope.Scope]:
    """Close areas to Dreamdesk's Dream here, or open them again (SOUL.md, USER.md, MEMORY.md, skills)."""
    said = [f"no longer write {', '.join(close)}"] if close else []
    said += [f"again write {', '.join(open_)}"] if open_ else []
    return perform(ws, "change Dream's scope", initiator, lambda: write_scope.change(ws.root, list(close), list(open_)),
                   lambda scope: f"Dreamdesk's Dream may {' and '.join(said)} in this workspace" if said
                   else scope.describe())


def set_pass_prompt(ws: Workspace, name: str, text: str, initiator: str) -> OpResult[prompt_edits.PassPrompt]:
    """A Dream pass's instructions for this workspace (its default's text puts the default back)."""
    return perform(ws, f"save the {name} pass's prompt", initiator, lambda: prompt_edits.set_pass(ws.root, name, text),
                   lambda p: f"Saved: the {name} pass now uses {prompt_edits.SOURCE_WORDS[p.source]}.")


def reset_pass_prompt(ws: Workspace, name: str, initiator: str) -> OpResult[prompt_edits.PassPrompt]:
    return perform(ws, f"reset the {name} pass's prompt", initiator, lambda: prompt_edits.reset_pass(ws.root, name),
                   lambda p: f"The {name} pass now uses {prompt_edits.SOURCE_WORDS[p.source]}.")
