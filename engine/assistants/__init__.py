"""Which assistant wrote a home, and its adapter: the only place that knows what a given
assistant does with its home. Reading only; cheap enough for every status read (no git process,
a few stats and one small read).

Each adapter (base.Assistant's subclasses) answers for its assistant; ADAPTERS are asked in
order whether the home is theirs (each with its signs, in words); with none, the home is read
as the contract describes it (Jenny-style). docs/architecture.md says how to add one.
"""

from __future__ import annotations

from pathlib import Path

from .base import Assistant
from .jenny import Jenny
from .nanobot import Nanobot, is_nanobot_template

JENNY, NANOBOT = Jenny.kind, Nanobot.kind
ADAPTERS = (Nanobot,)
__all__ = ["ADAPTERS", "Assistant", "JENNY", "NANOBOT", "assistant_of", "detect_assistant", "is_nanobot_template"]


def detect_assistant(root: Path, home: Path | None, config_raw: dict | None) -> Assistant:
    config = config_raw if isinstance(config_raw, dict) else {}
    for adapter in ADAPTERS:
        found = adapter.detect(Path(root), Path(home) if home else None, config)
        if found is not None:
            return found
    return Jenny(("no sign of nanobot (no .nanobot/workspace-id, no nanobot session layout, config "
                  "keys or templates): read as the contract describes a Jenny-style home",))


def assistant_of(ws, config_raw: dict | None = None) -> Assistant:
    """The assistant of an open Workspace (`config_raw`: its config.json when already read)."""
    if config_raw is None:
        config_raw = ws.config().raw
    return detect_assistant(ws.root, ws.home, config_raw)
