"""Dreamdesk's write lock (engine/assistants/hermes_lock.py) against Hermes's own MemoryStore in
another process: while Dreamdesk holds it, Hermes's add waits (seen in /proc/locks as a
blocked flock on the same file) and then keeps Dreamdesk's entry; while Hermes holds it,
Dreamdesk waits and says so; the two writing at once lose nothing."""

from __future__ import annotations

import json
import os
import select
import threading
from pathlib import Path

import pytest

from helpers.until import until

from dreamdesk.engine.assistants import hermes_lock as hl
from dreamdesk.engine.assistants import hermes_memory as hm
from dreamdesk.engine.disk.files import LockHeld, atomic_write_bytes

PROC_LOCKS = Path("/proc/locks")
pytestmark = pytest.mark.skipif(not PROC_LOCKS.exists(), reason="needs Linux's /proc/locks to see a waiting flock")


def waiting_on(lock_file: Path, pid: int) -> bool:
    """Is process `pid` blocked in flock() on this file? (/proc/locks: `N: -> FLOCK ... PID
    MAJ:MIN:INODE ...` for a waiter.)"""
    inode = os.stat(lock_file).st_ino
    for line in PROC_LOCKS.read_text().splitlines():
        f = line.split()
        if len(f) > 6 and f[1] == "->" and f[2] == "FLOCK" and f[5] == str(pid) and f[6].rsplit(":", 1)[-1] == str(inode):
            return True
    return False


def answered(hermes) -> bool:
    return bool(select.select([hermes.proc.stdout], [], [], 0)[0])


def dreamdesk_add(memory: Path, entry: str) -> None:
    """A Dreamdesk write as the adapter will make it: under Hermes's lock, read, change, replace."""
    with hl.write_lock(memory):
        entries = hm.MemoryFile.from_bytes("memory", memory.read_bytes()).entries
        atomic_write_bytes(memory, hm.serialize(entries + [entry]))


def entries_of(memory: Path) -> list[str]:
    return hm.MemoryFile.from_bytes("memory", memory.read_bytes()).entries


@pytest.fixture
def home(hermes, tmp_path):
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    hermes.memory(home, {"action": "add", "target": "memory", "content": "first"})
    return home


def test_hermes_waits_for_dreamdesks_lock_and_keeps_its_entry(home, second_hermes):
    memory = home / "memories" / "MEMORY.md"
    with hl.write_lock(memory):
        before = memory.read_bytes()
        second_hermes.send("memory", home, json.dumps([{"action": "add", "target": "memory", "content": "by Hermes"}]))
        until(lambda: waiting_on(hl.lock_path(memory), second_hermes.proc.pid) or answered(second_hermes))
        assert not answered(second_hermes), "Hermes wrote MEMORY.md while Dreamdesk held the lock"
        atomic_write_bytes(memory, hm.serialize(hm.entries(hm.decode(before)) + ["by Dreamdesk"]))
    assert second_hermes.answer("memory")["replies"][0]["success"]
    assert entries_of(memory) == ["first", "by Dreamdesk", "by Hermes"]


def test_dreamdesk_waits_for_hermess_lock(home, second_hermes):
    memory = home / "memories" / "MEMORY.md"
    second_hermes("hold-lock", home, "memory")
    assert hl.hermes_is_writing(memory)
    with pytest.raises(LockHeld):
        hl.write_lock(memory, timeout=0.05).acquire()
    second_hermes("read", home)                      # its next request releases the lock first
    dreamdesk_add(memory, "after Hermes")
    assert entries_of(memory) == ["first", "after Hermes"]


def test_writing_at_once_loses_nothing(home, second_hermes):
    memory = home / "memories" / "MEMORY.md"
    ours = [f"Dreamdesk {i}" for i in range(25)]
    theirs = [f"Hermes {i}" for i in range(25)]
    writer = threading.Thread(target=lambda: [dreamdesk_add(memory, e) for e in ours])
    second_hermes.send("memory", home, json.dumps([{"action": "add", "target": "memory", "content": e} for e in theirs]))
    writer.start()
    writer.join()
    assert all(r["success"] for r in second_hermes.answer("memory")["replies"])
    got = entries_of(memory)
    assert sorted(got) == sorted(["first", *ours, *theirs])
    assert [e for e in got if e.startswith("Dreamdesk")] == ours and [e for e in got if e.startswith("Hermes")] == theirs
    assert sorted(p.name for p in memory.parent.iterdir()) == ["MEMORY.md", "MEMORY.md.lock"]
