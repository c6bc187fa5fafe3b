"""Where HEAD points, told from the files git keeps it in, without running git: a stamp that is
equal only while HEAD names the same commit, so what was read from HEAD can be kept until then.

HEAD is a file: a commit id (detached) or `ref: refs/heads/<branch>`; the branch is a loose file
under refs/ or a line of packed-refs. git rewrites each by renaming a new file over it, so the
text, the modification time and the inode of HEAD, of the loose ref and of packed-refs together
change whenever HEAD moves; equal texts alone already mean the same commit. Where
refs are kept otherwise (reftable, a linked worktree's commondir, a ref naming another ref)
there is no stamp.
"""

from __future__ import annotations

import os
from pathlib import Path


def head_stamp(git_dir: Path) -> tuple | None:
    try:
        if (git_dir / "reftable").exists() or (git_dir / "commondir").exists():
            return None
        head = _file(git_dir / "HEAD")
        stamp = [head, _file(git_dir / "packed-refs")]
        if head is not None and head[0].startswith(b"ref: "):
            name = head[0][5:].strip().decode("utf-8", "surrogateescape")
            if not name.startswith("refs/") or ".." in name:
                return None
            ref = _file(git_dir / name)
            if ref is not None and ref[0].startswith(b"ref: "):
                return None
            stamp.append(ref)
        return tuple(stamp)
    except OSError:
        return None


def _file(path: Path) -> tuple[bytes, int, int] | None:
    """Text, mtime and inode (None: no such file)."""
    try:
        st = os.stat(path)
        return path.read_bytes(), st.st_mtime_ns, st.st_ino
    except FileNotFoundError:
        return None
