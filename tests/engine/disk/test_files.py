"""dreamdesk.engine.disk.files: atomic writes, hash-checked writes, paths inside the workspace, the file lock."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dreamdesk.engine.disk.files as files_mod
from dreamdesk.engine.disk.files import (
    MISSING_HASH,
    FileLock,
    LockHeld,
    atomic_write_bytes,
    atomic_write_text,
    checked_write,
    content_hash,
    read_state,
    resolve_inside,
    symlink_outside,
)
from dreamdesk.engine.core.problems import ConflictError, UnsafePathError, WorkspaceError

REPO = Path(__file__).resolve().parents[3]


# --------------------------------------------------------------------------------------------
# atomic_write_bytes


def test_atomic_write_replaces_content_and_leaves_no_temp_files(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"old content that is longer than the new one")

    atomic_write_bytes(path, b"new")

    assert path.read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["MEMORY.md"]


def test_atomic_write_keeps_the_file_mode(tmp_path):
    path = tmp_path / "USER.md"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)

    atomic_write_bytes(path, b"new")

    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    os.chmod(path, 0o755)
    atomic_write_text(path, "newer\r\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o755
    assert path.read_bytes() == b"newer\r\n"  # text written exactly, no newline translation


def test_atomic_write_creates_new_file_and_parent_folders(tmp_path):
    path = tmp_path / "a" / "b" / "new.md"
    atomic_write_text(path, "héllo")
    assert path.read_bytes() == "héllo".encode()
    assert os.listdir(path.parent) == ["new.md"]


def test_atomic_write_failure_keeps_original_and_removes_temp(tmp_path, monkeypatch):
    path = tmp_path / "SOUL.md"
    path.write_bytes(b"original bytes")
    seen = []

    def failing_replace(src, dst):
        seen.append((Path(src), Path(dst)))
        assert Path(src).read_bytes() == b"replacement"  # temp file was fully written
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files_mod.os, "replace", failing_replace)

    with pytest.raises(OSError):
        atomic_write_bytes(path, b"replacement")

    monkeypatch.undo()
    assert len(seen) == 1
    assert seen[0][0].parent == tmp_path and seen[0][1] == path
    assert path.read_bytes() == b"original bytes"
    assert os.listdir(tmp_path) == ["SOUL.md"]


def test_atomic_write_failure_for_new_file_leaves_nothing(tmp_path, monkeypatch):
    def failing_replace(src, dst):
        raise OSError("boom")

    monkeypatch.setattr(files_mod.os, "replace", failing_replace)
    with pytest.raises(OSError):
        atomic_write_bytes(tmp_path / "new.md", b"data")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


# --------------------------------------------------------------------------------------------
# checked_write


def test_checked_write_with_the_right_hash_writes(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"v1")
    state = read_state(path)
    assert state.exists and state.text == "v1" and state.hash == content_hash(b"v1")

    new_hash = checked_write(path, "v2 ✓", state.hash)

    assert path.read_bytes() == "v2 ✓".encode()
    assert new_hash == content_hash("v2 ✓".encode())
    assert read_state(path).hash == new_hash


def test_checked_write_refuses_when_file_changed_since_read(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"v1")
    state = read_state(path)
    path.write_bytes(b"changed by the assistant")

    with pytest.raises(ConflictError) as info:
        checked_write(path, "my edit", state.hash, display="memory/MEMORY.md")

    assert isinstance(info.value, WorkspaceError)
    assert info.value.path == "memory/MEMORY.md"
    assert info.value.expected == state.hash
    assert info.value.actual == content_hash(b"changed by the assistant")
    assert "memory/MEMORY.md" in str(info.value)
    assert path.read_bytes() == b"changed by the assistant"
    assert os.listdir(tmp_path) == ["MEMORY.md"]


def test_checked_write_refuses_when_file_was_deleted_since_read(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"v1")
    state = read_state(path)
    path.unlink()

    with pytest.raises(ConflictError) as info:
        checked_write(path, "my edit", state.hash)

    assert info.value.actual == MISSING_HASH
    assert not path.exists()


def test_checked_write_creates_new_file_with_missing_hash(tmp_path):
    path = tmp_path / "skills" / "x" / "SKILL.md"
    state = read_state(path)
    assert not state.exists and state.hash == MISSING_HASH and state.text == ""

    checked_write(path, "# skill\n", state.hash)

    assert path.read_bytes() == b"# skill\n"


def test_checked_write_refuses_new_file_that_appeared_meanwhile(tmp_path):
    path = tmp_path / "USER.md"
    state = read_state(path)
    path.write_bytes(b"someone else made it")

    with pytest.raises(ConflictError):
        checked_write(path, "mine", state.hash)

    assert path.read_bytes() == b"someone else made it"


def test_read_state_reports_invalid_utf8(tmp_path):
    path = tmp_path / "bad.md"
    path.write_bytes(b"ok \xff end")
    state = read_state(path)
    assert state.exists
    assert state.hash == content_hash(b"ok \xff end")
    assert state.decode_error is not None and "3" in state.decode_error
    assert state.text == "ok \ufffd end"


# --------------------------------------------------------------------------------------------
# resolve_inside


@pytest.fixture
def roots(tmp_path):
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    (root / "memory").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_bytes(b"secret")
    (root / "memory" / "MEMORY.md").write_bytes(b"m")
    return root, outside


@pytest.mark.parametrize("rel", ["/etc/passwd", "\\windows", "C:\\x", "C:/x"])
def test_resolve_inside_refuses_absolute_paths(roots, rel):
    root, _ = roots
    with pytest.raises(UnsafePathError):
        resolve_inside(root, rel)


def test_resolve_inside_refuses_absolute_path_into_the_root(roots):
    root, _ = roots
    with pytest.raises(UnsafePathError):
        resolve_inside(root, str(root / "memory" / "MEMORY.md"))


@pytest.mark.parametrize("rel", ["..", "../outside/secret.md", "memory/../../outside/secret.md",
                                 "memory/..", "memory\\..\\..\\x"])
def test_resolve_inside_refuses_dotdot(roots, rel):
    root, _ = roots
    with pytest.raises(UnsafePathError):
        resolve_inside(root, rel)


@pytest.mark.parametrize("rel", ["", "a\x00b"])
def test_resolve_inside_refuses_empty_or_nul(roots, rel):
    root, _ = roots
    with pytest.raises(UnsafePathError):
        resolve_inside(root, rel)


def test_resolve_inside_refuses_symlinked_file_pointing_outside(roots):
    root, outside = roots
    (root / "memory" / "leak.md").symlink_to(outside / "secret.md")
    (root / "dangling.md").symlink_to(outside / "not-there-yet.md")
    (root / "rel.md").symlink_to(Path("..") / "outside" / "secret.md")

    for rel in ("memory/leak.md", "dangling.md", "rel.md"):
        with pytest.raises(UnsafePathError):
            resolve_inside(root, rel)
        assert symlink_outside(root, rel) is not None
    assert symlink_outside(root, "memory/leak.md") == os.path.realpath(outside / "secret.md")


def test_resolve_inside_refuses_symlinked_folder_pointing_outside(roots):
    root, outside = roots
    (root / "skills").symlink_to(outside, target_is_directory=True)

    for rel in ("skills", "skills/secret.md", "skills/new/SKILL.md"):
        with pytest.raises(UnsafePathError):
            resolve_inside(root, rel)


def test_resolve_inside_accepts_symlinks_pointing_inside(roots):
    root, _ = roots
    (root / "alias.md").symlink_to(root / "memory" / "MEMORY.md")
    (root / "mem").symlink_to(Path("memory"), target_is_directory=True)

    assert resolve_inside(root, "alias.md") == root / "alias.md"
    assert resolve_inside(root, "mem/MEMORY.md") == root / "mem" / "MEMORY.md"
    assert symlink_outside(root, "alias.md") is None


def test_resolve_inside_accepts_ordinary_and_missing_paths(roots):
    root, _ = roots
    assert resolve_inside(root, "memory/MEMORY.md") == root / "memory" / "MEMORY.md"
    assert resolve_inside(root, "skills/new/SKILL.md") == root / "skills" / "new" / "SKILL.md"
    assert resolve_inside(root, Path("SOUL.md")) == root / "SOUL.md"
    assert resolve_inside(root, "...md") == root / "...md"


def test_resolve_inside_works_when_the_root_itself_is_a_symlink(roots, tmp_path):
    root, outside = roots
    link_root = tmp_path / "ws-link"
    link_root.symlink_to(root, target_is_directory=True)
    assert resolve_inside(link_root, "memory/MEMORY.md") == link_root / "memory" / "MEMORY.md"
    (root / "leak.md").symlink_to(outside / "secret.md")
    with pytest.raises(UnsafePathError):
        resolve_inside(link_root, "leak.md")


# --------------------------------------------------------------------------------------------
# FileLock across processes

_TRY_LOCK = textwrap.dedent("""
    import sys
    from dreamdesk.engine.disk.files import FileLock, LockHeld
    try:
        lock = FileLock(sys.argv[1], timeout=0).acquire()
    except LockHeld:
        sys.exit(3)
    lock.release()
    sys.exit(0)
