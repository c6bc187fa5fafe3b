"""Dreamdesk's own writes, as they left the disk (engine/disk/own_writes.py, issue 27): the watcher
takes a path still as our write left it for that write's echo, and anything another writer did
after it for a change."""

from __future__ import annotations

import os

from dreamdesk.engine.disk import changes, own_writes
from dreamdesk.engine.disk.files import append_durably, atomic_write_text, make_dirs, remove


def test_a_path_as_our_write_left_it_is_its_echo(tmp_path):
    path = tmp_path / "USER.md"
    assert own_writes.echo(path) is False                    # never written by us
    atomic_write_text(path, "# U\n- ours\n")
    assert own_writes.echo(path) is True
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))   # a touch: not what we left
    assert own_writes.echo(path) is False


def test_another_writers_change_after_ours_is_not_an_echo(tmp_path):
    path = tmp_path / "USER.md"
    atomic_write_text(path, "# U\n- ours\n")
    st = os.stat(path)
    with open(path, "w", encoding="utf-8") as fh:            # in place, same size: the inode stays
        fh.write("# U\n- them\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))      # even with our mtime put back: the bytes differ
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_ino == st.st_ino
    assert own_writes.echo(path) is False
    atomic_write_text(path, "# U\n- ours again\n")
    other = tmp_path / "other"
    other.write_text("# U\n- ours again\n")
    os.replace(other, path)                                  # an atomic save of the same bytes: a new inode
    assert own_writes.echo(path) is False


def test_appends_removals_and_new_folders_are_ours_too(tmp_path):
    log = tmp_path / "memory" / "archive" / "2026-12.jsonl"
    make_dirs(log.parent)
    assert own_writes.echo(tmp_path / "memory") and own_writes.echo(log.parent)
    append_durably(log, b'{"a": 1}\n')
    assert own_writes.echo(log) is True
    with open(log, "ab") as fh:                              # the assistant appends after us
        fh.write(b'{"b": 2}\n')
    assert own_writes.echo(log) is False
    remove(log)
    assert own_writes.echo(log) is True
    log.write_text("back\n")                                 # recreated by another writer
    assert own_writes.echo(log) is False


def test_a_write_under_way_is_neither_ours_nor_theirs_yet(tmp_path):
    path = tmp_path / "MEMORY.md"
    with own_writes.writing(path) as ours:
        assert own_writes.echo(path) is None                 # the watcher asks again once it lands
        path.write_text("# M\n")
        ours.left = own_writes.look(path)
    assert own_writes.echo(path) is True
    with own_writes.writing(path):                           # a write that did not land leaves no mark
        pass
    assert own_writes.echo(path) is True                     # (the earlier one's still stands)


def test_bookkeeping_writes_stay_out_of_the_change_record(tmp_path):
    with changes.recording() as written:
        atomic_write_text(tmp_path / "pins.json", "[]")
        with changes.bookkeeping():
            atomic_write_text(tmp_path / "seen.json", "{}")
    assert written == {str(tmp_path / "pins.json")}
    assert own_writes.echo(tmp_path / "seen.json") is True   # still known for our own
