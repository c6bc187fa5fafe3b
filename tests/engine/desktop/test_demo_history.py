"""The demo's recorded past (resources/demo-history) built onto a fresh copy of the demo."""

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from conftest import DEMO_HOME, REPO, tree_state
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.core.rules import ARCHIVED_FILES
from dreamdesk.engine.cli import main
from dreamdesk.engine.desktop.demo_history import build_demo_history
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.run import load_state
from dreamdesk.engine.text.entries import split_entries
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

SOURCE = REPO / "resources" / "demo-history"
MANIFEST = json.loads((SOURCE / "manifest.json").read_text(encoding="utf-8"))
STEPS = MANIFEST["steps"]
REVIEW_RUN = next(s["run"] for s in STEPS if s["trigger"] == "manual")
MALFORMED_LINES = {27, 75, 91, 97, 109}
CORE = ("SOUL.md", "USER.md", "memory/MEMORY.md")


def _ts(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp())


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """One copy of the demo with its history, shared by the read-only checks below."""
    home = tmp_path_factory.mktemp("history") / "demo"
    shutil.copytree(DEMO_HOME, home, symlinks=True)
    build_demo_history(home, SOURCE)
    return home


@pytest.fixture(scope="module")
def ws(built) -> Workspace:
    return Workspace.open(built)


@pytest.fixture(scope="module")
def store(ws) -> SnapshotStore:
    return SnapshotStore(ws)


@pytest.fixture(scope="module")
def runs(ws):
    found, problems = records.list_runs(ws)
    assert problems == []
    return found


def test_snapshots_have_the_kinds_and_dates_of_real_runs(store):
    snaps = list(reversed(store.list()))                       # oldest first
    # a run only commits "before" when something changed since the last commit: the first one
    assert [s.kind for s in snaps] == ["pre-dream"] + ["dream"] * len(STEPS)
    assert snaps[0].subject == f"snapshot: before dream {STEPS[0]['run']}"
    assert [s.time for s in snaps] == [_ts(STEPS[0]["started"])] + [_ts(s["finished"]) for s in STEPS]
    assert all(a.time < b.time for a, b in zip(snaps, snaps[1:]))
    assert _ts("2026-10-20T00:00:00+02:00") < snaps[0].time and snaps[-1].time < _ts("2026-11-21T00:00:00+01:00")
    subjects = [s.subject for s in snaps[1:]]
    assert subjects == [s["commit"] for s in STEPS]
    assert subjects.count("dream: manual run") == 1
    body = store._git("log", "-1", "--format=%B")
    assert f"run {STEPS[-1]['run']}" in body and "memory/MEMORY.md: +" in body
    # nothing but the allow-listed memory set is ever committed
    tracked = store._git("ls-files").split()
    assert "memory/history.jsonl" not in tracked and not any(p.startswith("sessions") for p in tracked)


def test_size_history_grows_and_the_review_shrinks(store):
    sizes = store.size_history()
    shas = [p.sha for p in sizes["USER.md"]]
    review_at = next(i for i, sha in enumerate(shas) if store._git("log", "-1", "--format=%s", sha).strip()
                     == "dream: manual run")
    for rel in CORE:
        chars = [p.chars for p in sizes[rel]]
        assert chars[-1] == len((DEMO_HOME / "workspace" / rel).read_text(encoding="utf-8"))
        assert chars[0] < chars[review_at - 1] and chars[0] < chars[-1]     # grew over the month
    user = [p.chars for p in sizes["USER.md"]]
    assert user[review_at] < user[review_at - 1]                         # the review shrank USER.md
    assert user[review_at - 1] > 0.9 * 3000                              # …which was at its budget
    # skills appear when a run creates them
    assert sizes["skills/weekly-review/SKILL.md"][review_at - 1].chars is None
    assert sizes["skills/weekly-review/SKILL.md"][review_at].chars > 0


