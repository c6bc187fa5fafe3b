"""A Hermes Agent home, found from the folder the user gives, $HERMES_HOME or ~/.hermes: where its
memory files are, the memory settings of its config.yaml as Hermes reads them, and the signs that
it is Hermes's, in words. Read from hermes-agent 0.19.0's code: hermes_constants.py
(get_hermes_home), tools/memory_tool.py (get_memory_dir, load_on_disk_store), hermes_cli/config.py
(DEFAULT_CONFIG, load_config, _deep_merge), hermes_cli/managed_scope.py (the administrator's
/etc/hermes/config.yaml, whose values win), agent/agent_init.py (the limits a session's store is
made with).

Reading only: nothing is created, written or locked. (Hermes's own config loader creates its
folders and SOUL.md in the home it reads; Dreamdesk must not.)"""

from __future__ import annotations

import os
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ruamel.yaml import YAML
from ruamel.yaml.error import MantissaNoDotYAML1_1Warning, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

from ..disk.files import read_bytes
from .hermes_memory import DEFAULT_LIMITS, FILE_NAMES

CONFIG_NAME = "config.yaml"
MEMORIES = "memories"
LIMIT_KEYS = {"memory": "memory_char_limit", "user": "user_char_limit"}
SWITCH_KEYS = {"memory": "memory_enabled", "user": "user_profile_enabled"}
MANAGED_DEFAULT = Path("/etc/hermes")
# what Hermes's first start makes in a home (hermes_cli/config.py ensure_hermes_home)
FIRST_START = ("cron", "sessions", "logs", "memories", "pairing", "hooks", "image_cache", "audio_cache", "skills")
# YAML 1.1's float (yaml.org/type/float.html), which Hermes's PyYAML keeps to: a dot, and a sign
# in the exponent; ruamel.yaml's 1.1 reading is looser, so a number it reads as a float and
# this does not match is text to Hermes
_YAML11_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+][0-9]+)?$|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$")
_CONFIG_READ_CAP = 4 << 20


# -- where --------------------------------------------------------------------------------------
def default_home(env: Mapping[str, str] | None = None, platform: str = sys.platform) -> tuple[Path, str]:
    """get_hermes_home: $HERMES_HOME as given (stripped; no ~ expansion), else ~/.hermes
    (%LOCALAPPDATA%\\hermes on Windows); with how it was found."""
    env = os.environ if env is None else env
    given = (env.get("HERMES_HOME") or "").strip()
    if given:
        return Path(given), "HERMES_HOME names it"
    if platform == "win32":
        base = (env.get("LOCALAPPDATA") or "").strip()
        return (Path(base) if base else Path.home() / "AppData" / "Local") / "hermes", "Hermes's default home"
    return Path.home() / ".hermes", "Hermes's default home"


def locate(given: Path | None = None, env: Mapping[str, str] | None = None) -> tuple[Path, str]:
    """The home for a folder the user gave: the home itself, its memories/ folder, or one of
    the two memory files; with nothing given, default_home()."""
    if given is None:
        return default_home(env)
    given = Path(given)
    if given.name in FILE_NAMES.values() and given.parent.name == MEMORIES:
        return given.parent.parent, f"{given.name} is in its {MEMORIES}/ folder"
    if given.name == MEMORIES and not (given / MEMORIES).is_dir():
        return given.parent, f"{MEMORIES}/ is its memory folder"
    return given, "the folder given"


def memory_path(home: Path, target: str) -> Path:
    return home / MEMORIES / FILE_NAMES[target]


# -- config.yaml ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MemorySettings:
    """config.yaml's memory settings as Hermes uses them. `limits`: what its memory tool checks
    outside a session (the gateway, the CLI's /memory: load_on_disk_store takes int() of each,
    and both defaults when either fails). `prompt_limits`: what a session renders its prompt
    blocks with (the values as read), None when a session injects no memory at all (a limit
    that is no number breaks its memory store). `enabled`: which blocks a session injects."""
    limits: dict[str, int]
    prompt_limits: dict[str, int | float] | None
    enabled: dict[str, bool]
    problems: tuple[str, ...] = field(default=())


