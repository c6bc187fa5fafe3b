"""An OpenClaw home, found from the folder the user gives (issue 28 item 1, the reading half): its
state folder (~/.openclaw, ~/.openclaw-<profile>, or OPENCLAW_STATE_DIR), its openclaw.json read
as JSON5, its agents and each agent's workspace, and the signs that say it is OpenClaw's, in
words. Read from OpenClaw 2026.9.6's code: resolveStateDir and resolveConfigPath
(dist/paths-*.mjs), resolveDefaultAgentWorkspaceDir (dist/workspace-default-*.mjs), the roster
and resolveAgentWorkspaceDir (dist/agent-scope-config-*.mjs), parseConfigJson5
(dist/io.read-helpers-*.mjs).

Reading only: nothing is written, created or opened for writing, the SQLite state included
(it is only looked at)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import json5

from ..disk.files import read_bytes

CONFIG_NAME, LEGACY_CONFIG_NAME = "openclaw.json", "clawdbot.json"
STATE_DB = Path("state") / "openclaw.sqlite"
DEFAULT_AGENT_ID = "main"
_VALID_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$", re.I)
_PROFILE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$", re.I)
_DAILY_NOTE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:-.+)?\.md$")
_CONFIG_READ_CAP = 16 << 20


@dataclass(frozen=True, slots=True)
class Agent:
    id: str
    workspace: Path
    how: str                    # how its workspace was found, in words
    name: str | None = None


@dataclass(frozen=True, slots=True)
class OpenClawHome:
    state_dir: Path | None           # None: a workspace folder with no state folder found
    config_path: Path | None
    config: dict                     # {} when absent or broken (see problems)
    agents: tuple[Agent, ...]
    why: tuple[str, ...]             # the signs that it is OpenClaw's
    problems: tuple[str, ...] = field(default=())
    opened: Path | None = None       # the workspace the user gave, when they gave one
    default_agent: str | None = None  # None: several agents and none is the default
    config_problem: str | None = None  # what reading openclaw.json found (also first in problems)

    def agent(self, agent_id: str | None = None) -> Agent | None:
        """The agent asked for; else the one whose workspace was opened; else the default one."""
        if agent_id is None and self.opened is not None:
            return next((a for a in self.agents if _same(a.workspace, self.opened)), None)
        want = normalize_agent_id(agent_id) if agent_id is not None else self.default_agent
        return next((a for a in self.agents if a.id == want), None)


# -- the config -------------------------------------------------------------------------------------
def read_config(path: Path) -> tuple[dict, str | None]:
    """openclaw.json as OpenClaw parses it (parse_config); absent: {} and no problem."""
    try:
        raw = read_bytes(path, limit=_CONFIG_READ_CAP).decode("utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as e:
        return {}, f"{path.name} could not be read ({e}): its settings are ignored here, and OpenClaw cannot start on it"
    return parse_config(raw, path.name)


def parse_config(raw: str, name: str = CONFIG_NAME) -> tuple[dict, str | None]:
    """parseConfigJson5: JSON, else JSON5 (comments, trailing commas, unquoted keys); text that
    does not parse, or is no object, is a problem in words and reads as {}."""
    try:
        parsed = json.loads(raw)
    except ValueError:
        try:
            parsed = json5.loads(raw)
        except ValueError as e:
            return {}, (f"{name} is not valid JSON5 ({e}): OpenClaw refuses it too; "
                        "its settings are ignored here and the default workspace is shown")
    if not isinstance(parsed, dict):
        return {}, f"{name} holds a {type(parsed).__name__}, not an object: its settings are ignored here"
    if _has_include(parsed):
        return parsed, f"{name} has $include directives: the included files are not read here"
    return parsed, None


def _has_include(value) -> bool:
    if isinstance(value, dict):
        return "$include" in value or any(_has_include(v) for v in value.values())
    return isinstance(value, list) and any(_has_include(v) for v in value)


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def section(config: dict, *keys: str) -> dict:
    """config[k1][k2]…, {} wherever a level is missing or not an object."""
    for key in keys:
        config = _dict(config.get(key))
    return config


def _string(value) -> str | None:
    return value if isinstance(value, str) else None


# -- the roster ---------------------------------------------------------------------------------------
def normalize_agent_id(value: str | None) -> str:
    """normalizeAgentId: lower case, runs of other characters as '-', 'main' when nothing is left."""
    trimmed = (value or "").strip()
    if _VALID_ID.match(trimmed):
        return trimmed.lower()
    cleaned = re.sub(r"-+$", "", re.sub(r"^-+", "", re.sub(r"[^a-z0-9_-]+", "-", trimmed.lower())))
    return cleaned[:64] or DEFAULT_AGENT_ID


def has_roster(config: dict) -> bool:
    agents = _dict(config.get("agents"))
    return "entries" in agents or "list" in agents


def roster_entries(config: dict) -> list[tuple[str, dict]]:
    """The roster as (id, entry): agents.entries.<id> when the config has `entries` (even empty or
    null), else agents.list[{id, …}]."""
    agents = _dict(config.get("agents"))
    if "entries" in agents:
        return [(k, v) for k, v in _dict(agents["entries"]).items() if isinstance(v, dict)]
    listed = agents.get("list")
    if isinstance(listed, list):
        return [(str(v.get("id") or ""), v) for v in listed if isinstance(v, dict)]
    return []


def agent_ids(config: dict) -> list[str]:
    """listAgentIds: the roster's ids, normalized, first of each; `main` when there is no roster."""
    entries = roster_entries(config)
    if not entries and not has_roster(config):
        return [DEFAULT_AGENT_ID]
    out: list[str] = []
    for entry_id, _ in entries:
        if normalize_agent_id(entry_id) not in out:
            out.append(normalize_agent_id(entry_id))
    return out