def test_final_working_files_are_the_shipped_demo(built):
    shipped = DEMO_HOME / "workspace"
    for path in shipped.rglob("*"):
        if path.is_file():
            assert (built / "workspace" / path.relative_to(shipped)).read_bytes() == path.read_bytes(), path
    assert (built / "workspace" / "memory" / ".dream_cursor").read_bytes() == b"99"
    assert (built / "config.json").read_bytes() == (DEMO_HOME / "config.json").read_bytes()
    for path in (DEMO_HOME / "sessions").iterdir():
        assert (built / "sessions" / path.name).read_bytes() == path.read_bytes()


def test_run_records_resolve(ws, runs):
    assert [r.id for r in reversed(runs)] == [s["run"] for s in STEPS]
    assert [r.run_number for r in reversed(runs)] == list(range(1, len(STEPS) + 1))
    last = records.resolve(ws, runs[0], runs)
    assert last["created"] and all(f["status"] == "current" for f in last["created"])
    removed_later = []
    for rec in runs[1:]:
        for fact in records.resolve(ws, rec, runs)["created"]:
            assert fact["status"] in ("current", "removed"), fact
            assert all(s["status"] == "current" for s in fact["source_entries"])
            if fact["status"] == "removed":
                assert fact["removed_in_run"] and fact["removed_in_run"] > rec.id
                removed_later.append(fact["removed_in_run"])
    assert REVIEW_RUN in removed_later
    state = load_state(ws)
    assert state["runs"] == len(runs) and state["last_run"]["id"] == runs[0].id
    assert state["last_run"]["status"] == "completed" and not state["held"]
    saved = json.loads((SOURCE / "memory" / "dreams" / "state.json").read_text(encoding="utf-8"))
    assert json.loads((ws.memory_dir / "dreams" / "state.json").read_text(encoding="utf-8")) == saved


def test_records_match_the_committed_files_and_the_history(ws, store, runs):
    valid = {e.cursor for e in ws.history().entries}
    commits = {s.time: s.sha for s in store.list() if s.kind == "dream"}
    previous = None
    for step, rec in zip(STEPS, reversed(runs)):
        batch = rec.batch
        assert batch.cursors == sorted(c for c in valid if batch.first <= c <= batch.last)
        assert batch.count == len(batch.cursors) <= 20
        assert rec.cursor.after == batch.last == step["dream_cursor"]
        assert rec.snapshot_before == (previous or store.list()[-1].sha)
        sha = commits[_ts(rec.finished)]
        assert rec.id in store._git("log", "-1", "--format=%B", sha)
        files = store.memory_files_at(sha)
        before = store.memory_files_at(previous) if previous else store.memory_files_at(rec.snapshot_before)
        for rel, size in rec.sizes.items():
            assert size.after == len(files.get(rel, "")), (rec.id, rel)
            assert size.before == len(before.get(rel, "")), (rec.id, rel)
            assert size.budget == (3000 if rel in ARCHIVED_FILES else 0)
        if rec.user_md is not None:
            assert rec.user_md == {"before": before["USER.md"], "after": files["USER.md"]}
        else:
            assert before["USER.md"] == files["USER.md"]
        chain: dict[str, int] = {}
        for w in rec.writes:
            assert chain.get(w["file"], rec.sizes[w["file"]].before) == w["before"]
            chain[w["file"]] = w["size"]
            if w["size"] > w["before"] and w["file"] in ARCHIVED_FILES:
                assert w["size"] <= 3000
            if w["pass"] == "review" and w["file"] in CORE:
                assert w["size"] < w["before"]
        assert all(chain[f] == rec.sizes[f].after for f in chain)
        for fact in rec.created:
            assert set(fact["sources"]) <= set(batch.cursors), fact
            assert fact["text"] in {e.text for e in split_entries(files[fact["file"]])}
            if fact["pass"] != "review" and not fact["file"].startswith("skills/"):
                assert fact["sources"]
        texts_before = {e.text for rel in before for e in split_entries(before[rel])}
        texts_before |= {line.rstrip() for rel in before for line in before[rel].split("\n") if line.startswith("#")}
        for fact in rec.removed:
            assert fact["text"] in texts_before
        for r in rec.refused:
            assert r["size"] > r["budget"] > 0 and r["file"] in ARCHIVED_FILES
        previous = sha


