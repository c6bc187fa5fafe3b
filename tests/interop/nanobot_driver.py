"""Drive nanobot-ai 0.3.5's own code on a nanobot home. Run by *nanobot's* Python, never by
Dreamdesk's (nanobot lives in its own virtual environment; nothing here is imported by the
tests). Every step prints JSON.

    python nanobot_driver.py make-home HOME [lf|crlf-bom]    (crlf-bom: USER.md saved by a Windows editor)
    python nanobot_driver.py check HOME
    python nanobot_driver.py append-history HOME TEXT
    python nanobot_driver.py save-config HOME
    python nanobot_driver.py archive-session HOME [KEY]     (no KEY: nanobot's idle scan)
    python nanobot_driver.py dream-log HOME [SHA]
    python nanobot_driver.py dream-restore HOME [SHA]
    python nanobot_driver.py chat HOME KEY N                (N more messages, saved by nanobot)
    python nanobot_driver.py system-prompt HOME             (ContextBuilder's system prompt)
    python nanobot_driver.py patch-config HOME JSON         (merge, validate, save: nanobot's settings)
    python nanobot_driver.py dream-model HOME               (the model/provider/base Dream would use)
    python nanobot_driver.py use-model HOME API_BASE [MODEL] (nanobot's `custom` provider at API_BASE)
    python nanobot_driver.py dream HOME                     (nanobot's gateway cron Dream, for real)
    python nanobot_driver.py close-usage HOME               (nanobot's usage store closed, as at exit)
    python nanobot_driver.py save-dream-session HOME KEY JSON (a Dream transcript saved by nanobot)
    python nanobot_driver.py batch        < [["check", HOME], ["dream-log", HOME], ...]
    python nanobot_driver.py serve        (one JSON request [op, args...] a line, one answer a line)

`serve` pays nanobot's import time (~1.4 s) once for a whole test session; every request
builds nanobot's objects afresh (MemoryStore, SessionManager, the config), as a new start
of the assistant would.

HOME is a nanobot home: HOME/config.json (nanobot's config, bound with set_config_path, so
nothing under ~/.nanobot is read or written), HOME/sessions/ (nanobot's runtime sessions
folder, derived from the config's folder) and HOME/workspace (the agent workspace, as
`nanobot --config HOME/config.json --workspace HOME/workspace` would use it: also in a home
that was moved, whose config.json still names the old path).

nanobot's log records of level WARNING and above are collected into every answer's
"warnings": nanobot says there when it silently drops a history line or a session.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys
import time
import traceback
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

for _name in [k for k in os.environ if k.startswith("NANOBOT_")]:   # pydantic-settings reads these
    del os.environ[_name]

from loguru import logger  # noqa: E402  (nanobot's logger)

import nanobot  # noqa: E402
from nanobot.config import loader  # noqa: E402

WARNINGS: list[str] = []
logger.remove()
logger.add(lambda m: WARNINGS.append(m.record["message"]), level="WARNING")

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def _loopback_only(event: str, args: tuple) -> None:
    """Nothing driven here may reach beyond this machine: a connection or name lookup for
    any other host fails (and nanobot's answer shows it in "warnings")."""
    if event == "socket.connect" and isinstance(args[1], tuple):
        host = args[1][0]
    elif event == "socket.getaddrinfo":
        host = args[0].decode() if isinstance(args[0], bytes) else args[0]
    else:
        return
    if host is not None and host not in LOOPBACK:
        WARNINGS.append(f"blocked a connection to {host}")
        raise OSError(f"interop driver: no network beyond 127.0.0.1 ({host})")


sys.addaudithook(_loopback_only)

# nanobot's provider waits 1, 2 and 4 s between its retries of a failed model call. The models
# here are on loopback (or blocked) and a failure stays a failure however long one waits: the
# waits are 10, 20 and 40 ms here. The attempts, and all else its retry does, are nanobot's own.
from nanobot.providers.base import LLMProvider  # noqa: E402

LLMProvider._CHAT_RETRY_DELAYS = (0.01, 0.02, 0.04)

# Files nanobot itself keeps in memory/ without committing them.
NANOBOT_UNTRACKED = {"memory/history.jsonl", "memory/.cursor"}


def _paths(home: str) -> tuple[Path, Path, Path]:
    h = Path(home).resolve()
    cfg = h / "config.json"
    loader.set_config_path(cfg)          # nanobot's own mechanism (what --config does)
    return h, cfg, h / "workspace"


def _store(ws: Path):
    from nanobot.agent.memory import MemoryStore
    return MemoryStore(ws)


def _sessions(ws: Path):
    from nanobot.session.manager import SessionManager
    return SessionManager(ws)            # sessions root: get_runtime_subdir("sessions") of the config


# -- make-home ---------------------------------------------------------------------------------
USER_MD = """# User Profile

## Identity
- Name: Sam
- Lives in Porto

## Preferences
- Short replies
- Prefers dark mode
"""

MEMORY_MD = """# Long-term Memory

## Projects
- Blog runs on Hugo
- Writing a talk about tide tables
"""


def _in_form(text: str, form: str) -> str:
    """USER.md as a user's editor saved it: `crlf-bom` is Windows line endings and a BOM."""
    return "\ufeff" + text.replace("\n", "\r\n") if form == "crlf-bom" else text


def make_home(home: str, form: str = "lf") -> dict:
    from nanobot.agent.memory import MemoryStore
    from nanobot.config.schema import Config
    from nanobot.utils.helpers import sync_workspace_templates

    h, cfg_path, ws = _paths(home)
    h.mkdir(parents=True, exist_ok=True)
    cfg = Config()
    cfg.agents.defaults.workspace = str(ws)
    loader.save_config(cfg, cfg_path)                    # what `nanobot onboard` writes
    sync_workspace_templates(ws, silent=True)            # templates + GitStore.init(), as onboard does
    store = MemoryStore(ws)
    store.git.init()                                     # already initialised by onboard: a no-op

    store.write_user(_in_form(USER_MD, form))
    store.write_memory(MEMORY_MD)
    facts = ["User said they moved from Porto to Lisbon in May",
             "User prefers tea over coffee",
             "User asked for a reminder about the dentist on Friday",
             "User is preparing a talk about tide tables for June"]
    cursors = [store.append_history(f"- {t}", session_key="telegram:chat-1") for t in facts]

    # One Dream run, as nanobot's Dream finishes it: the files are edited by the tools, the
    # diff grounds the commit message, the cursor advances, then the commit.
    store.write_user(_in_form(USER_MD.replace("- Lives in Porto", "- Lives in Lisbon (since May)")
                              + "- Prefers tea over coffee\n", form))
    diff_body = store.dream_content_diff()
    store.set_last_dream_cursor(cursors[1])
    dream_sha = store.git.auto_commit(MemoryStore.build_dream_commit_message("dream: manual run", diff_body))
    for t in ("User's sister Ana visits in July", "User wants weekly summaries on Sundays"):
        cursors.append(store.append_history(f"- {t}", session_key="telegram:chat-1"))

    sm = _sessions(ws)
    old = datetime.now() - timedelta(hours=3)
    chat = sm.get_or_create("telegram:chat-1")
    for i in range(12):
        role = "user" if i % 2 == 0 else "assistant"
        chat.add_message(role, f"{role} message {i + 1} about the tide-table talk")
        chat.messages[-1]["timestamp"] = (old + timedelta(minutes=i)).isoformat()
    chat.updated_at = old + timedelta(minutes=12)
    sm.save(chat)

    short = sm.get_or_create("cli:direct")
    for i in range(3):
        short.add_message("user" if i % 2 == 0 else "assistant", f"short chat {i + 1}")
        short.messages[-1]["timestamp"] = (old + timedelta(minutes=i)).isoformat()
    short.updated_at = old + timedelta(minutes=3)
    sm.save(short)

    # A Dream transcript, as nanobot keeps it: a `dream:<stamp>` session of tool calls.
    dkey = f"dream:{old:%Y%m%d-%H%M%S}"
    dream = sm.get_or_create(dkey)
    dream.add_message("user", "## Conversation History\n[2026-01-01 02:00] - User prefers tea over coffee")
    for i in range(6):
        call = {"id": f"call_{i}", "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": "USER.md"})}}
        dream.add_message("assistant", "", tool_calls=[call])
        dream.add_message("tool", "# User Profile ...", tool_call_id=f"call_{i}", name="read_file")
    dream.add_message("assistant", "Updated USER.md.")
    for m in dream.messages:
        m["timestamp"] = old.isoformat()
    dream.updated_at = old
    sm.save(dream)

    return {"home": str(h), "workspace": str(ws), "version": nanobot.__version__,
            "dream_sha": dream_sha, "cursors": cursors, "dream_cursor": store.get_last_dream_cursor(),
            "dream_session": dkey, "sessions_dir": str(sm.sessions_dir),
            "workspace_id": (ws / ".nanobot" / "workspace-id").read_text().strip()}


