"""Dreamdesk's own per-workspace state, kept outside the workspace.

The assistant's git sees everything under memory/ (nanobot's .gitignore re-includes the whole
folder), so nothing of Dreamdesk's bookkeeping may live there: job and file locks, the
Consolidator's journal, what Dreamdesk last wrote to config.json. They live in
`<state root>/workspaces/<key>/`, where the key is a hash of the workspace's real path and the
folder's `workspace.txt` names that path for a person looking. The state root is
`$DREAMDESK_STATE_DIR` when set (tests, portable installs), else the platform's user state
folder. Nothing here is created by merely opening a workspace: callers create it when a job
or a write needs it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ENV = "DREAMDESK_STATE_DIR"


def state_root() -> Path:
    return user_dir(ENV, "user_state_dir")


def user_dir(env: str, kind: str) -> Path:
    """The folder `$env` names when set (tests, portable installs), else the platform's folder
    of that kind (platformdirs' user_state_dir, user_cache_dir...) for Dreamdesk."""
    if os.environ.get(env):
        return Path(os.environ[env])
    import platformdirs
    return Path(getattr(platformdirs, kind)("dreamdesk", "dreamdesk"))


def workspace_key(root: Path) -> str:
    real = os.path.realpath(os.path.abspath(root))
    return hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def workspace_state_dir(root: Path, *, create: bool = False) -> Path:
    """This workspace's state folder (created, with its workspace.txt, only when asked)."""
    d = state_root() / "workspaces" / workspace_key(root)
    if create and not d.is_dir():
        d.mkdir(parents=True, exist_ok=True)
        try:
            (d / "workspace.txt").write_text(os.path.realpath(root) + "\n", encoding="utf-8")
        except OSError:
            pass   # only a label for people; the key is what matters
    return d


def lock_path(root: Path, name: str) -> Path:
    """Where the lock called `name` (job, history, archive) of this workspace lives."""
    return workspace_state_dir(root) / "locks" / f"{name}.lock"
