"""The snapshot repository's repair at its edges (engine/disk/git_repair.py): which lock files are git's,
what happens in the moment between the two looks at a lock, the words a busy lock is refused with,
what a half-made repository holds, and the folders a killed init leaves. Real git processes and
real holders; the moment between the looks is reached by acting in it."""

from __future__ import annotations

import os
import subprocess
from contextlib import ExitStack
from pathlib import Path

import pytest

from dreamdesk.engine.disk import git_repair
from helpers.lock_holder import git_waiting, git_working_in, holding

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc here")
MADE = 1_800_000_000          # whole seconds: `now - MADE` is exactly what a test adds


@pytest.fixture
def repo(tmp_path) -> tuple[Path, Path]:
    """(work tree, git dir) of a repository with one commit."""
    tree = tmp_path / "ws"
    tree.mkdir()
    (tree / "USER.md").write_text("# User\n")
    for args in (["init", "--quiet"], ["add", "USER.md"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "init: test"]):
        subprocess.run(["git", "-C", str(tree), *args], check=True)
    return tree, tree / ".git"


def in_the_moment_between_the_looks(monkeypatch, action) -> list[bool]:
    """Run `action` while stale_lock waits between its two looks; says whether it was reached."""
    reached = []

    def sleep(_seconds):
        reached.append(True)
        action()
    monkeypatch.setattr(git_repair.time, "sleep", sleep)
    return reached


def test_a_lock_nobody_uses_in_the_moment_between_the_looks_is_stale(repo, monkeypatch):
    tree, git_dir = repo
    (git_dir / "index.lock").write_bytes(b"")
    reached = in_the_moment_between_the_looks(monkeypatch, lambda: None)
    assert git_repair.stale_lock(git_dir / "index.lock", work_tree=tree) is True and reached
    assert git_repair.stale_lock(git_dir / "gone.lock", work_tree=tree) is False      # no such lock


def a_git(kind: str, tree: Path, git_dir: Path):
    """A git working in the repository: started in its work tree, or given it from elsewhere."""
    return git_working_in(tree) if kind == "in the work tree" else git_waiting(tree.parent, f"--git-dir={git_dir}")


GITS = ["in the work tree", "given --git-dir"]


@pytest.mark.parametrize("kind", GITS)
def test_a_git_that_starts_between_the_looks_keeps_the_lock(repo, monkeypatch, kind):
    tree, git_dir = repo
    (git_dir / "index.lock").write_bytes(b"")
    with ExitStack() as stack:
        reached = in_the_moment_between_the_looks(
            monkeypatch, lambda: stack.enter_context(a_git(kind, tree, git_dir)))
        assert git_repair.stale_lock(git_dir / "index.lock", work_tree=tree) is False and reached


def test_a_process_that_opens_the_lock_between_the_looks_keeps_it(repo, monkeypatch):
    tree, git_dir = repo
    lock = git_dir / "index.lock"
    lock.write_bytes(b"")
    with ExitStack() as stack:
        reached = in_the_moment_between_the_looks(monkeypatch, lambda: stack.enter_context(holding(lock)))
        assert git_repair.stale_lock(lock, work_tree=tree) is False and reached


def test_a_lock_made_anew_between_the_looks_is_someone_s_fresh_lock(repo, monkeypatch):
    tree, git_dir = repo
    lock = git_dir / "index.lock"
    lock.write_bytes(b"")

    def made_anew():
        lock.unlink()
        lock.write_bytes(b"new")
        os.utime(lock, (MADE, MADE))
    reached = in_the_moment_between_the_looks(monkeypatch, made_anew)
    assert git_repair.stale_lock(lock, work_tree=tree) is False and reached


@pytest.mark.parametrize("kind", GITS)
def test_a_git_working_at_the_first_look_keeps_the_lock_though_it_ends_before_a_second(repo, monkeypatch, kind):
    """The first look decides, for a git started in the work tree as for one given the repository."""
    tree, git_dir = repo
    (git_dir / "index.lock").write_bytes(b"")
    with ExitStack() as stack:
        stack.enter_context(a_git(kind, tree, git_dir))
        reached = in_the_moment_between_the_looks(monkeypatch, stack.close)
        assert git_repair.stale_lock(git_dir / "index.lock", work_tree=tree) is False and not reached


def test_a_branch_s_lock_belongs_to_its_repository(repo, tmp_path):
    """refs/heads/x.lock lies deeper than index.lock: the git working in the repository (given it
    by --git-dir, from elsewhere) is found from it too."""
    tree, git_dir = repo
    lock = git_dir / "refs" / "heads" / "feature" / "x.lock"
    lock.parent.mkdir(parents=True)
    lock.write_bytes(b"")
    with git_waiting(tmp_path, f"--git-dir={git_dir}"):
        assert git_repair.clear_stale_locks(git_dir, work_tree=tree) == []
    assert git_repair.clear_stale_locks(git_dir, work_tree=tree) == ["refs/heads/feature/x.lock"]


