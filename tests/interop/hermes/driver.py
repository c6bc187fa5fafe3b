"""Drive Hermes Agent's own code (hermes-agent 0.19.0: tools/memory_tool.py's MemoryStore and
memory tool, hermes_cli/config.py's loader, the system prompt its `hermes prompt-size` command
builds) on a Hermes home. Run by *Hermes's* Python, never by Dreamdesk's (Hermes lives in its
own virtual environment; the tests talk to this script through hermes.py). Every answer is JSON.

    python driver.py serve      (one JSON request [op, HOME, args...] a line, one answer a line)

The ops (HOME is the folder HERMES_HOME names for that request; Hermes resolves it afresh on
every call, so one process serves many homes):

    memory HOME OPS        OPS a JSON list of {action, target, content?, old_text?, operations?},
                           each run through memory_tool() on a store made by load_on_disk_store()
                           (the config's limits, as the gateway and the CLI's /memory make it);
                           the answers are Hermes's own JSON replies
    read HOME              what a session start reads: the limits load_on_disk_store() took, each
                           target's entries, its size as Hermes counts it (_char_count, the
                           budget an add is checked against) and its frozen prompt block
                           (format_for_system_prompt), or null when nothing is injected
    guard HOME             whether Hermes's write guard refuses to rewrite each file: a remove
                           that matches nothing, in a copy of HOME (a refusal saves a .bak there);
                           once with the configured limits, once with limits too large to matter
                           (so whether the file round-trips is told apart from an entry over the
                           limit)
    config HOME            load_config()'s `memory` section as parsed (values and type names)
    system-prompt HOME     the volatile tier of the system prompt (memory, user profile, the
                           "Conversation started" line) of the offline inspection agent that
                           `hermes prompt-size` builds: build_system_prompt_parts(agent)
    probe LIMIT FILES      FILES a JSON list of MEMORY.md contents (base64), each read, counted,
                           rendered and guarded by Hermes in a home of its own (op_probe)
    hold-lock HOME TARGET  takes MemoryStore's own write lock on that file and answers "held";
                           the next request (any) releases it first, then runs

Nothing reaches the network: the tests run this with HTTP(S)_PROXY on a closed port of
127.0.0.1 and HERMES_DISABLE_LAZY_INSTALLS=1 (the inspection agent otherwise pip-installs a
text-to-speech package); HERMES_MANAGED_DIR names a folder that does not exist, so an
administrator's /etc/hermes cannot leak in.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import shutil
import sys
import tempfile
import traceback
from importlib.metadata import version
from pathlib import Path

logging.basicConfig(level=logging.ERROR, stream=sys.stderr)

from tools import memory_tool as mt  # noqa: E402  (Hermes's own module)

TARGETS = ("memory", "user")
_HELD: list = []           # the lock hold-lock took: (context manager,)


def _home(home: str) -> Path:
    os.environ["HERMES_HOME"] = home
    return Path(home)


def op_memory(home: str, ops: str) -> dict:
    _home(home)
    store = mt.load_on_disk_store()
    replies = []
    for op in json.loads(ops):
        reply = mt.memory_tool(action=op.get("action"), target=op.get("target", "memory"),
                               content=op.get("content"), old_text=op.get("old_text"),
                               operations=op.get("operations"), store=store)
        replies.append(json.loads(reply))
    return {"replies": replies}


def _snapshot(store) -> dict:
    entries = {"memory": store.memory_entries, "user": store.user_entries}
    return {t: {"entries": list(entries[t]), "chars": store._char_count(t),
                "block": store.format_for_system_prompt(t)} for t in TARGETS}


def op_read(home: str) -> dict:
    _home(home)
    store = mt.load_on_disk_store()
    return {"limits": {"memory": store.memory_char_limit, "user": store.user_char_limit}, **_snapshot(store)}


def _baks(home: Path) -> list[str]:
    return [p.name for p in (home / "memories").glob("*.bak.*")] if (home / "memories").is_dir() else []


def _refusal(home: Path, target: str, limits: tuple[int, int]) -> dict:
    """A remove that matches nothing, on a copy of the home (the .bak files already there
    removed from the copy): Hermes's guard answers first."""
    with tempfile.TemporaryDirectory(prefix="hermes-guard-") as scratch:
        copy = Path(scratch) / "home"
        shutil.copytree(home, copy, symlinks=True)
        os.environ["HERMES_HOME"] = str(copy)
        for name in _baks(copy):        # a refusal in the same second would overwrite it
            (copy / "memories" / name).unlink()
        reply = mt.MemoryStore(*limits).remove(target, "\x00matches no entry\x00")
        baks = sorted(_baks(copy))
        os.environ["HERMES_HOME"] = str(home)
    refused = "drift_backup" in reply
    return {"refused": refused, "error": reply.get("error", "") if refused else "", "baks": baks}