# -- check -------------------------------------------------------------------------------------
def _untracked(ws: Path) -> dict:
    from dulwich import porcelain
    st = porcelain.status(str(ws), untracked_files="all")
    untracked = sorted(p.decode() if isinstance(p, bytes) else str(p) for p in st.untracked)
    unstaged = sorted(p.decode() if isinstance(p, bytes) else str(p) for p in st.unstaged)
    return {"untracked": untracked, "unstaged": unstaged,
            "untracked_memory": [p for p in untracked
                                 if p.startswith("memory/") and p not in NANOBOT_UNTRACKED]}


def _session_info(sm, key: str) -> dict:
    from nanobot.session.summary import is_summary_checkpoint
    s = sm.get_or_create(key)
    live = [m for m in s.messages[s.last_archived:]
            if not m.get("_command") and not is_summary_checkpoint(m)]
    return {"key": key, "messages": len(s.messages), "last_archived": s.last_archived,
            "unarchived": len(live), "path": str(sm._jsonl_store.get_session_path(key))}


def check(home: str) -> dict:
    from nanobot.config.errors import ConfigLoadError

    h, cfg_path, ws = _paths(home)
    out: dict = {"version": nanobot.__version__}
    try:
        cfg = loader.load_config(cfg_path)
        d = cfg.agents.defaults
        out["config"] = {"ok": True, "workspace": d.workspace, "provider": d.provider, "model": d.model,
                         "dream": d.dream.model_dump(mode="json", by_alias=True),
                         "idleCompactAfterMinutes": d.session_ttl_minutes}
    except (ConfigLoadError, ValueError) as exc:
        out["config"] = {"ok": False, "error": str(exc)}

    sm = _sessions(ws)
    out["sessions_dir"] = str(sm.sessions_dir)
    out["sessions"] = sorted((_session_info(sm, i["key"]) for i in sm.list_sessions()), key=lambda s: s["key"])

    store = _store(ws)
    dream_cursor = store.get_last_dream_cursor()
    entries = store.read_unprocessed_history(-1)
    try:
        lines = [ln for ln in store.history_file.read_text(encoding="utf-8").split("\n") if ln.strip()]
    except FileNotFoundError:
        lines = []
    out["history"] = {
        "cursors": [e["cursor"] for e in entries],
        "contents": [e["content"] for e in entries],
        "session_keys": [e.get("session_key") for e in entries],
        "lines": len(lines),
        "dream_cursor": dream_cursor,
        "unprocessed": [e["cursor"] for e in store.read_unprocessed_history(dream_cursor)],
        "next_cursor": store._next_cursor(),
        "cursor_file": store._cursor_file.read_text(encoding="utf-8") if store._cursor_file.exists() else None,
    }
    out["git"] = {"initialized": store.git.is_initialized(),
                  "log": [{"sha": c.sha, "subject": c.subject()} for c in store.git.log(max_entries=200)]}
    out["git"].update(_untracked(ws))
    out["workspace_id"] = (ws / ".nanobot" / "workspace-id").read_text().strip() \
        if (ws / ".nanobot" / "workspace-id").exists() else None
    return out


