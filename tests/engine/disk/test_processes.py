"""Who uses a file or a repository right now, as /proc tells (engine/disk/processes.py): the processes
that hold a file open, whatever order /proc lists them in and however a descriptor vanishes
while it is read; a git process by the repository it was given (--git-dir, GIT_DIR) or started
in. Real processes where a real one can show it; a /proc entry made in a folder where only a
made one can (a git helper's name, a name that is not UTF-8)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dreamdesk.engine.disk import processes
from helpers.lock_holder import HOLD, git_waiting, holding

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc here")

def repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "--quiet", str(path)], check=True)
    return path / ".git"


def test_the_holders_of_a_file_are_the_processes_that_have_it_open(tmp_path):
    lock = tmp_path / "index.lock"
    lock.write_bytes(b"")
    assert processes.holders_of(lock) == [] and processes.open_by_someone(lock) is False
    with holding(lock) as pid:
        assert processes.holders_of(lock) == [pid] and processes.open_by_someone(lock) is True


def test_every_process_is_looked_at_whatever_order_proc_lists_them_in(tmp_path, monkeypatch):
    """/proc lists its own entries (self, sys, …) among the pids; a process may exit between the
    listing of /proc and the reading of its fds, or close a descriptor between the listing of its
    fds and the reading of one: none of these ends the search."""
    lock = tmp_path / "index.lock"
    lock.write_bytes(b"")
    real_listdir, real_readlink = os.listdir, os.readlink
    with holding(lock) as pid:
        fd_dir = f"/proc/{pid}/fd"

        def listdir(path):
            names = real_listdir(path)
            if os.fspath(path) == "/proc":
                return ["self", "4194305"] + [n for n in names if n != "self"]     # and one gone meanwhile
            return ["0"] + [n for n in names if n != "0"] if os.fspath(path) == fd_dir else names

        def readlink(path):
            if os.fspath(path) == f"{fd_dir}/0":
                raise FileNotFoundError(2, "closed meanwhile", os.fspath(path))
            return real_readlink(path)
        monkeypatch.setattr(processes.os, "listdir", listdir)
        monkeypatch.setattr(processes.os, "readlink", readlink)
        assert processes.holders_of(lock) == [pid]


def test_a_process_is_described_by_the_start_of_its_command_line(tmp_path):
    lock = tmp_path / "index.lock"
    lock.write_bytes(b"")
    with holding(lock, "one", "two") as pid:
        words = f"{sys.executable} -c {HOLD}"                       # its first three arguments, cut
        assert processes.describe(pid) == f"process {pid} ({words[:80]})"
    code = "import sys; print('up', flush=True); sys.stdin.read()"
    short = subprocess.Popen(["py", "-c", code, "four"], executable=sys.executable, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    try:
        assert short.stdout.readline() == b"up\n"
        assert processes.describe(short.pid) == f"process {short.pid} (py -c {code})"      # not "four"
    finally:
        short.stdin.close()
        short.wait()
        short.stdout.close()
    assert processes.describe(2 ** 22 + 1) == f"process {2 ** 22 + 1}"     # no such process: its number


def test_a_git_given_the_repository_by_git_dir_works_in_it_wherever_it_started(tmp_path):
    ours, theirs = repo(tmp_path / "ours"), repo(tmp_path / "theirs")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with git_waiting(elsewhere, f"--git-dir={ours}"):
        assert processes.git_at_work(ours) is True and processes.git_at_work(theirs) is False
    with git_waiting(tmp_path, env={"GIT_DIR": "ours/.git"}):       # relative to where it started
        assert processes.git_at_work(ours) is True and processes.git_at_work(theirs) is False
    with git_waiting(elsewhere, f"--git-dir={ours}", env={"GIT_DIR": str(theirs)}):   # both: either counts
        assert processes.git_at_work(ours) is True and processes.git_at_work(theirs) is True
    assert processes.git_at_work(ours) is False


def test_a_git_started_in_the_work_tree_works_in_a_repository_kept_elsewhere(tmp_path):
    git_dir = repo(tmp_path / "store")
    tree = tmp_path / "tree"
    (tree / "memory").mkdir(parents=True)
    with git_waiting(tree / "memory"):
        assert processes.git_at_work(git_dir, work_tree=tree) is True
        assert processes.git_at_work(git_dir) is False          # its work tree not named: not known to be it
    with git_waiting(tmp_path):                                 # above the work tree: not in it
        assert processes.git_at_work(git_dir, work_tree=tree) is False


def fake_entry(tmp_path: Path, comm: bytes | None) -> Path:
    """A /proc/<pid> entry, made: its comm (None: none to read)."""
    entry = tmp_path / "4242"
    entry.mkdir()
    if comm is not None:
        (entry / "comm").write_bytes(comm)
    return entry


@pytest.mark.parametrize("comm, git", [(b"git\n", True), (b"git-upload-pack\n", True), (b"git-\xff\xfe\n", True),
                                       (b"gitk\n", False), (b"\xffgit\n", False), (None, False)])
def test_a_git_process_is_git_or_one_of_its_helpers(tmp_path, comm, git):
    assert processes._git_process(fake_entry(tmp_path, comm)) is git
