"""Run records and the archive are parsed again only when a file changed (issue 14 row 8, design
item 2; structure only: the wall time is in tests/bench/test_bench_runs.py). A second listing
with nothing changed opens no record; a changed, new or deleted file is seen; a file changed
too recently to be told apart by its stat is read again; callers get records they may change."""

import json
import os
from pathlib import Path

import pytest

from dreamdesk.engine.recovery.archive import append_records, archive_dir, archive_files_parsed, read_archive
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.records import list_runs, records_parsed, save_record, scrub_text
from dreamdesk.engine.recovery.prunes import all_prunes
from dreamdesk.engine.disk.stat_memo import forget_all
from dreamdesk.engine.home.workspace import Workspace
from helpers.git_probe import watched
from helpers.prune_history import build
from helpers.file_settle import settle


def record(rid: str, started: str, text: str = "- Likes tea.") -> dict:
    return {"id": rid, "started": started, "finished": started, "status": "completed", "trigger": "manual",
            "created": [{"file": "USER.md", "text": text, "sources": [1]}], "removed": [],
            "tokens": {"prompt": 90, "completion": 10, "total": 100}}


@pytest.fixture
def ws(make_workspace) -> Workspace:
    ws = Workspace.open(make_workspace({"USER.md": "# User\n- Likes tea.\n", "memory/MEMORY.md": "# Memory\n"}))
    for i in range(5):
        save_record(ws, record(f"r-2026010{i + 1}-100000", f"2026-01-0{i + 1}T10:00:00+00:00"))
    settle(ws.root)
    return ws


def dream_files_opened(fn, ws):
    result, opened, _ = watched(fn)
    return result, [p for p in opened if Path(p).parent == ws.dreams_dir]


def test_a_second_listing_opens_no_record(ws):
    (first, _), opened = dream_files_opened(lambda: list_runs(ws), ws)
    assert len(first) == 5 and len(opened) == 5
    before = records_parsed(ws)
    (again, problems), opened = dream_files_opened(lambda: list_runs(ws), ws)
    assert opened == [] and records_parsed(ws) == before and not problems
    assert again == first and [r.id for r in again][0] == "r-20260105-100000"       # newest first


def test_a_changed_new_or_deleted_record_is_seen(ws):
    list_runs(ws)
    before = records_parsed(ws)
    changed = record("r-20260102-100000", "2026-01-02T10:00:00+00:00", "- Drinks oolong now.")
    save_record(ws, changed)                                              # atomic: a new inode
    save_record(ws, record("r-20260201-100000", "2026-02-01T10:00:00+00:00"))
    (ws.dreams_dir / "r-20260101-100000.json").unlink()
    settle(ws.root)
    (runs, _), opened = dream_files_opened(lambda: list_runs(ws), ws)
    assert sorted(Path(p).name for p in opened) == ["r-20260102-100000.json", "r-20260201-100000.json"]
    assert records_parsed(ws) == before + 2
    assert [r.id for r in runs] == ["r-20260201-100000", "r-20260105-100000", "r-20260104-100000",
                                       "r-20260103-100000", "r-20260102-100000"]
    assert runs[-1].created[0]["text"] == "- Drinks oolong now."


def test_a_rewrite_in_place_with_its_old_mtime_put_back_is_read_again(ws):
    """Same size, same mtime, same inode (cp -p, touch -r): the change time still tells."""
    list_runs(ws)
    path = ws.dreams_dir / "r-20260103-100000.json"
    old = path.stat()
    data = path.read_bytes().replace(b"Likes tea.", b"Likes tee.")
    probe = path.with_name("clock-probe")
    while True:                      # a later tick of the filesystem's clock (ctime cannot be set back)
        probe.write_bytes(b"")
        if probe.stat().st_ctime_ns > old.st_ctime_ns:
            break
    probe.unlink()
    with open(path, "r+b") as fh:                                          # in place: the same inode
        fh.write(data)
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert (path.stat().st_ino, path.stat().st_size, path.stat().st_mtime_ns) == (
        old.st_ino, old.st_size, old.st_mtime_ns)
    runs, _ = list_runs(ws)
    assert next(r for r in runs if r.id == "r-20260103-100000").created[0]["text"] == "- Likes tee."


def test_a_record_written_just_now_is_read_again_until_it_settles(ws):
    """Its mtime may be shared by a second write in the same clock tick: not trusted yet."""
    list_runs(ws)
    before = records_parsed(ws)
    save_record(ws, record("r-20260301-100000", "2026-03-01T10:00:00+00:00"))
    list_runs(ws)
    list_runs(ws)
    assert records_parsed(ws) == before + 2
    settle(ws.root)
    list_runs(ws)
    list_runs(ws)
    assert records_parsed(ws) == before + 3


