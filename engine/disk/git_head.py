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


NULL = "0" * 40           # git's name for "no commit" (an unborn branch; the old side of a first commit)


def resolve(git_dir: Path) -> str | None:
    """The commit HEAD names, as the files say; NULL before the first commit; None where the
    files cannot say. (Asked at every snapshot: plain string paths, not pathlib.)"""
    base = os.fspath(git_dir)
    try:
        with open(os.path.join(base, "HEAD"), "rb") as f:
            head = f.read().strip()
        if not head.startswith(b"ref: "):
            return head.decode("ascii") if _is_sha(head) else None
        name = head[5:].strip()
        try:
            with open(os.path.join(base, os.fsdecode(name)), "rb") as f:
                value = f.read().strip()
        except FileNotFoundError:      # packed, unborn, or kept elsewhere (reftable, a worktree's commondir)
            if os.path.exists(os.path.join(base, "reftable")) or os.path.exists(os.path.join(base, "commondir")):
                return None
            value = _packed(git_dir / "packed-refs", name)
        return value.decode("ascii") if _is_sha(value) else None
    except OSError:
        return None


def unborn(git_dir: Path) -> bool | None:
    """HEAD names a branch that has no commit yet, as the files say (None: they cannot say)."""
    sha = resolve(git_dir)
    return None if sha is None else sha == NULL


def moved_by(git_dir: Path, old: str, who: str, since: int) -> str | None:
    """The commit `who` moved HEAD to from `old`, at `since` (unix seconds) or later, as HEAD's
    reflog says (the newest such line of its last 8 KB); None: no such line."""
    try:
        with open(git_dir / "logs" / "HEAD", "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - 8192))
            tail = f.read()
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        # "<old> <new> <name> <<email>> <seconds> <zone>\t<message>"
        fields = line.partition(b"\t")[0].split(b" ")
        if len(fields) >= 6 and fields[0] == old.encode() and b" ".join(fields[2:-2]) == who.encode() \
                and fields[-2].isdigit() and int(fields[-2]) >= since and _is_sha(fields[1]):
            return fields[1].decode("ascii")
    return None


def _packed(packed_refs: Path, name: bytes) -> bytes:
    """A ref's commit from packed-refs ("<sha> <name>" lines); NULL when it is not there."""
    try:
        lines = packed_refs.read_bytes().splitlines()
    except FileNotFoundError:
        return NULL.encode()
    for line in lines:
        sha, _, ref = line.partition(b" ")
        if ref == name:
            return sha
    return NULL.encode()


def _is_sha(text: bytes) -> bool:
    return len(text) in (40, 64) and all(c in b"0123456789abcdef" for c in text)
