"""The model this machine runs Dream with: config.json's choice (resolve_model), unless this
machine's own setting names one, or the workspace is the demo, whose run is recorded. The GUI
holds the setting; which model it makes, and why, is decided here as for the command line."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .resolve import ModelChoice, Overrides, resolve_model

DEMO_REPLAY = "dream-replay.jsonl"     # the demo home's recorded Dream run


@dataclass(frozen=True, slots=True)
class MachineModel:
    """This machine's model setting (kept outside the workspace, by the GUI)."""

    enabled: bool = False
    base_url: str = ""
    model: str = ""
    api_key: str = ""


def machine_overrides(ws, machine: MachineModel, demo_home: str | None) -> Overrides:
    """The setting as overrides when it is on and complete; else the demo's recorded run when
    `ws` is the demo; else none (config.json decides)."""
    if machine.enabled and machine.base_url and machine.model:
        return Overrides(model=machine.model, base_url=machine.base_url, api_key=machine.api_key or None,
                         origin="this machine's model setting")
    if demo_home and ws.home and os.path.realpath(ws.home) == os.path.realpath(demo_home):
        replay = Path(demo_home) / DEMO_REPLAY
        if replay.is_file():
            return Overrides(replay=str(replay), origin="the demo workspace")
    return Overrides()


def choose_for_machine(ws, machine: MachineModel, demo_home: str | None) -> tuple[ModelChoice, str]:
    """(the choice, the API key); raises LLMError when no model is configured."""
    return resolve_model(ws.config(), machine_overrides(ws, machine, demo_home), ws.root)


def describe_choice(choice: ModelChoice) -> str:
    """What, the prompt, and why, one reason a line."""
    why = "\n".join(f"  · {r}" for r in choice.reasons)
    return f"Model: {choice.describe()}\nPrompt: {choice.prompt_source}\nWhy:\n{why}"