def _yaml() -> YAML:
    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 1)            # Hermes reads config.yaml with PyYAML: YAML 1.1
    return yaml


def _last(node: Node | None, key: str) -> Node | None:
    """The value of the mapping's last `key` (PyYAML keeps the last of a repeated key)."""
    if not isinstance(node, MappingNode):
        return None
    found = [v for k, v in node.value if isinstance(k, ScalarNode) and k.value == key]
    return found[-1] if found else None


def _value(yaml: YAML, node: Node):
    """A node's value as PyYAML reads it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MantissaNoDotYAML1_1Warning)
        value = yaml.constructor.construct_object(node, deep=True)
    if isinstance(value, float) and isinstance(node, ScalarNode) and not _YAML11_FLOAT.match(node.value):
        return node.value
    return value


_ABSENT = object()


def _memory_section(text: str, name: str) -> tuple[dict, list[str]]:
    """The `memory:` keys a config file sets ({} for none), read as Hermes's PyYAML reads them."""
    yaml = _yaml()
    try:
        root = yaml.compose(text)
    except YAMLError as e:
        return {}, [f"{name} is not valid YAML ({str(e).splitlines()[0]}): Hermes ignores all of it and uses its defaults"]
    if root is not None and not isinstance(root, MappingNode):
        return {}, [f"{name} holds no mapping of settings: Hermes ignores it and uses its defaults"]
    section = _last(root, "memory")
    if section is None or (isinstance(section, ScalarNode) and _value(yaml, section) is None):
        return {}, []
    if not isinstance(section, MappingNode):
        return {"": _value(yaml, section)}, []
    keys = [*LIMIT_KEYS.values(), *SWITCH_KEYS.values()]
    return {k: _value(yaml, v) for k in keys if (v := _last(section, k)) is not None}, []


def managed_dir(env: Mapping[str, str] | None = None) -> Path | None:
    """The administrator's folder whose config.yaml values win over the home's
    (managed_scope.get_managed_dir): $HERMES_MANAGED_DIR when it is a folder, else /etc/hermes
    when it exists."""
    env = os.environ if env is None else env
    override = (env.get("HERMES_MANAGED_DIR") or "").strip()
    if override:
        return Path(override) if Path(override).is_dir() else None
    return MANAGED_DEFAULT if MANAGED_DEFAULT.is_dir() else None


def _config_sets(path: Path, name: str) -> tuple[dict, list[str]]:
    try:
        text = read_bytes(path, limit=_CONFIG_READ_CAP).decode("utf-8")
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError) as e:
        return {}, [f"{name} could not be read ({e}): Hermes ignores it and uses its defaults"]
    return _memory_section(text, name)


def _overlay(user: dict, managed: dict) -> dict:
    """_deep_merge of the managed section over the home's: its keys win; a section that is no
    mapping (key "") replaces the other whole."""
    if not managed:
        return user
    if "" in managed or "" in user:
        return managed
    return user | managed


def _limit_problem(key: str, value) -> str | None:
    where = f"memory.{key} in config.yaml"
    if isinstance(value, bool):
        return f"{where} is {str(value).lower()}, which Hermes reads as the number {int(value)}"
    if isinstance(value, float):
        return f"{where} is {value}, not a whole number: Hermes counts against it as it is, and shows it as {value:,}"
    if not isinstance(value, int):
        return (f"{where} is {value!r}, not a number: a Hermes session then injects neither MEMORY.md nor "
                "USER.md and cannot save memories")
    if value <= 0:
        return f"{where} is {value}: Hermes then refuses every entry added to that file"
    return None


