"""A real process that holds a file open (or a real git process working in a repository) for
as long as a test needs: what "someone is using this lock right now" means to /proc."""

from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from dreamdesk.engine import git_repair

_HOLD = "import sys; f = open(sys.argv[1], 'ab'); print('held', flush=True); sys.stdin.read()"


@contextmanager
def holding(path: Path) -> Iterator[int]:
    """A process with `path` open until the block ends (it waits on its stdin); its pid."""
    proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"held"
        if git_repair.open_by_someone(path) is None:
            pytest.skip("no /proc here: a held lock cannot be told from a stale one")
        yield proc.pid
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()


@contextmanager
def git_working_in(root: Path) -> Iterator[int]:
    """A git process working in `root` (hash-object waiting for its input) until the block ends."""
    proc = subprocess.Popen(["git", "-C", str(root), "hash-object", "--stdin"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    try:
        for _ in range(10_000):            # until /proc shows it started in root (it chdirs first)
            if git_repair.git_at_work(root / ".git", root):
                break
        else:
            pytest.fail("the git process never showed up in /proc")
        yield proc.pid
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()