# -- writes by nanobot ---------------------------------------------------------------------------
def append_history(home: str, text: str, session_key: str | None = None) -> dict:
    _, _, ws = _paths(home)
    return {"cursor": _store(ws).append_history(text, session_key=session_key)}


def save_config(home: str) -> dict:
    """Load and save through nanobot's own loader and saver (onboard --refresh, its settings)."""
    from nanobot.config.errors import ConfigLoadError
    _, cfg_path, _ = _paths(home)
    try:
        loader.save_config(loader.load_config(cfg_path), cfg_path)
    except (ConfigLoadError, ValueError) as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True}


class _FailingProvider:
    """A model that is never reachable: nanobot must take its raw-archive path, no network."""

    def __getattr__(self, name):
        raise RuntimeError(f"no provider in the interop tests ({name})")


def archive_session(home: str, key: str | None = None) -> dict:
    """nanobot's own idle compaction (AutoCompact -> Consolidator.compact_idle_session ->
    MemoryArchiver), on one session (KEY) or as its idle scan over every session. The budget
    leaves no room for a model call, so nanobot writes its `[RAW] N messages` checkpoint,
    commits the summary boundary and saves the session (rewriting its metadata line)."""
    from nanobot.agent.autocompact import AutoCompact
    from nanobot.agent.memory import Consolidator
    from nanobot.providers.base import GenerationSettings
    from nanobot.utils.llm_runtime import LLMRuntime

    _, _, ws = _paths(home)
    sm = _sessions(ws)
    store = _store(ws)
    before = store._next_cursor()
    cons = Consolidator(store, sm, build_messages=lambda **kw: [], get_tool_definitions=lambda: [])
    ac = AutoCompact(sm, cons, session_ttl_minutes=1)
    runtime = LLMRuntime(provider=_FailingProvider(), model="interop/none",
                         generation=GenerationSettings(max_tokens=1024), context_window_tokens=1024)

    async def run():
        if key is not None:
            ac._archiving.add(key)
            await ac._archive(key, runtime=runtime)
            return [key]
        jobs = []
        ac.check_expired(jobs.append, lambda s: runtime)
        await asyncio.gather(*jobs)
        return None

    asyncio.run(run())
    after = store._next_cursor()
    entries = [e for e in store.read_unprocessed_history(before - 1)]
    sm2 = _sessions(ws)
    return {"written": [{"cursor": e["cursor"], "session_key": e.get("session_key"),
                         "content": e["content"]} for e in entries],
            "next_cursor": after,
            "sessions": sorted((_session_info(sm2, i["key"]) for i in sm2.list_sessions()),
                               key=lambda s: s["key"])}