""")


def _try_lock_in_other_process(path: Path) -> int:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", _TRY_LOCK, str(path)], cwd=REPO, env=env,
                          capture_output=True, timeout=60)
    assert proc.returncode in (0, 3), proc.stderr.decode(errors="replace")
    return proc.returncode


def test_file_lock_is_exclusive_across_processes(tmp_path):
    path = tmp_path / "memory" / ".history.lock"
    lock = FileLock(path, timeout=0)
    with lock:
        assert path.exists()
        assert _try_lock_in_other_process(path) == 3   # LockHeld while we hold it
    assert _try_lock_in_other_process(path) == 0       # free again after release


def test_file_lock_held_raises_lockheld_with_timeout(tmp_path):
    # flock is per open file description, so a second FileLock conflicts even in-process.
    path = tmp_path / ".lock"
    with FileLock(path):
        with pytest.raises(LockHeld) as info:
            FileLock(path, timeout=0.05, what="the history lock").acquire()
        assert isinstance(info.value, WorkspaceError)
        assert "the history lock" in str(info.value)
    with FileLock(path, timeout=0):
        pass


def test_file_lock_release_is_idempotent(tmp_path):
    lock = FileLock(tmp_path / ".lock", timeout=0).acquire()
    lock.release()
    lock.release()                       # a second release is a no-op, not an error
    assert lock._fd is None
    with FileLock(tmp_path / ".lock", timeout=0) as again:
        assert again._fd is not None     # and the lock can be taken again at once


def test_a_job_sweeps_the_temp_files_a_killed_dreamdesk_left_and_only_those(tmp_path):
    """A kill between mkstemp and the rename leaves `.<name>.dreamdesk-*.tmp` where nanobot's git
    sees it (memory/ is re-included). The next job sweeps ours at once when nobody has them open
    (a kill a moment ago included); one a live write holds open, and anyone else's, stay."""
    import time
    from dreamdesk.engine.disk.files import STALE_TEMP_SECONDS, atomic_write_text
    from dreamdesk.engine.recovery.job_lock import job_lock
    from dreamdesk.engine.home.workspace import Workspace
    from helpers.lock_holder import holding
    (tmp_path / "memory" / "archive").mkdir(parents=True)
    (tmp_path / "skills" / "x").mkdir(parents=True)
    (tmp_path / "USER.md").write_text("# User\n")
    atomic_write_text(tmp_path / "memory" / "MEMORY.md", "- fact\n")
    assert sorted(p.name for p in (tmp_path / "memory").iterdir()) == ["MEMORY.md", "archive"]   # no temp left
    old = time.time() - STALE_TEMP_SECONDS - 60
    stale = [tmp_path / "memory" / ".MEMORY.md.dreamdesk-ab12.tmp", tmp_path / "memory/archive/.2026-12.jsonl.dreamdesk-x.tmp",
             tmp_path / "skills/x/.SKILL.md.dreamdesk-y.tmp", tmp_path / ".USER.md.dreamdesk-z.tmp",
             tmp_path / "memory" / ".MEMORY.md.dreamdesk-killed-just-now.tmp"]
    in_flight = tmp_path / "memory" / ".MEMORY.md.dreamdesk-fresh.tmp"
    keep = [in_flight, tmp_path / "memory" / ".history.jsonl.tmp", tmp_path / "memory" / "notes.dreamdesk-1.tmp"]
    for p in stale + keep:
        p.write_text("partial")
    for p in stale[:-1] + keep[1:]:
        os.utime(p, (old, old))
    with holding(in_flight):
        with job_lock(Workspace.open(tmp_path)):
            pass
    assert [p for p in stale if p.exists()] == []
    assert all(p.exists() for p in keep)


