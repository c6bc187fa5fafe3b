"""A home nanobot 0.3.x wrote: the signs that say so (data: SIGNS, each a question asked of the
home and the words that say what was found), and what nanobot does differently from the
contract: its git repository in the workspace, no history in the prompt (its Dream reads it),
model presets, its own prompt build and its onboarding templates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..disk.files import read_bytes
from . import nanobot_config, nanobot_git, nanobot_templates
from .base import Assistant
from .nanobot_templates import is_template

# keys nanobot 0.3's config schema writes (its saves write every field it knows) and a
# Jenny-style config does not have: `channels`, `tools` and `providers` are shared by both
NANOBOT_TOP_KEYS = ("transcription", "gateway", "api", "modelPresets", "model_presets")
NANOBOT_DEFAULTS_KEYS = ("modelPreset", "model_preset", "timezoneMode", "timezone_mode", "botName", "bot_name",
                         "botIcon", "unifiedSession", "providerRetryMode", "toolHintMaxLength", "fallbackModels",
                         "maxConcurrentSubagents", "idleCompactCheckIntervalSeconds")
BOOTSTRAP_TEMPLATES = ("AGENTS.md", "USER.md", "SOUL.md")
_READ_CAP = 1 << 20


@dataclass(frozen=True, slots=True)
class Nanobot(Assistant):
    kind = "nanobot-0.3"
    label = "nanobot 0.3.x"
    name = "nanobot"

    @property
    def repository_files(self) -> tuple[str, ...] | None:
        return nanobot_git.REPOSITORY_FILES

    @property
    def hidden_from_its_git(self) -> tuple[str, ...]:
        return nanobot_git.EXCLUDE_LINES

    @property
    def history_in_prompt(self) -> bool:
        return False            # nanobot's prompt carries no history: its Dream reads it

    @property
    def uses_model_presets(self) -> bool:
        return True             # modelPresets, and its default model when config.json names none

    def build_prompt(self, ws, history, dream_cursor: int, new_session: bool = False):
        from . import nanobot_prompt
        return nanobot_prompt.build(ws, history, dream_cursor)

    def is_placeholder(self, text: str, file: str) -> bool:
        return nanobot_templates.is_placeholder(text, file)

    def config_note(self, path: str, value) -> str | None:
        return nanobot_config.refusal_note(path, value)

    @classmethod
    def detect(cls, root: Path, home: Path | None, config: dict) -> "Nanobot | None":
        found = [w for sign in SIGNS if (w := sign(root, home, config))]
        return cls(tuple(found)) if found else None


def _text(path: Path) -> str | None:
    try:
        if not path.is_file():
            return None
        data = read_bytes(path)
    except OSError:
        return None
    return data[:_READ_CAP].decode("utf-8", "replace")


def is_nanobot_template(text: str, name: str) -> bool:
    """nanobot's test: the file, stripped, equals its bundled template, stripped."""
    return is_template(text, name)


def _workspace_id(root: Path, home: Path | None, config: dict) -> str | None:
    if (root / ".nanobot" / "workspace-id").is_file():
        return ".nanobot/workspace-id binds this workspace to its sessions (nanobot's SessionManager)"
    return None


def _session_layout(root: Path, home: Path | None, config: dict) -> str | None:
    sessions = home / "sessions" if home else None
    try:
        if sessions and sessions.is_dir() and any((d / ".workspace").is_file() for d in sessions.iterdir() if d.is_dir()):
            return "sessions/<workspace-id>/ with a .workspace marker: nanobot's session layout"
    except OSError:
        return None
    return None


def _config_keys(root: Path, home: Path | None, config: dict) -> str | None:
    top = [k for k in NANOBOT_TOP_KEYS if k in config]
    agents = config.get("agents")
    agents = agents if isinstance(agents, dict) else {}
    defaults = agents.get("defaults")
    defaults = defaults if isinstance(defaults, dict) else {}
    inner = [f"agents.defaults.{k}" for k in NANOBOT_DEFAULTS_KEYS if k in defaults]
    found = top + inner
    if found:
        return f"config.json has keys of nanobot's schema: {', '.join(found[:4])}"
    return None


def _templates(root: Path, home: Path | None, config: dict) -> str | None:
    same = [n for n in BOOTSTRAP_TEMPLATES if (t := _text(root / n)) is not None and is_nanobot_template(t, n)]
    if same:
        return f"{', '.join(same)} {'is' if len(same) == 1 else 'are'} nanobot's onboarding template"
    return None


def _prompts_folder(root: Path, home: Path | None, config: dict) -> str | None:
    if (root / "prompts" / "dream.md").is_file():
        return "prompts/dream.md: nanobot's own Dream prompt (/dream-prompt init)"
    if (root / "prompts" / "README.md").is_file():
        return "prompts/README.md: written by nanobot's workspace templates"
    return None


SIGNS: tuple[Callable[[Path, Path | None, dict], str | None], ...] = (
    _workspace_id, _session_layout, _config_keys, _templates, _prompts_folder)
