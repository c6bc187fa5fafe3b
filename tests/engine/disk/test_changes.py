"""The change record: one way to say what changed, from the watcher's paths and from the engine's
own writes, and the partial reads it drives."""

import pytest

from dreamdesk.engine.disk import changes
from dreamdesk.engine.disk.changes import EVERYTHING, Changes, from_paths, relative_changes
from dreamdesk.engine.disk.files import atomic_write_text
from dreamdesk.engine.overview.status import read_status
from dreamdesk.engine.home.workspace import Workspace


@pytest.mark.parametrize("path, expected", [
    ("USER.md", Changes(files=frozenset(["USER.md"]))),
    ("memory/MEMORY.md", Changes(files=frozenset(["memory/MEMORY.md"]))),
    ("skills/blog/SKILL.md", Changes(files=frozenset(["skills/blog/SKILL.md"]))),
    ("skills/blog", Changes(skills=True)),
    ("skills/blog/notes.txt", Changes()),
    ("memory/history.jsonl", Changes(history=True)),
    ("memory/.dream_cursor", Changes(cursors=True)),
    ("memory/archive/2026-11.jsonl", Changes(archive=True)),
    ("memory/dreams/r-20261101-100000.json", Changes(runs=True)),
    ("memory/dreams/schedule.json", Changes(schedule=True)),
    ("config.json", Changes(config=True)),
    (".gitignore", Changes(snapshots=True)),
    ("wikis/homelab/index.md", Changes()),
    ("notes.txt", Changes()),
    ("memory", EVERYTHING),
])
def test_each_path_names_its_part(path, expected):
    assert from_paths([path]) == expected


def test_records_merge_and_say_what_they_hold():
    both = from_paths(["USER.md"]) | from_paths(["memory/history.jsonl"])
    assert both.files == {"USER.md"} and both.history and not both.archive
    assert both.describe() == "USER.md, history"
    assert not Changes() and not from_paths(["notes.txt"])
    assert EVERYTHING.all_files and EVERYTHING.touches_files()


def test_an_engine_write_is_recorded_as_the_part_it_touched(make_workspace, tmp_path):
    root = make_workspace({"USER.md": "# U\n", "memory/MEMORY.md": "# M\n"})
    state = tmp_path / "state"
    with changes.recording() as written:
        atomic_write_text(root / "memory" / "MEMORY.md", "# M\n- new\n")
        with changes.recording() as inner:
            atomic_write_text(state / "pins.json", "[]")
        assert inner == {str(state / "pins.json")}
    got = relative_changes(written, root, None, state)
    assert got == Changes(files=frozenset(["memory/MEMORY.md"]), state=True)
    atomic_write_text(root / "USER.md", "# U2\n")          # no recording open: nothing kept anywhere
    assert written == {str(root / "memory" / "MEMORY.md"), str(state / "pins.json")}


def test_a_partial_read_reads_only_the_parts_named(make_workspace):
    root = make_workspace({"USER.md": "# U\n", "memory/MEMORY.md": "# M\n",
                           "memory/history.jsonl": '{"cursor": 1, "timestamp": "2026-11-01 10:00", "content": "a"}\n'})
    ws = Workspace.open(root)

    def parses() -> int:                 # history.jsonl parsed whole or its appended tail
        return ws.history_reader.stats["full"] + ws.history_reader.stats["tail"]

    first = read_status(ws)
    assert parses() == 1
    (root / "memory" / "MEMORY.md").write_text("# M\n- more\n")
    second = read_status(ws, first, from_paths(["memory/MEMORY.md"]))
    assert parses() == 1                                     # history not read for a MEMORY.md change
    assert second.history is first.history
    assert {f.path: f.chars for f in second.files}["memory/MEMORY.md"] > {f.path: f.chars for f in first.files}[
        "memory/MEMORY.md"]
    third = read_status(ws, second, EVERYTHING)              # everything asked, history's stat unchanged
    assert parses() == 1 and third.history is first.history
    with (root / "memory" / "history.jsonl").open("a") as f:
        f.write('{"cursor": 2, "timestamp": "2026-11-01 10:01", "content": "b"}\n')
    fourth = read_status(ws, third, from_paths(["memory/history.jsonl"]))
    assert ws.history_reader.stats["tail"] == 1 and [e.cursor for e in fourth.history.entries] == [1, 2]
    assert fourth.problems == read_status(ws).problems       # the same problems a whole read finds


def test_a_history_another_reader_parsed_first_is_still_new(make_workspace):
    """The scheduler's tick reads history.jsonl through the same Workspace: when it parses an
    append first, the state read after it still shows the new entry (and as a new History)."""
    root = make_workspace({"USER.md": "# U\n",
                           "memory/history.jsonl": '{"cursor": 1, "timestamp": "2026-11-01 10:00", "content": "a"}\n'})
    ws = Workspace.open(root)
    first = read_status(ws)
    with (root / "memory" / "history.jsonl").open("a") as f:
        f.write('{"cursor": 2, "timestamp": "2026-11-01 10:01", "content": "b"}\n')
    ws.history()                                             # the tick got there first
    second = read_status(ws, first, from_paths(["memory/history.jsonl"]))
    assert [e.cursor for e in second.history.entries] == [1, 2]
    assert second.history is not first.history


def test_a_snapshot_is_recorded_only_when_it_made_a_commit(make_workspace):
    """Staging files (git add) or a commit refused because nothing changed moves no ref: the
    Snapshots, Archive and Runs views have nothing new to read."""
    from dreamdesk.engine.versions.snapshots import SnapshotStore
    root = make_workspace({"USER.md": "# U\n", "memory/MEMORY.md": "# M\n"})
    store = SnapshotStore(Workspace.open(root))
    store.snapshot("first")
    with changes.recording() as nothing:
        assert store.snapshot("again, nothing changed") is None
    assert not relative_changes(nothing, root).snapshots
    (root / "USER.md").write_text("# U\n- new\n")
    with changes.recording() as made:
        assert store.snapshot("a change")
    assert relative_changes(made, root).snapshots
