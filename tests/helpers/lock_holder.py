"""A real process that holds a file open (or a real git process working in a repository) for
as long as a test needs: what "someone is using this lock right now" means to /proc."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from dreamdesk.engine.disk import git_repair

HOLD = "import sys; f = open(sys.argv[1], 'ab'); print('held', flush=True); sys.stdin.read()"


@contextmanager
def holding(path: Path, *extra: str) -> Iterator[int]:
    """A process with `path` open until the block ends (it waits on its stdin); its pid. `extra`
    arguments lengthen its command line."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), *extra], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"held"
        if not Path("/proc/self/fd").is_dir():          # not open_by_someone: a None from it is a bug
            pytest.skip("no /proc here: a held lock cannot be told from a stale one")
        yield proc.pid
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()


@contextmanager
def git_waiting(cwd: Path, *args: str, env: dict | None = None, ready=None) -> Iterator[int]:
    """`git ARGS hash-object --stdin` started in `cwd`, waiting for its input until the block ends,
    once `ready(pid)` (default: /proc shows git's command line, not the fork's)."""
    proc = subprocess.Popen(["git", *args, "hash-object", "--stdin"], cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env={**os.environ, **(env or {})})
    ready = ready or (lambda pid: Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"git"))
    try:
        for _ in range(100_000):
            if ready(proc.pid):
                break
        else:
            pytest.fail("the git process never showed up in /proc")
        yield proc.pid
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()


def git_working_in(root: Path):
    """A git process working in `root` until the block ends (it chdirs there first)."""
    return git_waiting(root, "-C", str(root), ready=lambda pid: git_repair.git_at_work(root / ".git", root))