def op_guard(home: str) -> dict:
    path = _home(home)
    store = mt.load_on_disk_store()
    limits = (store.memory_char_limit, store.user_char_limit)
    out = {}
    for target in TARGETS:
        configured = _refusal(path, target, limits)
        loose = _refusal(path, target, (10**12, 10**12))
        out[target] = {"refused": configured["refused"], "round_trips": not loose["refused"],
                       "error": configured["error"], "baks": configured["baks"]}
    return out


def op_probe(limit: str, cases: str) -> dict:
    """For each MEMORY.md (base64 bytes), in a home of its own: what a start reads (entries,
    size, prompt block, with both limits `limit`), whether the guard refuses to rewrite it and
    whether it round-trips. A file Hermes cannot load answers {"error": <exception name>}."""
    out = []
    with tempfile.TemporaryDirectory(prefix="hermes-probe-") as tmp:
        for i, data in enumerate(json.loads(cases)):
            home = Path(tmp) / str(i)
            (home / "memories").mkdir(parents=True)
            (home / "memories" / "MEMORY.md").write_bytes(base64.b64decode(data))
            out.append(_probe_one(home, int(limit)))
    return {"answers": out}


def _probe_one(home: Path, limit: int) -> dict:
    os.environ["HERMES_HOME"] = str(home)
    store = mt.MemoryStore(limit, limit)
    try:
        store.load_from_disk()
    except Exception as e:
        return {"error": type(e).__name__}
    refused = [_refused_here(home, lim) for lim in (limit, 10**12)]
    return {**_snapshot(store)["memory"], "refused": refused[0], "round_trips": not refused[1]}


def _refused_here(home: Path, limit: int) -> bool:
    """_refusal in a throwaway home: no copy needed, the .bak it saves removed."""
    refused = "drift_backup" in mt.MemoryStore(limit, limit).remove("memory", "\x00matches no entry\x00")
    for name in _baks(home):
        (home / "memories" / name).unlink()
    return refused


def _typed(value):
    return {"value": value if isinstance(value, (int, float, str, bool, type(None))) else repr(value),
            "type": type(value).__name__}


def op_config(home: str) -> dict:
    _home(home)
    from hermes_cli.config import load_config
    section = load_config().get("memory")
    if not isinstance(section, dict):
        return {"memory": _typed(section)}
    return {"memory": {k: _typed(v) for k, v in section.items()}}


def op_system_prompt(home: str) -> dict:
    _home(home)
    from agent.system_prompt import build_system_prompt_parts
    from hermes_cli.prompt_size import _build_inspection_agent
    agent = _build_inspection_agent("cli")
    return {"volatile": build_system_prompt_parts(agent)["volatile"]}


def op_hold_lock(home: str, target: str) -> dict:
    _home(home)
    cm = mt.MemoryStore._file_lock(mt.MemoryStore._path_for(target))
    cm.__enter__()
    _HELD.append(cm)
    return {"held": True}


def _release() -> None:
    while _HELD:
        _HELD.pop().__exit__(None, None, None)


OPS = {"memory": op_memory, "read": op_read, "guard": op_guard, "config": op_config, "probe": op_probe,
       "system-prompt": op_system_prompt, "hold-lock": op_hold_lock}


def run(op: str, *args: str) -> dict:
    _release()
    try:
        return OPS[op](*args)
    except Exception:
        return {"error": traceback.format_exc()}


def serve() -> int:
    sys.stdout.write(json.dumps({"ready": True, "version": version("hermes-agent")}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if line.strip():
            step = json.loads(line)
            sys.stdout.write(json.dumps(run(step[0], *step[1:]), ensure_ascii=False) + "\n")
            sys.stdout.flush()
    _release()
    return 0


if __name__ == "__main__":
    if sys.argv[1:] != ["serve"]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(serve())