def chat(home: str, key: str, n: str | int) -> dict:
    """The user chats on: nanobot appends messages and saves (rewriting the metadata line)."""
    _, _, ws = _paths(home)
    sm = _sessions(ws)
    s = sm.get_or_create(key)
    start = len(s.messages)
    for i in range(int(n)):
        role = "user" if (start + i) % 2 == 0 else "assistant"
        s.add_message(role, f"{role} message {start + i + 1} about the tide-table talk")
    sm.save(s)
    return _session_info(_sessions(ws), key)


def system_prompt(home: str) -> dict:
    """What nanobot's ContextBuilder puts in a new chat's system prompt for this workspace."""
    from nanobot.agent.context import ContextBuilder
    _, _, ws = _paths(home)
    return {"text": ContextBuilder(ws).build_system_prompt(channel="cli")}


def _merge(base: dict, patch: dict) -> dict:
    out = dict(base)
    for k, v in patch.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def patch_config(home: str, patch: str) -> dict:
    """Change settings the way nanobot's own settings do: merge into its loaded config,
    validate with its schema, save with its saver."""
    from nanobot.config.schema import Config
    _, cfg_path, _ = _paths(home)
    cfg = loader.load_config(cfg_path)
    data = _merge(cfg.model_dump(mode="json", by_alias=True), json.loads(patch))
    loader.save_config(Config.model_validate(data), cfg_path)
    return {"ok": True}


