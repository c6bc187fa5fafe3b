"""OpenClaw's memory settings as data (issue 29 item 7): each key, what OpenClaw 2026.9.6 accepts
for it and where it lives in openclaw.json for the shown agent. Read in its dist/: the caps are
`number().int().positive()` in agents.defaults and in an agent's entry (zod-schema-*.mjs,
zod-schema.agent-runtime-*.mjs; zod 4's int() is a safe integer) and read from the agent's own
entry first (resolveBootstrapCharLimit, bootstrap-*.mjs); dreaming is `{enabled: boolean,
frequency: string}` in memory-core's plugin schema (extensions/memory-core/openclaw.plugin.json),
read by resolveMemoryDreamingConfig (dreaming-*.mjs) under plugins.entries.<memory plugin>.config,
the frequency a cron expression its scheduler reads with croner (schedule-*.mjs)."""

from __future__ import annotations

from typing import Any

from ..home.config import Setting
from ..text.json5_edit import Key, dotted
from . import openclaw_bootstrap as ob
from .openclaw_home import normalize_agent_id, roster_entries, section
from .openclaw_next import DEFAULT_FREQUENCY, enabled_value
from .openclaw_runs import memory_plugin

SAFE_INT = 2 ** 53 - 1          # zod 4's int(): a JavaScript safe integer
MAX_CHARS, TOTAL_MAX_CHARS, ENABLED, FREQUENCY = ("bootstrapMaxChars", "bootstrapTotalMaxChars",
                                                  "dreaming.enabled", "dreaming.frequency")


def _cap(key: str, default: int, label: str, doc: str) -> Setting:
    """A cap: a whole number ≥ 1 (positive), shown in characters; the form goes to 10 million."""
    return Setting(key, "int", default, 1, label=label, doc=doc, unit="chars", step=1000, form_max=10_000_000)


RULES: dict[str, Setting] = {
    MAX_CHARS: _cap(MAX_CHARS, ob.DEFAULT_MAX_CHARS, "Per-file cap", (
        "Most characters of each bootstrap file (AGENTS, SOUL, IDENTITY, USER, MEMORY.md) OpenClaw puts in the "
        "prompt; over it a file is cut to its first 75 % and last 25 %. USER.md stays capped at 4,000. Also "
        "dreaming's promotion budget for MEMORY.md when under 10,000.")),
    TOTAL_MAX_CHARS: _cap(TOTAL_MAX_CHARS, ob.DEFAULT_TOTAL_MAX_CHARS, "Total cap", (
        "Most characters of all bootstrap files together; a file gets what the files before it left, and once "
        "under 64 are left the rest are left out.")),
    ENABLED: Setting(ENABLED, "bool", True, label="Dreaming", doc=(
        "Whether memory-core's dreaming sweeps run (light, REM, deep; only deep writes MEMORY.md).")),
    FREQUENCY: Setting(FREQUENCY, "str", DEFAULT_FREQUENCY, nonempty=True, label="Sweep schedule", doc=(
        "When the sweep runs: a cron expression (minute hour day-of-month month day-of-week), in "
        "dreaming.timezone, else agents.defaults.userTimezone, else the Gateway's zone.")),
}
ORDER = (MAX_CHARS, TOTAL_MAX_CHARS, ENABLED, FREQUENCY)
TITLE = "OpenClaw's memory settings (openclaw.json)"
PICKED_UP = ("OpenClaw's Gateway reads it from openclaw.json when it starts and about once a minute while it "
             "runs (it reconciles its dreaming job).")


# -- where each setting lives ------------------------------------------------------------------
def _agent_path(config: dict, agent: str | None) -> tuple[Key, ...] | None:
    """The shown agent's roster entry as a path (agents.entries.<id> or agents.list[i])."""
    if agent is None:
        return None
    agents = section(config, "agents")
    want = normalize_agent_id(agent)
    if "entries" in agents:
        return next((("agents", "entries", i) for i, _e in roster_entries(config) if normalize_agent_id(i) == want),
                    None)
    listed = agents.get("list")
    if isinstance(listed, list):
        return next((("agents", "list", n) for n, e in enumerate(listed)
                     if isinstance(e, dict) and normalize_agent_id(str(e.get("id") or "")) == want), None)
    return None


def get(config: Any, path: tuple[Key, ...]) -> tuple[bool, Any]:
    for k in path:
        if isinstance(k, int) and isinstance(config, list) and 0 <= k < len(config):
            config = config[k]
        elif isinstance(k, str) and isinstance(config, dict) and k in config:
            config = config[k]
        else:
            return False, None
    return True, config


def where_of(config: dict, agent: str | None, key: str) -> tuple[Key, ...]:
    """The config path `key` is written to for the shown agent."""
    if key in (MAX_CHARS, TOTAL_MAX_CHARS):
        own = _agent_path(config, agent)
        if own is not None and get(config, own + (key,))[1] is not None:
            return own + (key,)
        return ("agents", "defaults", key)
    return ("plugins", "entries", memory_plugin(config), "config", "dreaming", key.split(".", 1)[1])


def effective(config: dict, agent: str | None, key: str) -> Any:
    if key in (MAX_CHARS, TOTAL_MAX_CHARS):
        limits = ob.limits_for(config, agent)
        return limits.max_chars if key == MAX_CHARS else limits.total_max_chars
    found, raw = get(config, where_of(config, agent, key))
    if key == ENABLED:
        return enabled_value(raw if found else None)
    return raw.strip() if found and isinstance(raw, str) and raw.strip() else DEFAULT_FREQUENCY


def note(config: dict, agent: str | None, key: str, path: tuple[Key, ...], written: bool) -> str:
    """Where the value in effect comes from, naming the config path, in words."""
    where = dotted(path)
    if key in (MAX_CHARS, TOTAL_MAX_CHARS):
        if path[1] != "defaults":
            return f"{where}: this agent's own value; the other agents keep theirs"
        scope = "every agent without its own value"
        return f"{where}: {scope}" if written else f"{where}: OpenClaw's default ({scope})"
    out = where + ("" if written else ": OpenClaw's default")
    if key == ENABLED:
        deep = section(config, *(str(k) for k in path[:-1]), "phases", "deep").get("enabled")
        if enabled_value(deep) is False:
            out += "; phases.deep.enabled is false, so no sweep writes MEMORY.md either way"
    return out


def put(config: dict, path: tuple[Key, ...], value: Any) -> None:
    node: Any = config
    for k in path[:-1]:
        if isinstance(k, int):
            node = node[k]
        else:
            if not isinstance(node.get(k), (dict, list)):
                node[k] = {}
            node = node[k]
    node[path[-1]] = value
