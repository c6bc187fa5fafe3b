"""Is the assistant running right now? nanobot 0.3.5's gateway records itself in
`<home>/run/gateway*.json` (and its API server `run/api*.json`: its pid, and the pids of the clients holding it open). A running
nanobot keeps its sessions in memory and saves them whole: a session offset we advance while it
runs is written back to its older value at its next save, and it then archives the same
messages again. So compaction of its sessions waits until it is stopped. Read only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


# nanobot's long-running processes that hold sessions in memory and record themselves in run/:
# the gateway, and the API server when the web UI starts it
RUNTIMES = ("gateway", "api")


def _alive_windows(pid: int) -> bool:   # pragma: no cover - Windows only
    # os.kill(pid, 0) would send CTRL_C_EVENT there: ask for the process instead
    import ctypes
    kernel32 = ctypes.windll.kernel32
    handle = kernel32.OpenProcess(0x1000, False, pid)      # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return ctypes.get_last_error() == 5                # access denied: it exists
    try:
        code = ctypes.c_ulong()
        return bool(kernel32.GetExitCodeProcess(handle, ctypes.byref(code))) and code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def _alive(pid: int) -> bool:
    if pid <= 0 or pid >= 2 ** 31 or pid == os.getpid():
        return False
    if os.name == "nt":
        return _alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True       # someone else's process, but alive
    except OSError:
        return False
    return True


def _pids(state: dict) -> list[int]:
    found = [state.get("pid")]
    clients = state.get("clients")
    if isinstance(clients, dict):
        found += [c.get("pid") for c in clients.values() if isinstance(c, dict)]
    return [p for p in found if isinstance(p, int) and not isinstance(p, bool)]


def running_assistant(home: Path | None) -> int | None:
    """The pid of a live nanobot gateway for this home, or None."""
    if home is None:
        return None
    run = Path(home) / "run"
    try:
        names = sorted(n for n in os.listdir(run) if n.startswith(RUNTIMES) and n.endswith(".json"))
    except OSError:
        return None
    for n in names:
        try:
            state = json.loads((run / n).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            continue
        if isinstance(state, dict):
            for pid in _pids(state):
                if _alive(pid):
                    return pid
    return None