def settings_from(sets: dict, problems: list[str] | None = None) -> MemorySettings:
    """The memory settings for the `memory:` keys a config sets (after the managed overlay)."""
    problems = list(problems or [])
    if "" in sets:
        problems.append(f"memory: in config.yaml is {sets['']!r}, not a mapping of settings: a Hermes session then "
                        "injects neither MEMORY.md nor USER.md, and its /memory command uses the default limits")
        return MemorySettings(dict(DEFAULT_LIMITS), None, {"memory": False, "user": False}, tuple(problems))
    raw = {t: sets.get(key, DEFAULT_LIMITS[t]) for t, key in LIMIT_KEYS.items()}
    try:
        limits = {t: int(v) for t, v in raw.items()}
    except (TypeError, ValueError, OverflowError):
        limits = dict(DEFAULT_LIMITS)
        problems.append("Hermes's /memory command and gateway then use the default limits for both files "
                        f"({DEFAULT_LIMITS['memory']:,} and {DEFAULT_LIMITS['user']:,})")
    problems[:0] = [p for t, key in LIMIT_KEYS.items() if (p := _limit_problem(key, raw[t]))]
    numbers = all(isinstance(v, (int, float)) for v in raw.values())
    enabled = {t: bool(sets.get(key, True)) for t, key in SWITCH_KEYS.items()}
    return MemorySettings(limits, dict(raw) if numbers else None, enabled, tuple(problems))


def read_settings(home: Path, env: Mapping[str, str] | None = None, managed: Path | None | str = "auto") -> MemorySettings:
    """config.yaml's memory settings (Hermes's defaults where it sets none), the administrator's
    managed config.yaml over them (`managed`: its folder, None for none, "auto": managed_dir)."""
    folder = managed_dir(env) if managed == "auto" else managed
    user, problems = _config_sets(Path(home) / CONFIG_NAME, CONFIG_NAME)
    pinned: dict = {}
    if isinstance(folder, Path):
        pinned, more = _config_sets(folder / CONFIG_NAME, str(folder / CONFIG_NAME))
        problems += more
    return settings_from(_overlay(user, pinned), problems)


# -- is it Hermes's ------------------------------------------------------------------------------
def signs(home: Path) -> list[str]:
    """What in the folder says Hermes uses it, in words (only looked at: nothing is opened)."""
    home, mem = Path(home), Path(home) / MEMORIES
    out = [f"{MEMORIES}/{name}, Hermes's {'notes' if t == 'memory' else 'user profile'}"
           for t, name in FILE_NAMES.items() if (mem / name).is_file()]
    locks = sorted(p.name for p in mem.glob("*.md.lock")) if mem.is_dir() else []
    if locks:
        out.append(f"{MEMORIES}/{' and '.join(locks)}: Hermes has written its memory here")
    out += [words for name, words in ((CONFIG_NAME, "config.yaml, Hermes's settings"),
                                      ("SOUL.md", "SOUL.md, its persona"), ("state.db", "state.db, its sessions"))
            if (home / name).is_file()]
    made = [d for d in FIRST_START if (home / d).is_dir()]
    if len(made) >= 5:
        out.append(f"{len(made)} of the {len(FIRST_START)} folders Hermes makes at its first start ({', '.join(made[:3])}, …)")
    if home.parent.name == "profiles":
        out.append(f"a Hermes profile ({home.name}) under {home.parent}")
    return out


def is_hermes_home(home: Path) -> bool:
    """A memories/ folder and a sign: nanobot and OpenClaw homes keep MEMORY.md and USER.md
    elsewhere (workspace/memory/, workspace/) and have no memories/ folder."""
    return (Path(home) / MEMORIES).is_dir() and bool(signs(home))


@dataclass(frozen=True, slots=True)
class HermesHome:
    path: Path
    how: str                      # how it was found, in words
    why: tuple[str, ...]          # the signs that it is Hermes's
    settings: MemorySettings

    def memory_file(self, target: str) -> Path:
        return memory_path(self.path, target)


def read_home(given: Path | None = None, env: Mapping[str, str] | None = None,
              managed: Path | None | str = "auto") -> HermesHome | None:
    """The Hermes home for what the user gave (or $HERMES_HOME, ~/.hermes); None when the
    folder shows no sign of Hermes. Creates nothing."""
    path, how = locate(given, env)
    if not is_hermes_home(path):
        return None
    return HermesHome(path, how, tuple(signs(path)), read_settings(path, env, managed))