def test_callers_may_change_what_they_are_given(ws):
    runs, _ = list_runs(ws)
    runs[0].status = "changed by a caller"
    again, _ = list_runs(ws)
    assert again[0].status == "completed"


def test_scrub_changes_the_file_not_the_records_listed_before(ws):
    runs, _ = list_runs(ws)
    assert scrub_text(ws, "- Likes tea.", "USER.md") == 5
    assert runs[0].created[0]["text"] == "- Likes tea."               # what a caller holds is as it was
    settle(ws.root)
    again, _ = list_runs(ws)
    assert [r.created[0]["text"] for r in again] == [None] * 5
    assert json.loads((ws.dreams_dir / "r-20260101-100000.json").read_text())["created"][0]["scrubbed"] is True


def test_an_unreadable_record_is_said_and_a_damaged_one_skipped(ws):
    (ws.dreams_dir / "r-20260109-100000.json").write_text("{not json")
    (ws.dreams_dir / "r-20260110-100000.json").mkdir()
    settle(ws.root)
    for _ in range(2):              # the damaged file's verdict is kept; the folder is tried every time
        runs, problems = list_runs(ws)
        assert len(runs) == 5
        assert [p.file for p in problems] == ["memory/dreams/r-20260109-100000.json",
                                              "memory/dreams/r-20260110-100000.json"]
        assert "unreadable run record" in problems[0].message and "folder" in problems[1].message


def test_the_archive_is_parsed_again_only_where_it_changed(ws):
    when = records.datetime.fromisoformat
    append_records(ws, [{"file": "USER.md", "text": "- Old fact.", "reason": "edit"}], when("2026-01-05T10:00:00+00:00"))
    append_records(ws, [{"file": "USER.md", "text": "- Older.", "reason": "edit"}], when("2025-12-05T10:00:00+00:00"))
    settle(ws.root)
    first = read_archive(ws)
    before = archive_files_parsed(ws)
    again, opened, _ = watched(lambda: read_archive(ws))
    assert archive_files_parsed(ws) == before and not [p for p in opened if Path(p).parent == archive_dir(ws)]
    assert [r.to_json() for r in again.records] == [r.to_json() for r in first.records]
    assert again.records[0] is not first.records[0]                     # the records are the caller's own
    append_records(ws, [{"file": "USER.md", "text": "- New fact.", "reason": "edit"}], when("2026-01-06T10:00:00+00:00"))
    settle(ws.root)
    after = read_archive(ws)
    assert archive_files_parsed(ws) == before + 1                        # 2026-01.jsonl only
    assert [r.text for r in after.records] == ["- Older.", "- Old fact.", "- New fact."]


def test_every_prune_a_second_time_does_no_work(tmp_path):
    build(tmp_path / "ws")
    ws = Workspace.open(tmp_path / "ws")
    append_records(ws, [{"file": "USER.md", "text": "- Has a cat named Miso.", "reason": "edit"}])
    settle(ws.root)
    _, extra, folded = all_prunes(ws)
    (arc, extra2, folded2), opened, started = watched(lambda: all_prunes(ws, read_archive(ws)))
    assert folded2 is folded and extra2 is extra
    # the rows hold the records returned with them (the CLI finds its search hits among them by identity)
    mine = {id(r) for r in arc.records + extra2}
    assert arc.records and all(id(r) in mine for e in folded2 for r in e.records)
    assert [c for c in started if c != "version"] == ["rev-parse"]       # HEAD, asked once
    assert not [p for p in opened if Path(p).parent == archive_dir(ws) or p.endswith(".json")], opened
    # a memory file changed: whether an entry is back is worked out again
    user = ws.root / "USER.md"
    user.write_text(user.read_text() + "- Has a cat named Miso.\n")
    settle(ws.root)
    _, _, folded3 = all_prunes(ws)
    assert folded3 is not folded
    back = {e.latest.text: e.back for e in folded3}
    assert back["- Has a cat named Miso."] and not {e.latest.text: e.back for e in folded}["- Has a cat named Miso."]


def test_forget_all_makes_the_next_read_a_first_open(ws):
    list_runs(ws)
    _, _, folded = all_prunes(ws)
    forget_all()
    (runs, _), opened = dream_files_opened(lambda: list_runs(ws), ws)
    assert len(opened) == 5 and records_parsed(ws) == 5
    assert all_prunes(ws)[2] is not folded
