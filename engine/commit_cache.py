"""Dreamdesk's cache of what it derived from a snapshot repository, outside every workspace.

The commit log (engine/commit_log.py) is derived from git alone, so it may be kept where the
user's caches live: `$DREAMDESK_CACHE_DIR` (tests, portable installs), else the platform's user
cache folder. One JSON file per repository, named by a hash of the repository's real path and
holding the HEAD it was made at. Written atomically; a cache that cannot be read, is corrupt
or was written by another version is ignored (and rebuilt), never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

ENV = "DREAMDESK_CACHE_DIR"


def cache_root() -> Path:
    from .state import user_dir
    return user_dir(ENV, "user_cache_dir")


def cache_file(git_dir: Path, name: str) -> Path:
    key = hashlib.sha256(os.path.realpath(git_dir).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return cache_root() / name / f"{key}.json"


def load(git_dir: Path, name: str, version: int) -> dict | None:
    """The cached object, or None when there is none usable (missing, corrupt, older version,
    another repository's)."""
    try:
        data = json.loads(cache_file(git_dir, name).read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("version") != version or \
            data.get("repo") != os.path.realpath(git_dir):
        return None
    return data


def save(git_dir: Path, name: str, version: int, data: dict) -> None:
    """Write the cache atomically; a cache that cannot be written only costs time next open."""
    from .files import atomic_write_bytes
    body = dict(data, version=version, repo=os.path.realpath(git_dir))
    try:
        atomic_write_bytes(cache_file(git_dir, name), json.dumps(body, ensure_ascii=False).encode("utf-8"))
    except OSError:
        pass