def dream_model(home: str) -> dict:
    """The model nanobot's Dream would call for this home: dream.modelOverride's preset (or the
    default), its provider as nanobot matches it, and that provider's API base."""
    _, cfg_path, ws = _paths(home)
    cfg = loader.load_config(cfg_path)
    name = cfg.agents.defaults.dream.model_override
    preset = cfg.resolve_preset(name) if name else cfg.resolve_preset()
    from nanobot.agent.memory import MemoryStore
    store = MemoryStore(ws)
    return {"preset": name, "model": preset.model, "provider": cfg.get_provider_name(preset.model, preset=preset),
            "api_base": cfg.get_api_base(preset.model, preset=preset),
            "prompt_override": store.has_dream_prompt_override()}


def _command(handler, home: str, args: str) -> dict:
    from nanobot.agent.memory import MemoryStore
    _, _, ws = _paths(home)
    store = MemoryStore(ws)
    ctx = SimpleNamespace(loop=SimpleNamespace(consolidator=SimpleNamespace(store=store)),
                          args=args, msg=SimpleNamespace(channel="cli", chat_id="direct"))
    msg = asyncio.run(handler(ctx))
    return {"content": msg.content}


def dream_log(home: str, sha: str = "") -> dict:
    from nanobot.command.builtin import cmd_dream_log
    return _command(cmd_dream_log, home, sha)


def dream_restore(home: str, sha: str = "") -> dict:
    from nanobot.command.builtin import cmd_dream_restore
    return _command(cmd_dream_restore, home, sha)


# -- nanobot's own Dream ---------------------------------------------------------------------
def use_model(home: str, api_base: str, model: str = "interop-dream-model") -> dict:
    """Point the home at an OpenAI-compatible model the way a user would: nanobot's `custom`
    provider with an apiBase, chosen by `agents.defaults.provider`, saved by nanobot's saver."""
    return patch_config(home, json.dumps({
        "providers": {"custom": {"apiBase": api_base, "apiKey": "interop-key"}},
        "agents": {"defaults": {"provider": "custom", "model": model}}}))


def _gateway_agent(cfg_path: Path):
    """The AgentLoop nanobot's gateway builds (gateway_runtime), with its usage observer on
    the provider snapshot, without the channels, cron service or web UI around it."""
    from nanobot.agent.loop import AgentLoop
    from nanobot.agent.tools.mcp import MCPProvider
    from nanobot.agent.tools.registry import ToolRegistry
    from nanobot.bus.queue import MessageBus
    from nanobot.llm_usage import record_llm_call
    from nanobot.providers.factory import build_provider_snapshot
    from nanobot.session.manager import SessionManager

    config = loader.load_config(cfg_path)
    snapshot = build_provider_snapshot(config)
    snapshot.provider.set_llm_call_observer(record_llm_call)
    tools = ToolRegistry()
    mcp = MCPProvider.from_config(config, tools)
    agent = AgentLoop.from_config(config, MessageBus(), provider=snapshot.provider, model=snapshot.model,
                                  context_window_tokens=snapshot.context_window_tokens,
                                  session_manager=SessionManager(config.workspace_path), tool_registry=tools)
    return agent, mcp


async def _cron_dream(agent, mcp) -> dict:
    """gateway_runtime.on_cron_job for job.name == "dream", step for step, with nanobot's own
    objects; what it only logs is returned."""
    from nanobot.agent.memory import MemoryStore
    from nanobot.cli.gateway_runtime import _commit_dream_changes

    async def _silent(*_a, **_k):
        pass

    store = agent.context.memory
    out: dict = {"ran": False, "key": None, "completed": False, "sha": None, "failed": None}
    resp = None
    try:
        result = store.build_dream_prompt()
        if result is None:
            return out
        prompt, last_cursor = result
        out.update(ran=True, key=MemoryStore.dream_session_key(), last_cursor=last_cursor)
        await mcp.connect()
        resp = await agent.process_direct(prompt, session_key=out["key"], ephemeral=True,
                                          tools=store.build_dream_tools(), on_progress=_silent,
                                          runtime=agent.dream_runtime())
        out["diff"] = store.dream_content_diff()
        out["completed"] = MemoryStore.dream_run_completed(resp)
        if out["completed"]:
            store.set_last_dream_cursor(last_cursor)
        else:
            out["reason"] = MemoryStore.dream_incompletion_reason(resp)
    except Exception:
        out["failed"] = traceback.format_exc()
    finally:
        out["sha"] = _commit_dream_changes(store)
        store.compact_history()
        MemoryStore.prune_dream_sessions(agent.sessions)
    out["answer"] = getattr(resp, "content", None)
    return out


