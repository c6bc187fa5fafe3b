"""Healing the snapshot repository after a kill: a half-made `git init` and a stale index.lock.

A kill can leave a repository git no longer opens (HEAD without objects/, HEAD renamed to
HEAD.lock by an init cut short) or lock files from an add or commit cut short (index.lock,
HEAD.lock, a ref's lock), after which git refuses every snapshot. Only what cannot lose
anything is repaired: a half-made repository holding no object and no ref (nothing was ever
committed into it), and a lock file whose owner is gone. Anything else is reported with the
command that fixes it, and left alone.

Whose a lock is: on Linux /proc says at once whether any process has the lock open and whether
a git process works in the repository; a lock neither holds is stale now, not in a minute (a
user retries within seconds of a crash). A writer /proc cannot name (a git library inside some
program) closes its lock and renames it within microseconds, so the lock must look the same,
unheld, twice a moment apart. Without /proc only age tells: older than any git operation.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from .processes import describe, git_at_work, holders_of, open_by_someone  # noqa: F401  (the heal tests ask here)

STALE_LOCK_SECONDS = 60        # a git add/commit on memory files takes milliseconds
SECOND_LOOK_SECONDS = 0.05     # a writer's close-then-rename takes microseconds
SETTLE_SECONDS = 10            # a repository touched more recently may still be being created
INIT_TMP_TAG = ".dreamdesk-init-"
_TOP_LOCKS = ("HEAD.lock", "config.lock", "index.lock")


def half_made(git_dir: Path) -> str | None:
    """Why `git_dir` is not a whole repository (None: it is, or it does not exist)."""
    base = os.fspath(git_dir)              # strings: asked before every snapshot, pathlib costs more
    if not os.path.isdir(base):
        return None
    missing = [n for n in ("HEAD", "config", "objects", "refs") if not os.path.exists(os.path.join(base, n))]
    if missing:
        return f"{', '.join(missing)} missing"
    # a HEAD.lock or config.lock beside a whole HEAD and config is a commit cut short, not an
    # init: a stale lock (clear_stale_locks), never a reason to call the repository half-made
    return None


def holds_nothing(git_dir: Path) -> bool:
    """No object, no ref, no packed-refs: nothing was ever committed, so re-running init loses
    nothing."""
    objects = git_dir / "objects"
    if objects.is_dir():
        for _dirpath, _dirs, files in os.walk(objects):
            if files:
                return False
    refs = git_dir / "refs"
    if refs.is_dir():
        for _dirpath, _dirs, files in os.walk(refs):
            if files:
                return False
    return not (git_dir / "packed-refs").exists()


def settled(path: Path, now: float | None = None) -> bool:
    """Nobody is creating it right now (the assistant may be running its own git init)."""
    now = time.time() if now is None else now
    try:
        newest = max([os.lstat(path).st_mtime] + [os.lstat(path / n).st_mtime for n in os.listdir(path)])
    except OSError:
        return False
    return now - newest >= SETTLE_SECONDS


def busy_lock_words(lock: Path, work_tree: Path | None = None) -> str:
    """Why git found `lock` taken, and what to do, in words (git's own text is "Unable to
    create '…': File exists" and a page of hints)."""
    holders = holders_of(lock) or []
    if holders:
        return (f"{lock.name} is held by {describe(holders[0])}, which is working in this repository right now; "
                "try again when it has finished")
    if git_at_work(_git_dir_of(lock), work_tree):
        return (f"a git command is working in this repository right now (it holds {lock.name}); "
                "try again when it has finished")
    return (f"{lock} is left from a git command that was interrupted; if no git program is running, "
            "delete that file and try again")


def stale_lock(lock: Path, now: float | None = None, work_tree: Path | None = None) -> bool:
    """A lock whose owner is gone: nobody has it open and no git works in its repository (the
    lock's git dir, `work_tree` its work tree), two looks a moment apart; where /proc cannot
    tell, older than any git operation of ours takes."""
    now = time.time() if now is None else now
    first = _look(lock)
    if first is None:
        return False
    if now - first[1] >= STALE_LOCK_SECONDS:
        return open_by_someone(lock) is not True
    git_dir = _git_dir_of(lock)
    if open_by_someone(lock) is not False or git_at_work(git_dir, work_tree) is not False:
        return False                       # held, worked on, or cannot be told: not yet
    time.sleep(SECOND_LOOK_SECONDS)
    return _look(lock) == first and open_by_someone(lock) is False and git_at_work(git_dir, work_tree) is False


def _look(lock: Path) -> tuple[int, float] | None:
    try:
        st = os.lstat(lock)
    except OSError:
        return None
    return st.st_ino, st.st_mtime


def _git_dir_of(lock: Path) -> Path:
    """The repository a lock belongs to (refs/heads/x.lock lies deeper than index.lock)."""
    for parent in lock.parents:
        if (parent / "HEAD").exists() and (parent / "objects").is_dir():
            return parent
    return lock.parent


def _locks(git_dir: Path) -> list[str]:
    """git's lock files that are there (regular files, by name relative to git_dir): the
    top-level ones and a ref's (refs/heads/master.lock), which a kill during a commit leaves
    too. Asked before every snapshot: plain scandir, not pathlib."""
    base = os.fspath(git_dir)
    top = [n for n in _TOP_LOCKS + ("packed-refs.lock",) if _regular(os.path.join(base, n))]
    found, folders = [], ["refs"]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(os.path.join(base, folder)) as entries:
                for e in entries:
                    if e.is_dir(follow_symlinks=False):
                        folders.append(f"{folder}/{e.name}")
                    elif e.name.endswith(".lock") and e.is_file(follow_symlinks=False):
                        found.append(f"{folder}/{e.name}")
        except OSError:
            continue
    return top + sorted(found)


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)      # not a symlink, not a folder
    except OSError:
        return False


def clear_stale_locks(git_dir: Path, now: float | None = None, work_tree: Path | None = None) -> list[str]:
    """Remove the lock files of `git_dir` whose owner is gone; their names (relative)."""
    cleared = []
    for name in _locks(git_dir):
        lock = git_dir / name
        if stale_lock(lock, now, work_tree):
            try:
                os.unlink(lock)
                cleared.append(name)
            except OSError:
                continue
    return cleared


def sweep_init_temps(parent: Path, now: float | None = None) -> None:
    """Folders our atomic init left when killed before its rename (never anyone else's)."""
    import shutil
    try:
        names = [n for n in os.listdir(parent) if n.startswith(".") and INIT_TMP_TAG in n]
    except OSError:
        return
    for n in names:
        p = parent / n
        if p.is_dir() and not p.is_symlink() and settled(p, now):
            shutil.rmtree(p, ignore_errors=True)