def default_agent_id(config: dict) -> str | None:
    """resolveDefaultAgentId without its error: the one entry marked `default: true` (unless
    agents.ownership is "explicit"), else the only agent; None when several are configured."""
    entries = roster_entries(config)
    if _dict(config.get("agents")).get("ownership") != "explicit":
        marked = [i for i, e in entries if e.get("default") is True]
        if len(marked) == 1:
            return normalize_agent_id(marked[0])
    if not entries:
        return None if has_roster(config) else DEFAULT_AGENT_ID
    return normalize_agent_id(entries[0][0]) if len(entries) == 1 else None


# -- where things are ------------------------------------------------------------------------------
def home_dir(env: Mapping[str, str]) -> Path:
    """OpenClaw's effective home: OPENCLAW_HOME (its ~ read against HOME), else HOME."""
    os_home = (env.get("HOME") or "").strip() or os.path.expanduser("~")
    explicit = (env.get("OPENCLAW_HOME") or "").strip()
    if explicit and explicit not in ("undefined", "null"):
        return Path(os.path.abspath(re.sub(r"^~(?=$|[\\/])", lambda _: os_home, explicit)))
    return Path(os.path.abspath(os_home))


def user_path(value: str, env: Mapping[str, str], base: Path) -> Path:
    """resolveUserPath: `~` as OpenClaw's home; a relative path against `base` (OpenClaw reads it
    against the folder it runs in, which a reader cannot know)."""
    value = value.strip()
    if re.match(r"^~(?=$|[\\/])", value):
        value = str(home_dir(env)) + value[1:]
    return Path(os.path.normpath(os.path.join(base, value)))


def default_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """resolveStateDir: OPENCLAW_STATE_DIR, else the profile's ~/.openclaw-<profile>, else
    ~/.openclaw (the legacy ~/.clawdbot when only that exists)."""
    env = os.environ if env is None else env
    home = home_dir(env)
    override = (env.get("OPENCLAW_STATE_DIR") or "").strip()
    if override:
        return user_path(override, env, Path.cwd())
    profile = (env.get("OPENCLAW_PROFILE") or "").strip()
    if profile and profile.lower() != "default" and _PROFILE.match(profile):
        return home / f".openclaw-{profile}"
    new, legacy = home / ".openclaw", home / ".clawdbot"
    return legacy if not new.exists() and legacy.exists() else new


def config_path(state_dir: Path, env: Mapping[str, str] | None = None) -> Path:
    """openclaw.json in the state folder (clawdbot.json when only that exists); OPENCLAW_CONFIG_PATH
    when this is the environment's own home."""
    env = os.environ if env is None else env
    override = (env.get("OPENCLAW_CONFIG_PATH") or "").strip()
    if override and _same(state_dir, default_state_dir(env)):
        return user_path(override, env, Path.cwd())
    new, legacy = state_dir / CONFIG_NAME, state_dir / LEGACY_CONFIG_NAME
    return legacy if not new.exists() and legacy.exists() else new


def agent_workspace(config: dict, agent_id: str, state_dir: Path, env: Mapping[str, str]) -> tuple[Path, str]:
    """resolveAgentWorkspaceDir, with how it was found: the agent's own `workspace`; the default
    agent's is agents.defaults.workspace or the home's default; another agent's is
    <agents.defaults.workspace>/<id> or <state>/workspace-<id>."""
    aid = normalize_agent_id(agent_id)
    own = next((_string(e.get("workspace")) for i, e in roster_entries(config) if normalize_agent_id(i) == aid), None)
    if own and own.strip():
        return user_path(own, env, state_dir), f"its own workspace setting ({own.strip()})"
    fallback = (_string(_dict(_dict(config.get("agents")).get("defaults")).get("workspace")) or "").strip()
    if aid == default_agent_id(config):
        if fallback:
            return user_path(fallback, env, state_dir), f"agents.defaults.workspace ({fallback})"
        return _default_workspace(state_dir, env)
    if fallback:
        return user_path(fallback, env, state_dir) / aid, f"agents.defaults.workspace ({fallback}) / {aid}"
    return state_dir / f"workspace-{aid}", f"the home's workspace-{aid} (no workspace set for it)"