def test_git_s_lock_files_are_its_own_regular_files_and_no_link_is_followed(repo, tmp_path):
    tree, git_dir = repo
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "theirs.lock").write_bytes(b"")
    (outside / "file.lock").write_bytes(b"")
    (git_dir / "refs" / "heads" / "linked").symlink_to(outside / "deep", target_is_directory=True)
    (git_dir / "refs" / "heads" / "link.lock").symlink_to(outside / "file.lock")
    (git_dir / "packed-refs.lock").write_bytes(b"")
    (git_dir / "refs" / "tags" / "v1.lock").write_bytes(b"")
    assert git_repair.clear_stale_locks(git_dir, work_tree=tree) == ["packed-refs.lock", "refs/tags/v1.lock"]
    assert (outside / "deep" / "theirs.lock").exists() and (outside / "file.lock").exists()


def test_a_busy_lock_is_said_in_words_by_who_holds_it(repo, tmp_path):
    tree, git_dir = repo
    lock = git_dir / "index.lock"
    lock.write_bytes(b"")
    with holding(lock) as pid:
        words = git_repair.busy_lock_words(lock, tree)
        assert words == (f"index.lock is held by {git_repair.describe(pid)}, which is working in this repository "
                         "right now; try again when it has finished")
    with git_waiting(tmp_path, f"--git-dir={git_dir}"):
        assert git_repair.busy_lock_words(lock, tree) == (
            "a git command is working in this repository right now (it holds index.lock); try again when it has "
            "finished")
    assert git_repair.busy_lock_words(lock, tree) == (
        f"{lock} is left from a git command that was interrupted; if no git program is running, delete that file "
        "and try again")


@pytest.mark.parametrize("what, holds_nothing", [(None, True), ("objects/ab/cdef", False), ("refs/heads/main", False),
                                                 ("packed-refs", False)])
def test_a_half_made_repository_is_repaired_only_when_it_holds_nothing(tmp_path, what, holds_nothing):
    git_dir = tmp_path / ".git"
    for folder in ("objects/info", "refs/heads"):
        (git_dir / folder).mkdir(parents=True)
    if what:
        (git_dir / what).parent.mkdir(parents=True, exist_ok=True)
        (git_dir / what).write_bytes(b"x")
    assert git_repair.half_made(git_dir) == "HEAD, config missing"
    assert git_repair.holds_nothing(git_dir) is holds_nothing


def test_a_folder_is_settled_once_nothing_in_it_changed_for_ten_seconds(tmp_path):
    folder = tmp_path / "new"
    folder.mkdir()
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    os.utime(folder, (MADE - 100, MADE - 100))
    os.utime(folder / "HEAD", (MADE, MADE))                 # the newest thing in it counts
    assert git_repair.settled(folder, now=MADE + git_repair.SETTLE_SECONDS) is True
    assert git_repair.settled(folder, now=MADE + git_repair.SETTLE_SECONDS - 1) is False
    assert git_repair.settled(tmp_path / "gone", now=MADE + 100) is False


def test_only_our_settled_init_folders_are_swept(tmp_path):
    """A kill before an init's rename leaves `.git.dreamdesk-init-*`: swept once settled; a fresh
    one (an init under way), a link with that name, a file, and anyone else's folder stay."""
    def folder(name: str, stamp: int) -> Path:
        p = tmp_path / name
        (p / "objects").mkdir(parents=True)
        for q in (p / "objects", p):
            os.utime(q, (stamp, stamp))
        return p
    ours = folder(".git.dreamdesk-init-0a1b", MADE)
    fresh = folder(".git.dreamdesk-init-2c3d", MADE + 95)
    theirs = folder(".git.other-init-4e5f", MADE)
    unhidden = folder("git.dreamdesk-init-6a7b", MADE)
    target = folder("target", MADE)
    (tmp_path / ".git.dreamdesk-init-8c9d").symlink_to(target, target_is_directory=True)
    (tmp_path / ".git.dreamdesk-init-file").write_text("x")
    git_repair.sweep_init_temps(tmp_path, now=MADE + 100)
    assert not ours.exists()
    assert all(p.exists() for p in (fresh, theirs, unhidden, target / "objects", tmp_path / ".git.dreamdesk-init-8c9d",
                                    tmp_path / ".git.dreamdesk-init-file"))
    git_repair.sweep_init_temps(tmp_path / "no-such-folder")                 # nothing to sweep: no error
