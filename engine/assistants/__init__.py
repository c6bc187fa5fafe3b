"""Which assistant wrote a home: Jenny-style (the contract's own, ../shared/spec/) or nanobot
0.3.x, and the signs that say so. Reading only; cheap enough for every status read (no git
process, a few stats and one small read).

The signs are data (SIGNS below), each a question asked of the workspace and the words that
say what was found. Any one sign of nanobot makes it nanobot-0.3; with none, the home is read
as the contract describes it (Jenny-style).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..disk.files import read_bytes
from . import nanobot_git, nanobot_templates
from .nanobot_templates import is_template

JENNY, NANOBOT = "jenny", "nanobot-0.3"
LABELS = {JENNY: "Jenny-style (Dreamdesk's contract)", NANOBOT: "nanobot 0.3.x"}
NAMES = {JENNY: "Jenny", NANOBOT: "nanobot"}          # the assistant in a sentence ("nanobot's prompt")

# keys nanobot 0.3's config schema writes (its saves write every field it knows) and a
# Jenny-style config does not have: `channels`, `tools` and `providers` are shared by both
NANOBOT_TOP_KEYS = ("transcription", "gateway", "api", "modelPresets", "model_presets")
NANOBOT_DEFAULTS_KEYS = ("modelPreset", "model_preset", "timezoneMode", "timezone_mode", "botName", "bot_name",
                         "botIcon", "unifiedSession", "providerRetryMode", "toolHintMaxLength", "fallbackModels",
                         "maxConcurrentSubagents", "idleCompactCheckIntervalSeconds")
BOOTSTRAP_TEMPLATES = ("AGENTS.md", "USER.md", "SOUL.md")
_READ_CAP = 1 << 20


@dataclass(frozen=True, slots=True)
class Assistant:
    kind: str
    why: tuple[str, ...] = field(default_factory=tuple)

    @property
    def label(self) -> str:
        return LABELS[self.kind]

    @property
    def name(self) -> str:
        return NAMES[self.kind]

    @property
    def is_nanobot(self) -> bool:
        return self.kind == NANOBOT

    @property
    def repository_files(self) -> tuple[str, ...] | None:
        """The paths the assistant commits to its own git repository in the workspace, when it
        keeps one there (Dreamdesk commits nothing else into it); None: the repository is
        Dreamdesk's, as the contract has it (Jenny-style)."""
        return nanobot_git.REPOSITORY_FILES if self.kind == NANOBOT else None

    @property
    def hidden_from_its_git(self) -> tuple[str, ...]:
        """Exclude lines that keep Dreamdesk's own files out of the assistant's `git status`."""
        return nanobot_git.EXCLUDE_LINES if self.kind == NANOBOT else ()

    @property
    def history_in_prompt(self) -> bool:
        """Whether a new chat's prompt carries the history Dream has not read yet (a Jenny-style
        home's does, capped; nanobot's carries none: its Dream reads it)."""
        return self.kind != NANOBOT

    @property
    def uses_model_presets(self) -> bool:
        """Whether the home's model may come from a preset (nanobot's modelPresets, and its
        default model when config.json names none)."""
        return self.kind == NANOBOT

    def build_prompt(self, ws, history, dream_cursor: int):
        """The preview of a new chat's system prompt, as this assistant builds it (a PromptPreview)."""
        from . import jenny_prompt, nanobot_prompt
        return (nanobot_prompt if self.kind == NANOBOT else jenny_prompt).build(ws, history, dream_cursor)

    def is_placeholder(self, text: str, file: str) -> bool:
        """`text` (an entry that left `file`) is the assistant's own onboarding template text,
        never filled in: not a fact anybody pruned."""
        return self.kind == NANOBOT and nanobot_templates.is_placeholder(text, file)

    def to_json(self) -> dict:
        return {"kind": self.kind, "label": self.label, "why": list(self.why)}


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
    agents = config.get("agents") if isinstance(config.get("agents"), dict) else {}
    defaults = agents.get("defaults") if isinstance(agents.get("defaults"), dict) else {}
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


def detect_assistant(root: Path, home: Path | None, config_raw: dict | None) -> Assistant:
    config = config_raw if isinstance(config_raw, dict) else {}
    found = [w for sign in SIGNS if (w := sign(Path(root), Path(home) if home else None, config))]
    if found:
        return Assistant(NANOBOT, tuple(found))
    return Assistant(JENNY, ("no sign of nanobot (no .nanobot/workspace-id, no nanobot session layout, config "
                             "keys or templates): read as the contract describes a Jenny-style home",))


def assistant_of(ws, config_raw: dict | None = None) -> Assistant:
    """The assistant of an open Workspace (`config_raw`: its config.json when already read)."""
    if config_raw is None:
        config_raw = ws.config().raw
    return detect_assistant(ws.root, ws.home, config_raw)
