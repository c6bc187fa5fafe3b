"""The archive: every entry that leaves USER.md or MEMORY.md lands in memory/archive/ first,
with a unique id, and can be searched and put back."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO
from dreamdesk.engine.recovery.archive import (append_records, archive_removed, plan_entry_restore, read_archive, search,
                            write_memory)
from dreamdesk.engine.cli import main
from dreamdesk.engine.text.entries import split_entries
from dreamdesk.engine.disk.files import MISSING_HASH, current_hash
from dreamdesk.engine.core.problems import ConflictError, WorkspaceError
from dreamdesk.engine.recovery.restore import restore_archive_entry
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.overview.status import read_status
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import git


TZ = timezone(timedelta(hours=1))
USER = """\
# User

## Identity
- Inès Marchetti, 37, data engineer in Ghent.
- Partner Joris teaches physics.

## Preferences
- Answer first, reasoning after.
- Likes green tea in the morning,
  never coffee after 14:00.
- Metric units.
"""


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode("utf-8"))


def item(text: str, rel: str = "USER.md", reason: str = "edit", **kw) -> dict:
    return {"file": rel, "text": text, "reason": reason, **kw}


def id_key(record_id: str) -> tuple[str, int]:
    m = re.fullmatch(r"a-(\d{8})-(\d+)", record_id)
    assert m, record_id
    return m.group(1), int(m.group(2))


@pytest.fixture
def ws(make_workspace) -> Workspace:
    return Workspace.open(make_workspace({"USER.md": USER, "SOUL.md": "I am Jenny.\nI am calm.\n",
                                          "memory/MEMORY.md": "# Memory\n\n- Proxmox homelab.\n- Backups at 03:00.\n",
                                          "skills/wr/SKILL.md": "# Weekly\n\n- Friday 16:00.\n"}))


# -- ids -------------------------------------------------------------------------------------------
def test_ids_are_unique_and_increasing_across_appends_and_month_files(ws):
    times = [datetime(2026, 1, 31, 23, 50, tzinfo=TZ), datetime(2026, 1, 31, 23, 55, tzinfo=TZ),
             datetime(2026, 2, 1, 0, 5, tzinfo=TZ), datetime(2026, 2, 1, 9, 0, tzinfo=TZ),
             datetime(2026, 3, 2, 9, 0, tzinfo=TZ)]
    ids = []
    for i, now in enumerate(times):
        recs = append_records(ws, [item(f"- e{i}.{k}") for k in range(1 + i % 2)], now=now)
        ids += [r.id for r in recs]
    assert ids == ["a-20260131-1", "a-20260131-2", "a-20260131-3", "a-20260201-1", "a-20260201-2",
                   "a-20260201-3", "a-20260302-1"]
    assert [id_key(i) for i in ids] == sorted(id_key(i) for i in ids)
    arc = read_archive(ws)
    assert arc.problems == []
    assert [r.id for r in arc.records] == ids
    assert sorted(p.name for p in (ws.memory_dir / "archive").iterdir() if p.suffix == ".jsonl") == \
        ["2026-01.jsonl", "2026-02.jsonl", "2026-03.jsonl"]
    assert {r.source for r in arc.records if r.id.startswith("a-20260201")} == {"memory/archive/2026-02.jsonl"}


def test_ids_stay_unique_when_another_month_file_holds_the_same_day(ws):
    # e.g. a record written by a machine in another timezone, or a synced copy
    write(ws.root, "memory/archive/2026-02.jsonl", json.dumps(
        {"id": "a-20260131-7", "archived_at": "2026-02-01T00:30:00+02:00", "file": "USER.md", "text": "- x",
         "reason": "dream", "run": None, "replaced_by": None}) + "\n")
    (rec,) = append_records(ws, [item("- y")], now=datetime(2026, 1, 31, 23, 0, tzinfo=TZ))
    assert rec.id == "a-20260131-8"
    ids = [r.id for r in read_archive(ws).records]
    assert len(ids) == len(set(ids)) == 2


def test_record_shape_on_disk(ws):
    now = datetime(2026, 4, 3, 0, 2, tzinfo=TZ)
    append_records(ws, [item("- Likes tea ☕\u2028still", reason="dream", run="r7", replaced_by="- Likes coffee",
                             heading="## Preferences")], now=now)
    raw = (ws.memory_dir / "archive" / "2026-04.jsonl").read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    assert "☕".encode() in raw                      # ensure_ascii=False, like history.jsonl
    obj = json.loads(raw)
    assert obj == {"id": "a-20260403-1", "archived_at": "2026-04-03T00:02:00+01:00", "file": "USER.md",
                   "heading": "## Preferences", "text": "- Likes tea ☕\u2028still", "reason": "dream",
                   "run": "r7", "replaced_by": "- Likes coffee"}
    assert read_archive(ws).records[0].text == "- Likes tea ☕\u2028still"


# -- write_memory --------------------------------------------------------------------------------------
def test_write_memory_archives_what_leaves_before_writing(ws):
    new = USER.replace("- Partner Joris teaches physics.\n", "").replace(
        "- Likes green tea in the morning,\n  never coffee after 14:00.\n", "- Likes green tea in the afternoon.\n")
    h, recs = write_memory(ws, "USER.md", new, current_hash(ws.root / "USER.md"), "edit")
    assert (ws.root / "USER.md").read_text(encoding="utf-8") == new
    assert h == current_hash(ws.root / "USER.md")
    assert [(r.text, r.heading, r.reason, r.replaced_by) for r in recs] == [
        ("- Partner Joris teaches physics.", "## Identity", "edit", None),
        ("- Likes green tea in the morning,\n  never coffee after 14:00.", "## Preferences", "edit",
         "- Likes green tea in the afternoon."),
    ]
    on_disk = read_archive(ws).records
    assert [r.id for r in on_disk] == [r.id for r in recs]
    archive_file = ws.memory_dir / "archive" / on_disk[0].source.split("/")[-1]
    assert archive_file.stat().st_mtime_ns <= (ws.root / "USER.md").stat().st_mtime_ns


def test_write_memory_archives_memory_md_with_run_and_reason(ws):
    rel = "memory/MEMORY.md"
    _, recs = write_memory(ws, rel, "# Memory\n\n- Proxmox homelab.\n", current_hash(ws.root / rel), "dream", run="r12")
    assert [(r.file, r.text, r.reason, r.run) for r in recs] == [(rel, "- Backups at 03:00.", "dream", "r12")]
    assert search(read_archive(ws).records, file="MEMORY.md")[0].run == "r12"


def test_soul_and_skills_are_not_archived(ws):
    for rel, new in [("SOUL.md", "I am Jenny.\n"), ("skills/wr/SKILL.md", "# Weekly\n")]:
        _, recs = write_memory(ws, rel, new, current_hash(ws.root / rel), "edit")
        assert recs == []
        assert (ws.root / rel).read_text() == new
    assert not (ws.memory_dir / "archive").exists()
    assert read_archive(ws).records == []


def test_growing_write_archives_nothing(ws):
    _, recs = write_memory(ws, "USER.md", USER + "- Runs on Sundays.\n", current_hash(ws.root / "USER.md"), "dream")
    assert recs == [] and not (ws.memory_dir / "archive").exists()
    _, recs = write_memory(ws, "memory/MEMORY.md", "- first\n", current_hash(ws.root / "memory/MEMORY.md"), "edit")
    assert len(recs) == 3 and recs[-1].text == "# Memory"      # the heading that left is kept too
    rel = "memory/NEW.md"
    with pytest.raises(WorkspaceError):
        write_memory(ws, "../USER.md", "x", MISSING_HASH, "edit")
    write_memory(ws, rel, "- a\n", MISSING_HASH, "edit")
    assert (ws.root / rel).read_text() == "- a\n"


def test_conflict_writes_nothing(ws):
    h = current_hash(ws.root / "USER.md")
    theirs = USER + "- Added by nanobot meanwhile.\n"
    write(ws.root, "USER.md", theirs)
    with pytest.raises(ConflictError) as exc:
        write_memory(ws, "USER.md", "# User\n", h, "edit")
    assert "USER.md changed on disk since it was read; nothing was written" in str(exc.value)
    assert (ws.root / "USER.md").read_text(encoding="utf-8") == theirs
    assert read_archive(ws).records == []
    with pytest.raises(ConflictError):
        write_memory(ws, "memory/NEW.md", "x", h, "edit")          # a file that does not exist
    assert not (ws.memory_dir / "NEW.md").exists()


def test_invalid_reason_is_refused(ws):
    with pytest.raises(ValueError):
        archive_removed(ws, USER, "", "USER.md", "cleanup")
    assert read_archive(ws).records == []


# -- search ----------------------------------------------------------------------------------------------
def test_search_by_text_file_reason_and_dates(ws):
    d = lambda day: datetime(2026, 3, day, 12, 0, tzinfo=TZ)  # noqa: E731
    append_records(ws, [item("- Likes green TEA", heading="## Preferences")], now=d(1))
    append_records(ws, [item("- Runs 25 km", reason="dream", run="r1", replaced_by="- Runs 30 km a week")], now=d(5))
    append_records(ws, [item("- Proxmox on the NUC", rel="memory/MEMORY.md", reason="review")], now=d(9))
    append_records(ws, [item("- tea ceremony", rel="memory/MEMORY.md", reason="restore")], now=d(9))
    recs = read_archive(ws).records
    texts = lambda rs: [r.text for r in rs]  # noqa: E731
    assert texts(search(recs, text="tea")) == ["- Likes green TEA", "- tea ceremony"]
    assert texts(search(recs, text="PREFERENCES")) == ["- Likes green TEA"]         # in the heading
    assert texts(search(recs, text="30 km")) == ["- Runs 25 km"]                    # in replaced_by
    assert texts(search(recs, file="USER.md")) == ["- Likes green TEA", "- Runs 25 km"]
    assert texts(search(recs, file="MEMORY.md")) == ["- Proxmox on the NUC", "- tea ceremony"]
    assert texts(search(recs, reason="review")) == ["- Proxmox on the NUC"]
    assert texts(search(recs, since="2026-03-05")) == ["- Runs 25 km", "- Proxmox on the NUC", "- tea ceremony"]
    assert texts(search(recs, until="2026-03-05")) == ["- Likes green TEA", "- Runs 25 km"]
    assert texts(search(recs, since="2026-03-02", until="2026-03-08")) == ["- Runs 25 km"]
    assert texts(search(recs, text="tea", file="memory/MEMORY.md", since="2026-03-09", until="2026-03-09")) == \
        ["- tea ceremony"]
    assert search(recs, text="nothing like this") == []
    assert len(search(recs)) == 4


# -- putting an entry back ----------------------------------------------------------------------------------
def test_restore_archive_entry_puts_it_back_under_its_heading(ws):
    new = USER.replace("- Answer first, reasoning after.\n", "")
    _, (rec,) = write_memory(ws, "USER.md", new, current_hash(ws.root / "USER.md"), "edit")
    plan = plan_entry_restore(ws, rec.id)
    assert plan.inserted and (ws.root / "USER.md").read_text(encoding="utf-8") == new   # planning writes nothing
    result = restore_archive_entry(ws, rec.id)
    text = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert text == plan.new_text
    assert ("## Preferences", "- Answer first, reasoning after.") in [(e.heading, e.text) for e in split_entries(text)]
    assert result.files == ["USER.md"] and result.warnings == [] and result.archived == []
    assert git(ws.root, "log", "-1", "--format=%s", result.commit).strip() == f"dream: restore archived entry {rec.id} into USER.md (Dreamdesk)"
    assert SnapshotStore(ws).resolve(result.undo)
    assert git(ws.root, "show", f"{result.undo}:USER.md") == new
    # the archive is append-only: the record is still there, nothing is marked
    assert [r.id for r in read_archive(ws).records] == [rec.id]

    head = SnapshotStore(ws).head()
    before = (ws.root / "USER.md").read_bytes()
    again = restore_archive_entry(ws, rec.id)
    assert again.files == [] and again.commit is None
    assert again.warnings == ["USER.md already holds this entry; nothing to restore"]
    assert (ws.root / "USER.md").read_bytes() == before and SnapshotStore(ws).head() == head


def test_restore_archive_entry_recreates_a_missing_heading(ws):
    new = "# User\n\n## Identity\n- Inès Marchetti, 37, data engineer in Ghent.\n"
    _, recs = write_memory(ws, "USER.md", new, current_hash(ws.root / "USER.md"), "dream", run="r3")
    metric = next(r for r in recs if r.text == "- Metric units.")
    restore_archive_entry(ws, metric.id)
    text = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert text.startswith(new)
    assert [(e.heading, e.text) for e in split_entries(text)][-1] == ("## Preferences", "- Metric units.")
    assert text.count("## Preferences") == 1


def test_restore_archive_entry_into_a_deleted_file(ws):
    _, recs = write_memory(ws, "memory/MEMORY.md", "", current_hash(ws.root / "memory/MEMORY.md"), "edit")
    (ws.root / "memory/MEMORY.md").unlink()
    restore_archive_entry(ws, recs[1].id)
    assert recs[1].heading == "# Memory"
    assert (ws.root / "memory/MEMORY.md").read_text() == "# Memory\n\n- Backups at 03:00.\n"


def test_restore_unknown_id(ws):
    with pytest.raises(WorkspaceError, match="no archive entry with id a-20990101-1"):
        restore_archive_entry(ws, "a-20990101-1")
    assert not (ws.root / ".git").exists()


# -- crashes ---------------------------------------------------------------------------------------------
def test_torn_last_line_is_reported_and_the_next_append_starts_fresh(ws):
    path = ws.memory_dir / "archive" / "2026-05.jsonl"
    good = json.dumps({"id": "a-20260501-1", "archived_at": "2026-05-01T10:00:00+01:00", "file": "USER.md",
                       "text": "- kept", "reason": "edit", "run": None, "replaced_by": None})
    write(ws.root, "memory/archive/2026-05.jsonl", good + "\n" + '{"id": "a-20260501-2", "archived_at": "2026-05-0')
    arc = read_archive(ws)
    assert [r.text for r in arc.records] == ["- kept"]
    assert [(p.file, p.line, p.severity) for p in arc.problems] == [("memory/archive/2026-05.jsonl", 2, "error")]
    recs = append_records(ws, [item("- new one"), item("- and another")],
                          now=datetime(2026, 5, 1, 11, 0, tzinfo=TZ))
    assert [r.id for r in recs] == ["a-20260501-3", "a-20260501-4"]  # never reuses the torn line's id
    arc = read_archive(ws)
    assert [r.text for r in arc.records] == ["- kept", "- new one", "- and another"]
    assert [p.line for p in arc.problems] == [2]                 # still reported, still on disk
    assert path.read_bytes().endswith(b"\n") and path.read_bytes().count(b"\n") == 4


def test_killed_between_archiving_and_writing_loses_nothing(ws):
    new = USER.replace("- Partner Joris teaches physics.\n", "").replace("- Metric units.\n", "")
    code = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(REPO)!r})
        from dreamdesk.engine.home.workspace import Workspace
        from dreamdesk.engine.recovery.archive import archive_removed
        ws = Workspace.open({str(ws.root)!r})
        old = (ws.root / "USER.md").read_bytes().decode("utf-8")
        archive_removed(ws, old, {new!r}, "USER.md", "edit")
        os._exit(9)        # killed before the shrinking write lands
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, check=False)
    assert proc.returncode == 9, proc.stderr.decode()
    assert (ws.root / "USER.md").read_text(encoding="utf-8") == USER          # unchanged, still holds them
    arc = read_archive(ws)
    assert arc.problems == []
    assert sorted(r.text for r in arc.records) == ["- Metric units.", "- Partner Joris teaches physics."]
    status = read_status(ws)
    assert [p for p in status.problems if p.severity == "error" or "archive" in p.file] == []
    # the same edit, done normally, goes through (archiving the entries a second time is fine)
    _, recs = write_memory(ws, "USER.md", new, current_hash(ws.root / "USER.md"), "edit")
    assert (ws.root / "USER.md").read_text(encoding="utf-8") == new
    assert sorted(r.text for r in read_archive(ws).records) == sorted(
        ["- Metric units.", "- Partner Joris teaches physics."] * 2)
    assert len({r.id for r in read_archive(ws).records}) == 4


# -- property: nothing that was ever in USER.md is lost -------------------------------------------------------
HEADINGS = ["## Identity", "## Preferences", "## Work"]
WORDS = ["tea", "dark mode", "Ghent", "runs 25 km", "Pim ☕", "uv"]

_text = st.builds(lambda a, b, cont: f"- {a} and {b}" + (f"\n  also {cont}" if cont else ""),
                  st.sampled_from(WORDS), st.sampled_from(WORDS), st.none() | st.sampled_from(WORDS))
_op = st.one_of(
    st.tuples(st.just("remove"), st.integers(0, 50)),
    st.tuples(st.just("edit"), st.integers(0, 50), st.sampled_from(WORDS)),
    st.tuples(st.just("add"), st.sampled_from(HEADINGS), _text),
    st.tuples(st.just("move"), st.integers(0, 50), st.sampled_from(HEADINGS)),
)


def _render(model: dict[str, list[str]]) -> str:
    return "# User\n\n" + "\n\n".join(h + "\n" + "\n".join(items) for h, items in model.items() if items) + "\n"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(HEADINGS), _text), max_size=6), st.lists(_op, min_size=1, max_size=8))
def test_every_entry_ever_in_user_md_is_in_the_file_or_the_archive(initial, ops):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "memory").mkdir()
        model: dict[str, list[str]] = {h: [] for h in HEADINGS}
        for h, t in initial:
            model[h].append(t)
        write(root, "USER.md", _render(model))
        ws = Workspace.open(root)
        seen = {e.text for e in split_entries(_render(model))}
        for op in ops:
            flat = [(h, i) for h in HEADINGS for i in range(len(model[h]))]
            if op[0] == "add":
                model[op[1]].append(op[2])
            elif not flat:
                continue
            else:
                h, i = flat[op[1] % len(flat)]
                if op[0] == "remove":
                    del model[h][i]
                elif op[0] == "edit":
                    model[h][i] = model[h][i] + f" (now {op[2]})"
                else:
                    model[op[2]].append(model[h].pop(i))
            text = _render(model)
            write_memory(ws, "USER.md", text, current_hash(root / "USER.md"), "edit")
            seen |= {e.text for e in split_entries(text)}
        in_file = {e.text for e in split_entries((root / "USER.md").read_text(encoding="utf-8"))}
        arc = read_archive(ws)
        assert arc.problems == []
        assert seen - in_file - {r.text for r in arc.records} == set()
        assert len({r.id for r in arc.records}) == len(arc.records)


# -- CLI ------------------------------------------------------------------------------------------------
def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_archive_search_and_restore(capsys, ws):
    new = USER.replace("- Partner Joris teaches physics.\n", "").replace("in the morning", "in the evening")
    _, recs = write_memory(ws, "USER.md", new, current_hash(ws.root / "USER.md"), "edit")
    code, out, err = run(capsys, "archive", ws.root, "--search", "JORIS", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["total"] == 2 and data["problems"] == []
    assert [(e["id"], e["text"], e["heading"], e["reason"]) for e in data["entries"]] == [
        (recs[0].id, "- Partner Joris teaches physics.", "## Identity", "edit")]
    code, out, _ = run(capsys, "archive", ws.root)
    assert code == 0 and recs[0].id in out and "→ replaced by: - Likes green tea in the evening," in out
    code, out, _ = run(capsys, "archive", ws.root, "--reason", "dream")
    assert code == 0 and out.strip() == "No archived entries match."

    code, out, err = run(capsys, "archive", "restore", ws.root, recs[0].id)
    assert code == 0 and err == ""
    assert f"Restored {recs[0].id} into USER.md." in out and "Undo with: dreamdesk restore" in out
    assert "- Partner Joris teaches physics." in (ws.root / "USER.md").read_text(encoding="utf-8")
    code, out, err = run(capsys, "archive", "restore", ws.root, recs[0].id)
    assert code == 0 and "already holds this entry" in err
    code, out, err = run(capsys, "archive", "restore", ws.root, "a-19990101-1")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_an_entry_under_a_setext_heading_is_archived_with_it_and_restored_under_it(make_workspace):
    user = "User\n====\n\nPreferences\n-----------\n- Answer first.\n- Metric units.\n\nWork\n----\n- Parcelwise.\n"
    ws = Workspace.open(make_workspace({"USER.md": user}))
    new = user.replace("- Metric units.\n", "")
    _, (rec,) = write_memory(ws, "USER.md", new, current_hash(ws.root / "USER.md"), "edit")
    assert (rec.text, rec.heading) == ("- Metric units.", "Preferences\n-----------")
    restore_archive_entry(ws, rec.id)
    text = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert text == user
    assert ("Preferences\n-----------", "- Metric units.") in [(e.heading, e.text) for e in split_entries(text)]