def _default_workspace(state_dir: Path, env: Mapping[str, str]) -> tuple[Path, str]:
    """resolveDefaultAgentWorkspaceDir for this home: OPENCLAW_WORKSPACE_DIR when the environment
    is this home's, else <state>/workspace."""
    override = (env.get("OPENCLAW_WORKSPACE_DIR") or "").strip()
    if override and _same(state_dir, default_state_dir(env)):
        return user_path(override, env, Path.cwd()), f"OPENCLAW_WORKSPACE_DIR ({override})"
    return state_dir / "workspace", "the home's default workspace"


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


# -- finding a home ------------------------------------------------------------------------------------
def locate(path: Path | str, env: Mapping[str, str] | None = None) -> OpenClawHome | None:
    """The OpenClaw home at `path`: a state folder (~/.openclaw, a profile's ~/.openclaw-<p>), its
    openclaw.json, or a workspace folder (its state folder found beside it, or the environment's
    home when that home names it). None when nothing there is OpenClaw's."""
    env = os.environ if env is None else env
    p = Path(os.path.abspath(os.path.expanduser(str(path))))
    if p.name in (CONFIG_NAME, LEGACY_CONFIG_NAME) and p.is_file():
        p = p.parent
    if _is_state_dir(p):
        return _home(p, None, env)
    state = _state_of_workspace(p, env)
    if state is not None:
        return _home(state, p, env)
    why = workspace_signs(p)
    if not why:
        return None
    return OpenClawHome(None, None, {}, (Agent(DEFAULT_AGENT_ID, p, "the folder opened"),), why,
                        ("no OpenClaw state folder found for this workspace: OpenClaw's defaults apply",), p,
                        DEFAULT_AGENT_ID)


def _is_state_dir(p: Path) -> bool:
    return (p / CONFIG_NAME).is_file() or (p / LEGACY_CONFIG_NAME).is_file() or (p / STATE_DB).is_file()


def _state_of_workspace(ws: Path, env: Mapping[str, str]) -> Path | None:
    parent = ws.parent
    if _is_state_dir(parent) and (ws.name == "workspace" or ws.name.startswith("workspace-")
                                  or _names_workspace(parent, ws, env)):
        return parent
    home = default_state_dir(env)
    return home if _is_state_dir(home) and _names_workspace(home, ws, env) else None


def _names_workspace(state: Path, ws: Path, env: Mapping[str, str]) -> bool:
    config, _ = read_config(config_path(state, env))
    return any(_same(agent_workspace(config, a, state, env)[0], ws) for a in agent_ids(config))


def _home(state: Path, opened: Path | None, env: Mapping[str, str]) -> OpenClawHome:
    cfg_path = config_path(state, env)
    config, problem = read_config(cfg_path)
    problems = [problem] if problem else []
    agents = []
    for aid in agent_ids(config):
        ws, how = agent_workspace(config, aid, state, env)
        entry = next((e for i, e in roster_entries(config) if normalize_agent_id(i) == aid), {})
        agents.append(Agent(aid, ws, how, _string(entry.get("name"))))
    if opened is not None and not any(_same(a.workspace, opened) for a in agents):
        problems.append(f"{opened} is no agent's workspace in {cfg_path.name}")
    why = state_signs(state, cfg_path) + tuple(w for a in agents for w in workspace_signs(a.workspace))
    return OpenClawHome(state, cfg_path, config, tuple(agents), why, tuple(problems), opened,
                        default_agent_id(config), problem)


# -- the signs -----------------------------------------------------------------------------------------
def state_signs(state: Path, cfg_path: Path) -> tuple[str, ...]:
    out = []
    if cfg_path.is_file():
        out.append(f"{cfg_path.name}: OpenClaw's config (JSON5)")
    if (state / STATE_DB).is_file():
        out.append("state/openclaw.sqlite: OpenClaw's state database (2026.6.5 and later)")
    if any((state / "agents").glob("*/agent/openclaw-agent.sqlite")):
        out.append("agents/<id>/agent/openclaw-agent.sqlite: an OpenClaw agent's database")
    return tuple(out)


def workspace_signs(ws: Path) -> tuple[str, ...]:
    """What in a workspace folder is OpenClaw's: IDENTITY.md beside SOUL.md or AGENTS.md (its
    onboarding seeds the three; nanobot's has no IDENTITY.md), MEMORY.md at the top with daily
    notes in memory/, its dreaming's DREAMS.md or memory/.dreams/."""
    out = []
    if (ws / "IDENTITY.md").is_file() and ((ws / "SOUL.md").is_file() or (ws / "AGENTS.md").is_file()):
        out.append(f"{ws.name}/IDENTITY.md beside SOUL.md or AGENTS.md: OpenClaw's onboarding seeds them")
    if (ws / "MEMORY.md").is_file() and _has_daily_notes(ws / "memory"):
        out.append(f"{ws.name}/MEMORY.md at the top with daily notes in memory/: OpenClaw's memory layout")
    if (ws / "memory" / ".dreams").is_dir() or (ws / "DREAMS.md").is_file():
        out.append(f"{ws.name}: DREAMS.md or memory/.dreams/ from OpenClaw's dreaming")
    return tuple(out)


def _has_daily_notes(folder: Path) -> bool:
    try:
        return any(_DAILY_NOTE.match(n) for n in os.listdir(folder))
    except OSError:
        return False