def dream(home: str) -> dict:
    """One run of nanobot's gateway cron Dream on the home, through its real AgentLoop and
    provider (the model the home's config names). Also reports what nanobot left behind:
    whether the `dream:<stamp>` session was saved, the usage store's records, and "seconds":
    the run's own duration (the cron job, not building the agent, which a gateway does once)."""
    _, cfg_path, ws = _paths(home)
    agent, mcp = _gateway_agent(cfg_path)

    async def run():
        try:
            return await _cron_dream(agent, mcp)
        finally:
            await mcp.aclose()

    t0 = time.perf_counter()
    out = asyncio.run(run())
    out["seconds"] = time.perf_counter() - t0
    sm = _sessions(ws)
    out["session_saved"] = bool(out["key"]) and sm._jsonl_store.get_session_path(out["key"]).exists()
    out["dream_sessions"] = sorted(i["key"] for i in sm.list_sessions() if i["key"].startswith("dream:"))
    out["usage"] = _usage_rows()
    return out


def _usage_rows() -> list[dict]:
    """Every record in nanobot's usage store for this config (its data dir), read by nanobot."""
    from nanobot.llm_usage import get_llm_usage_store, llm_usage_store_path
    path = llm_usage_store_path()
    if not path.exists():
        return []
    return get_llm_usage_store(path).recent_calls(limit=1000)


def close_usage(home: str) -> dict:
    """nanobot's usage store closed, as when its gateway exits: the last connection of a WAL
    store checkpoints it and removes the -wal/-shm files."""
    from nanobot.llm_usage import get_llm_usage_store, llm_usage_store_path
    _paths(home)
    get_llm_usage_store(llm_usage_store_path()).close()
    return {"ok": True}


def save_dream_session(home: str, key: str, messages: str) -> dict:
    """A `dream:<stamp>` transcript saved by nanobot's own SessionManager.save (the format
    prune_dream_sessions keeps ten of), from a JSON list of messages."""
    _, _, ws = _paths(home)
    sm = _sessions(ws)
    s = sm.get_or_create(key)
    for m in json.loads(messages):
        m = dict(m)
        s.add_message(m.pop("role"), m.pop("content", ""), **m)
    sm.save(s)
    return {"path": str(sm._jsonl_store.get_session_path(key))}


OPS = {"make-home": make_home, "check": check, "append-history": append_history, "save-config": save_config,
       "archive-session": archive_session, "dream-log": dream_log, "dream-restore": dream_restore, "chat": chat, "system-prompt": system_prompt,
       "patch-config": patch_config, "dream-model": dream_model, "use-model": use_model, "dream": dream,
       "close-usage": close_usage,
       "save-dream-session": save_dream_session}


def run(op: str, *args) -> dict:
    WARNINGS.clear()
    try:
        with contextlib.redirect_stdout(io.StringIO()):   # nothing of nanobot's may corrupt our JSON
            out = OPS[op](*args)
    except Exception:
        out = {"error": traceback.format_exc()}
    out["warnings"] = list(WARNINGS)
    return out


def serve() -> int:
    sys.stdout.write(json.dumps({"ready": True, "version": nanobot.__version__}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        step = json.loads(line)
        sys.stdout.write(json.dumps(run(step[0], *step[1:]), ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


def main(argv: list[str]) -> int:
    if not argv or (argv[0] not in OPS and argv[0] not in ("batch", "serve")):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "serve":
        return serve()
    if argv[0] == "batch":
        steps = json.load(sys.stdin)
        result = [run(step[0], *step[1:]) for step in steps]
    else:
        result = run(argv[0], *argv[1:])
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
