"""Typed run records and run state: records written by the code before the typed ones
(tests/fixtures/dream_records/: a completed run, the record of a dry run's preview, a record
pruned after 30 days, both made by that code; and an older hand-written shape the loader
accepts) still load, and written back they are the same JSON, key for key and in order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.dream import records
from engine.dream.policy import Held
from engine.dream.run import load_state, read_state, save_state
from engine.dream.runtypes import FileSize, RunRecord, RunState, Stuck, with_changes
from engine.workspace import Workspace

FIXTURES = Path(__file__).parent / "fixtures" / "dream_records"
SHAPES = ["completed", "pruned", "dry-run-preview", "old-shape"]


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", SHAPES)
def test_a_record_reads_back_to_the_same_json_in_the_same_order(name):
    raw = fixture(name)
    again = RunRecord.from_json(raw).to_json()
    assert json.dumps(again, indent=2, ensure_ascii=False) == json.dumps(raw, indent=2, ensure_ascii=False)


def test_a_completed_record_reads_typed():
    rec = RunRecord.from_json(fixture("completed"))
    assert (rec.batch.first, rec.batch.last, rec.batch.cursors) == (1, 3, [1, 2, 3])
    assert (rec.cursor.before, rec.cursor.after, rec.cursor.held, rec.cursor.stuck_alarm) == (0, 3, False, False)
    assert rec.sizes["memory/MEMORY.md"] == FileSize(30, 58, 3000)
    assert [p["name"] for p in rec.passes] == ["consolidation", "deduction", "induction"]


def test_an_older_shape_reads_with_defaults_and_keeps_what_it_lacks_out():
    rec = RunRecord.from_json(fixture("old-shape"))
    assert rec.cursor is None and rec.review is None and rec.model_choice is None
    assert rec.sizes["memory/MEMORY.md"].after == 58 and rec.batch.cursors == []
    assert "cursor" not in rec.to_json() and "truncated_to" not in rec.to_json()["batch"]


def test_pruned_counts_are_kept_as_they_were():
    rec = RunRecord.from_json(fixture("pruned"))
    assert rec.extra["pruned_at"] and rec.extra["created_count"] == 3
    assert list(rec.to_json())[-1] == "pruned_at"


@pytest.mark.parametrize("name", ["completed", "pruned", "old-shape"])
def test_records_of_every_shape_are_listed_and_load(make_workspace, name):
    raw = fixture(name)
    ws = Workspace.open(make_workspace({"memory/MEMORY.md": "# Memory\n"}))
    ws.dreams_dir.mkdir(parents=True)
    (ws.dreams_dir / f"{raw['id']}.json").write_text(json.dumps(raw), encoding="utf-8")
    runs, problems = records.list_runs(ws)
    assert problems == [] and [r["id"] for r in runs] == [raw["id"]]
    loaded = records.load_run(ws, raw["id"])
    assert RunRecord.from_json(loaded).batch.first == raw["batch"]["first"]


def test_a_new_record_is_written_in_the_shape_of_before():
    rec = RunRecord.from_json(fixture("completed"))
    fresh = RunRecord(**{k: getattr(rec, k) for k in ("id", "started", "finished", "trigger", "status", "outcome",
                                                       "run_number", "batch", "model", "model_choice", "prompt",
                                                       "snapshot_before", "snapshot_error", "snapshot_notes",
                                                       "passes", "sizes", "created", "removed", "user_md", "writes",
                                                       "refused", "tokens", "error", "cursor", "review")})
    assert list(fresh.to_json()) == list(fixture("completed"))
    assert fresh.to_json() == fixture("completed")


STATE = {"runs": 7, "held": {"batch": 11, "count": 2}, "refusal_streak": {"USER.md": 3},
         "last_run": {"id": "r-20261101-100000", "finished": "2026-11-01T10:00:00+00:00", "status": "held",
                      "outcome": "Dream completed in 1s but held the cursor at 10"},
         "stuck": {"batch": [11, 13], "since": "2026-11-01T10:00:00+00:00", "held_runs": 3}}


def test_the_state_reads_typed_and_writes_back_the_same():
    st = RunState.from_json(STATE)
    assert st.held == Held(11, 2) and st.stuck == Stuck((11, 13), STATE["stuck"]["since"], 3)
    assert st.to_json() == STATE


@pytest.mark.parametrize("damage, reads", [
    ({"runs": -1}, {"runs": 0}), ({"runs": True}, {"runs": 0}), ({"held": [1, 2]}, {"held": {}}),
    ({"refusal_streak": {"USER.md": "x"}}, {"refusal_streak": {"USER.md": 0}}),
    ({"stuck": {"batch": [1]}}, {}), ({"last_run": {"id": 5, "status": "held"}}, {"last_run": {"status": "held"}}),
])
def test_a_damaged_field_reads_as_fresh_and_leaves_the_others(damage, reads):
    got = RunState.from_json(STATE | damage).to_json()
    want = {k: v for k, v in (STATE | reads).items() if not (k == "stuck" and "stuck" in damage)}
    assert got == want


def test_a_damaged_or_missing_state_file_reads_as_a_fresh_state(make_workspace):
    ws = Workspace.open(make_workspace({"memory/MEMORY.md": "# Memory\n"}))
    assert read_state(ws) == RunState()
    save_state(ws, RunState.from_json(STATE))
    assert load_state(ws) == STATE
    (ws.dreams_dir / "state.json").write_text("[1, 2", encoding="utf-8")
    assert load_state(ws) == RunState().to_json() and load_state(ws)["runs"] == 0


def test_changes_set_and_clear_the_stuck_alarm():
    st = RunState.from_json(STATE)
    cleared = with_changes(st, {"held": {}, "refusal_streak": {}, "stuck": None})
    assert cleared.stuck is None and cleared.held == Held() and cleared.runs == 7
    kept = with_changes(st, {"held": {"batch": 11, "count": 3}, "refusal_streak": {"USER.md": 4}})
    assert kept.stuck == st.stuck and kept.held == Held(11, 3) and kept.refusal_streak == {"USER.md": 4}
