"""Dreamdesk's cache of what it derived from a snapshot repository, outside every workspace.

The commit log (engine/versions/commit_log.py) is derived from git alone, so it may be kept where the
user's caches live: `$DREAMDESK_CACHE_DIR` (tests, portable installs), else the platform's user
cache folder. One file per repository, named by a hash of the repository's real path: a JSON
header line (version, repository, what the caller keeps there such as the HEAD it was made at,
the body's length and CRC-32) and a JSON body of compact rows. Written atomically; a cache that
cannot be read, is corrupt (the CRC: callers may trust the rows' shape and decode them lazily)
or was written by another version is ignored (and rebuilt), never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from pathlib import Path

ENV = "DREAMDESK_CACHE_DIR"


def cache_root() -> Path:
    from ..core.state import user_dir
    return user_dir(ENV, "user_cache_dir")


def cache_file(git_dir: Path, name: str) -> Path:
    key = hashlib.sha256(os.path.realpath(git_dir).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return cache_root() / name / f"{key}.json"


def load(git_dir: Path, name: str, version: int) -> tuple[dict, list] | None:
    """The cached header and rows, or None when there are none usable (missing, corrupt, older
    version, another repository's)."""
    try:
        raw = cache_file(git_dir, name).read_bytes()
        head, _, body = raw.partition(b"\n")
        data = json.loads(head)
        if not isinstance(data, dict) or data.get("version") != version or \
                data.get("repo") != os.path.realpath(git_dir) or data.get("crc") != [len(body), zlib.crc32(body)]:
            return None
        rows = json.loads(body)
    except (OSError, ValueError, RecursionError):
        return None
    return (data, rows) if isinstance(rows, list) else None


def save(git_dir: Path, name: str, version: int, data: dict, rows: list) -> None:
    """Write the cache atomically; a cache that cannot be written only costs time next open."""
    from ..disk.files import atomic_write_bytes
    body = json.dumps(rows, separators=(",", ":")).encode("ascii")      # \u-escaped: any str is written
    head = dict(data, version=version, repo=os.path.realpath(git_dir), crc=[len(body), zlib.crc32(body)])
    try:
        atomic_write_bytes(cache_file(git_dir, name), json.dumps(head).encode("ascii") + b"\n" + body)
    except OSError:
        pass