def test_archive_holds_every_removed_fact(ws, runs):
    arc = read_archive(ws)
    assert arc.problems == []
    by_id = {a.id: a for a in arc.records}
    assert len(by_id) == len(arc.records) == sum(len(s["archive"]) for s in STEPS)
    run_ids = {r.id for r in runs}
    assert all(a.run in run_ids and a.reason in ("dream", "review") for a in arc.records)
    for rec in runs:
        for fact in rec.removed:
            if fact["file"] not in ARCHIVED_FILES:
                assert fact["archive_id"] is None
                continue
            a = by_id[fact["archive_id"]]
            assert (a.file, a.text, a.run) == (fact["file"], fact["text"], rec.id)
            assert a.replaced_by == fact["replaced_by"]
            day = rec.started[:10]
            assert a.archived_at[:10] == day and a.id.startswith("a-" + day.replace("-", "") + "-")
    review = next(r for r in runs if r.id == REVIEW_RUN)
    assert review.review.archived and all(by_id[i].reason == "review" for i in review.review.archived)
    assert any(a.replaced_by for a in arc.records if a.reason == "dream")


def test_status_still_reports_the_demo_history(built, capsys):
    assert main(["status", str(built), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["history_entries"] == 120 and data["pending"] == 25
    assert data["cursor"] == 125 and data["dream_cursor"] == 99
    assert {p["line"] for p in data["problems"] if p["file"] == "memory/history.jsonl"} == MALFORMED_LINES


def test_refuses_a_workspace_that_already_has_snapshots(built):
    before = tree_state(built)
    with pytest.raises(WorkspaceError, match="already has snapshots"):
        build_demo_history(built, SOURCE)
    assert tree_state(built) == before


def test_recorded_dream_still_runs_afterwards(demo_home, capsys):
    build_demo_history(demo_home, SOURCE)
    assert main(["dream", str(demo_home), "--replay", str(demo_home / "dream-replay.jsonl"), "--review",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "completed" and result["cursor"] == {"before": 99, "after": 120}
    assert result["record"]["run_number"] == len(STEPS) + 1
    store = SnapshotStore(Workspace.open(demo_home))
    assert [s.kind for s in store.list()[:1]] == ["dream"] and len(store.list()) == len(STEPS) + 2
    with pytest.raises(WorkspaceError):
        build_demo_history(demo_home, SOURCE)


def test_refuses_demo_files_it_was_not_recorded_against(demo_home):
    user = demo_home / "workspace" / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + "- One more fact.\n", encoding="utf-8")
    before = tree_state(demo_home)
    with pytest.raises(WorkspaceError, match="USER.md"):
        build_demo_history(demo_home, SOURCE)
    assert tree_state(demo_home) == before


def test_a_failure_half_way_leaves_the_copy_as_it_was(demo_home, monkeypatch):
    before = {p: p.read_bytes() for p in (demo_home / "workspace").rglob("*") if p.is_file()}
    calls = []

    def failing_save(ws, record):
        calls.append(record["id"])
        if len(calls) == 3:
            raise OSError("disk full")
        records_save(ws, record)

    records_save = records.save_record
    monkeypatch.setattr(records, "save_record", failing_save)
    with pytest.raises(OSError):
        build_demo_history(demo_home, SOURCE)
    after = {p: p.read_bytes() for p in (demo_home / "workspace").rglob("*") if p.is_file()}
    assert after == before     # not even a lock file: locks live in Dreamdesk's own state
    assert not (demo_home / "workspace" / ".git").exists()
