"""engine/assistants/hermes_lock.py takes the lock Hermes takes (an exclusive flock on
<file>.lock), leaves nothing Hermes would not leave, and creates no folder. Racing Hermes's own
MemoryStore: tests/interop/hermes/test_hermes_lock_interop.py."""

from __future__ import annotations

import fcntl
import os
import shutil

import pytest
from conftest import tree_state

from dreamdesk.engine.assistants import hermes_lock as hl
from dreamdesk.engine.disk.files import LockHeld
from interop.hermes.oracles import load


def hermes_style_holder(lock_file):
    """What MemoryStore._file_lock does: open(path, "a+") and flock(LOCK_EX)."""
    fh = open(lock_file, "a+", encoding="utf-8")
    fcntl.flock(fh, fcntl.LOCK_EX)
    return fh


def flock_free(lock_file) -> bool:
    fd = os.open(lock_file, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


@pytest.fixture
def home(tmp_path):
    dest = tmp_path / "home"
    shutil.copytree(load("full")["home"], dest)
    return dest


def test_the_lock_file_is_hermes_s(tmp_path):
    assert hl.lock_path(tmp_path / "memories" / "MEMORY.md") == tmp_path / "memories" / "MEMORY.md.lock"
    assert hl.lock_path(tmp_path / "USER.md").name == "USER.md.lock"


def test_held_as_an_flock_while_the_block_runs(home):
    memory = home / "memories" / "MEMORY.md"
    lock = hl.lock_path(memory)
    with hl.write_lock(memory):
        assert not flock_free(lock) and hl.hermes_is_writing(memory)
        assert flock_free(hl.lock_path(home / "memories" / "USER.md"))      # one lock per file
    assert flock_free(lock) and not hl.hermes_is_writing(memory)


def test_released_when_the_block_raises(home):
    memory = home / "memories" / "MEMORY.md"
    with pytest.raises(RuntimeError), hl.write_lock(memory):
        raise RuntimeError("a failed write")
    assert flock_free(hl.lock_path(memory))


def test_waits_for_hermes_then_says_so(home):
    memory = home / "memories" / "USER.md"
    holder = hermes_style_holder(hl.lock_path(memory))
    try:
        assert hl.hermes_is_writing(memory)
        with pytest.raises(LockHeld, match="Hermes's write lock on USER.md is held"):
            hl.write_lock(memory, timeout=0.02).acquire()
    finally:
        holder.close()
    with hl.write_lock(memory, timeout=0.02):
        pass


def test_leaves_the_home_as_it_was_when_hermes_had_written(home):
    before = tree_state(home)
    with hl.write_lock(home / "memories" / "MEMORY.md"):
        pass
    assert tree_state(home) == before


def test_a_first_write_leaves_only_the_lock_file_hermes_leaves(tmp_path):
    (tmp_path / "memories").mkdir()
    with hl.write_lock(tmp_path / "memories" / "MEMORY.md"):
        pass
    assert [p.name for p in (tmp_path / "memories").iterdir()] == ["MEMORY.md.lock"]
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "memories" / "MEMORY.md.lock").stat().st_mode & 0o777 == 0o644 & ~umask


def test_creates_no_folder_and_probing_creates_nothing(tmp_path):
    with pytest.raises(FileNotFoundError):
        hl.write_lock(tmp_path / "memories" / "MEMORY.md")
    (tmp_path / "memories").mkdir()
    assert not hl.hermes_is_writing(tmp_path / "memories" / "MEMORY.md")
    assert list(tmp_path.rglob("*")) == [tmp_path / "memories"]
