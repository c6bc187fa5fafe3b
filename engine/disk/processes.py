"""Who is using a file or a repository right now, as Linux's /proc tells: which processes have
a file open, whether a git process works in a repository. Every answer is None where /proc
cannot tell (another system); callers then fall back to age."""

from __future__ import annotations

import os
from pathlib import Path


def open_by_someone(path: Path) -> bool | None:
    """Does any process have this file open? None where that cannot be told (no /proc)."""
    holders = holders_of(path)
    return None if holders is None else bool(holders)


def holders_of(path: Path) -> list[int] | None:
    """The processes that have this file open (None: no /proc to tell)."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return None
    target = os.path.realpath(path)
    found = []
    for pid in os.listdir(proc):
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir(proc / pid / "fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(proc / pid / "fd" / fd) == target:
                    found.append(int(pid))
                    break
            except OSError:
                continue
    return found


def git_at_work(git_dir: Path, work_tree: Path | None = None) -> bool | None:
    """Is a git process working in this repository right now: one given it by --git-dir or
    GIT_DIR, or (given neither) started inside its work tree or the repository itself? None
    where that cannot be told (no /proc)."""
    proc = Path("/proc")
    if not (proc / "self").is_dir():
        return None
    target = os.path.realpath(git_dir)
    places = [target] + ([os.path.realpath(work_tree)] if work_tree is not None else [])
    for pid in os.listdir(proc):
        if pid.isdigit() and _git_process(proc / pid) and _works_in(proc / pid, target, places):
            return True
    return False


def _git_process(entry: Path) -> bool:
    try:
        comm = (entry / "comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return False
    return comm == "git" or comm.startswith("git-")


def _works_in(entry: Path, target: str, places: list[str]) -> bool:
    """A git process's repository: its --git-dir / GIT_DIR when given, else where it started."""
    try:
        args = (entry / "cmdline").read_bytes().split(b"\0")
        cwd = os.readlink(entry / "cwd")
    except OSError:
        return False
    given = [a[len(b"--git-dir="):] for a in args if a.startswith(b"--git-dir=")]
    try:
        env = (entry / "environ").read_bytes().split(b"\0")
        given += [e[len(b"GIT_DIR="):] for e in env if e.startswith(b"GIT_DIR=")]
    except OSError:
        pass
    if given:
        return any(os.path.realpath(os.path.join(cwd, os.fsdecode(g))) == target for g in given)
    return any(cwd == p or cwd.startswith(p + os.sep) for p in places)


def describe(pid: int) -> str:
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        what = " ".join(os.fsdecode(a) for a in args[:3] if a)
    except OSError:
        what = ""
    return f"process {pid}" + (f" ({what[:80]})" if what else "")