def test_a_sweep_that_fails_never_leaves_the_job_lock_held(tmp_path, monkeypatch):
    from dreamdesk.engine.recovery import job_lock as lock_mod
    from dreamdesk.engine.recovery.job_lock import job_lock
    from dreamdesk.engine.home.workspace import Workspace
    (tmp_path / "memory").mkdir()
    (tmp_path / "USER.md").write_text("# User\n")
    ws = Workspace.open(tmp_path)
    real = lock_mod.sweep_stale_temps

    def broken(root):
        raise PermissionError(13, "denied")
    monkeypatch.setattr(lock_mod, "sweep_stale_temps", broken)
    with pytest.raises(PermissionError):
        job_lock(ws).acquire()
    monkeypatch.setattr(lock_mod, "sweep_stale_temps", real)
    with job_lock(ws):      # free again: the failed job released it
        pass


def test_a_checked_write_waits_only_while_someone_holds_the_old_file_for_writing(tmp_path, monkeypatch):
    """The settle wait (an in-place writer's late bytes) is needed only while a writer has the
    replaced file open; with none, nothing more can land in it and no time is spent."""
    import time

    from dreamdesk.engine.disk import files as files_mod
    from dreamdesk.engine.disk.files import checked_write, current_hash
    path = tmp_path / "MEMORY.md"
    path.write_text("# M\n")
    sleeps = []
    real_sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda s: sleeps.append(s) or real_sleep(s))
    checked_write(path, "# M\n- ours\n", current_hash(path))
    assert sleeps == [] and path.read_text() == "# M\n- ours\n"
    holder = open(path, "a")                 # someone has the file open for writing, as nanobot may
    try:
        checked_write(path, "# M\n- ours again\n", current_hash(path))
        assert files_mod.SETTLE_S in sleeps  # the old file is watched for their late bytes
    finally:
        holder.close()
    assert path.read_text() == "# M\n- ours again\n"
