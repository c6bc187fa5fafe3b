"""Typed run records and run state: records written by the code before the typed ones
(tests/fixtures/dream_records/: a completed run, the record of a dry run's preview, a record
pruned after 30 days, both made by that code; and an older hand-written shape the loader
accepts) still load, and written back they are the same JSON, key for key and in order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.policy import Held
from dreamdesk.engine.dream.run import load_state, read_state, save_state
from dreamdesk.engine.dream.runtypes import FileSize, RecordError, RunRecord, RunState, Stuck, decode_record, decode_state
from dreamdesk.engine.dream.runtypes import record_json, state_json, with_changes
from dreamdesk.engine.cli import main
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.home.workspace import Workspace

FIXTURES = Path(__file__).parents[2] / "fixtures" / "dream_records"
SHAPES = ["completed", "pruned", "dry-run-preview", "old-shape"]


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", SHAPES)
def test_a_record_reads_back_to_the_same_json_in_the_same_order(name):
    raw = fixture(name)
    again = record_json(decode_record(raw))
    assert json.dumps(again, indent=2, ensure_ascii=False) == json.dumps(raw, indent=2, ensure_ascii=False)


def test_a_completed_record_reads_typed():
    rec = decode_record(fixture("completed"))
    assert (rec.batch.first, rec.batch.last, rec.batch.cursors) == (1, 3, [1, 2, 3])
    assert (rec.cursor.before, rec.cursor.after, rec.cursor.held, rec.cursor.stuck_alarm) == (0, 3, False, False)
    assert rec.sizes["memory/MEMORY.md"] == FileSize(30, 58, 3000)
    assert [p["name"] for p in rec.passes] == ["consolidation", "deduction", "induction"]


def test_an_older_shape_reads_with_defaults_and_keeps_what_it_lacks_out():
    rec = decode_record(fixture("old-shape"))
    assert rec.cursor is None and rec.review is None and rec.model_choice is None
    assert rec.sizes["memory/MEMORY.md"].after == 58 and rec.batch.cursors == []
    assert "cursor" not in record_json(rec) and "truncated_to" not in record_json(rec)["batch"]


def test_pruned_counts_are_kept_as_they_were():
    rec = decode_record(fixture("pruned"))
    assert rec.pruned_at and rec.created_count == 3
    assert list(record_json(rec))[-1] == "pruned_at"


@pytest.mark.parametrize("name", ["completed", "pruned", "old-shape"])
def test_records_of_every_shape_are_listed_and_load(make_workspace, name):
    raw = fixture(name)
    ws = Workspace.open(make_workspace({"memory/MEMORY.md": "# Memory\n"}))
    ws.dreams_dir.mkdir(parents=True)
    (ws.dreams_dir / f"{raw['id']}.json").write_text(json.dumps(raw), encoding="utf-8")
    runs, problems = records.list_runs(ws)
    assert problems == [] and [r.id for r in runs] == [raw["id"]]
    loaded = records.load_run(ws, raw["id"])
    assert loaded.batch.first == raw["batch"]["first"] and record_json(loaded) == raw


def test_a_new_record_is_written_in_the_shape_of_before():
    rec = decode_record(fixture("completed"))
    fresh = RunRecord(**{k: getattr(rec, k) for k in ("id", "started", "finished", "trigger", "status", "outcome",
                                                       "run_number", "batch", "model", "model_choice", "prompt",
                                                       "snapshot_before", "snapshot_error", "snapshot_notes",
                                                       "passes", "sizes", "created", "removed", "user_md", "writes",
                                                       "refused", "tokens", "error", "cursor", "review")})
    assert list(record_json(fresh)) == list(fixture("completed"))
    assert record_json(fresh) == fixture("completed")


STATE = {"runs": 7, "held": {"batch": 11, "count": 2}, "refusal_streak": {"USER.md": 3},
         "last_run": {"id": "r-20261101-100000", "finished": "2026-11-01T10:00:00+00:00", "status": "held",
                      "outcome": "Dream completed in 1s but held the cursor at 10"},
         "stuck": {"batch": [11, 13], "since": "2026-11-01T10:00:00+00:00", "held_runs": 3}}


def test_the_state_reads_typed_and_writes_back_the_same():
    st = decode_state(STATE)
    assert st.held == Held(11, 2) and st.stuck == Stuck((11, 13), STATE["stuck"]["since"], 3)
    assert state_json(st) == STATE


@pytest.mark.parametrize("damage, reads", [
    ({"runs": -1}, {"runs": 0}), ({"runs": True}, {"runs": 0}), ({"held": [1, 2]}, {"held": {}}),
    ({"refusal_streak": {"USER.md": "x"}}, {"refusal_streak": {"USER.md": 0}}),
    ({"stuck": {"batch": [1]}}, {}), ({"last_run": {"id": 5, "status": "held"}}, {"last_run": {"status": "held"}}),
])
def test_a_damaged_field_reads_as_fresh_and_leaves_the_others(damage, reads):
    got = state_json(decode_state(STATE | damage))
    want = {k: v for k, v in (STATE | reads).items() if not (k == "stuck" and "stuck" in damage)}
    assert got == want


def test_a_damaged_or_missing_state_file_reads_as_a_fresh_state(make_workspace):
    ws = Workspace.open(make_workspace({"memory/MEMORY.md": "# Memory\n"}))
    assert read_state(ws) == RunState()
    save_state(ws, decode_state(STATE))
    assert load_state(ws) == STATE
    (ws.dreams_dir / "state.json").write_text("[1, 2", encoding="utf-8")
    assert load_state(ws) == state_json(RunState()) and load_state(ws)["runs"] == 0


def test_changes_set_and_clear_the_stuck_alarm():
    st = decode_state(STATE)
    cleared = with_changes(st, {"held": {}, "refusal_streak": {}, "stuck": None})
    assert cleared.stuck is None and cleared.held == Held() and cleared.runs == 7
    kept = with_changes(st, {"held": {"batch": 11, "count": 3}, "refusal_streak": {"USER.md": 4}})
    assert kept.stuck == st.stuck and kept.held == Held(11, 3) and kept.refusal_streak == {"USER.md": 4}


DEMO_RECORDS = sorted((Path(__file__).parents[3] / "resources" / "demo-history" / "memory" / "dreams").glob("r-*.json"))


@pytest.mark.parametrize("path", DEMO_RECORDS, ids=[p.stem for p in DEMO_RECORDS])
def test_the_demos_records_load_and_are_written_back_byte_for_byte(make_workspace, path):
    """Records an earlier Dreamdesk wrote (the demo's history) load typed and, saved again by the
    one encoder, are the same bytes."""
    ws = Workspace.open(make_workspace({"memory/MEMORY.md": "# Memory\n"}))
    ws.dreams_dir.mkdir(parents=True)
    (ws.dreams_dir / path.name).write_bytes(path.read_bytes())
    rec = records.load_run(ws, path.stem)
    assert isinstance(rec, RunRecord) and rec.id == path.stem and rec.batch.count == len(rec.batch.cursors)
    records.save_record(ws, rec)
    assert (ws.dreams_dir / path.name).read_bytes() == path.read_bytes()


def test_list_runs_hands_out_typed_records_newest_first(make_workspace):
    ws = Workspace.open(make_workspace({"memory/MEMORY.md": "# Memory\n"}))
    ws.dreams_dir.mkdir(parents=True)
    old, new = fixture("old-shape"), fixture("completed")
    for raw in (old, new):
        (ws.dreams_dir / f"{raw['id']}.json").write_text(json.dumps(raw), encoding="utf-8")
    runs, problems = records.list_runs(ws)
    assert problems == [] and [type(r) for r in runs] == [RunRecord, RunRecord]
    assert [r.id for r in runs] == [new["id"], old["id"]]
    assert runs[0].sizes["USER.md"] == FileSize(37, 40, 3000) and runs[0].cursor.after == 3
    assert runs[1].cursor is None and runs[1].sizes["memory/MEMORY.md"].budget == 0    # old: defaults
    assert runs[1].refused == [{"file": "USER.md", "size": 3100, "budget": 3000}]


@pytest.mark.parametrize("damage, words", [
    ({"status": 3}, "status is not text or null"),
    ({"run_number": "7"}, "run_number is not a whole number or null"),
    ({"batch": {"first": 1, "last": "3", "count": 3}}, "batch.last is not a whole number"),
    ({"cursor": {"before": 0, "after": 3, "held": "no"}}, "cursor.held is not true or false"),
    ({"created": [{"file": "USER.md", "text": "- a"}, {"file": 5, "text": "- b"}]}, "created[1].file is not text"),
    ({"sizes": {"USER.md": {"before": 1, "after": 2.5}}}, "sizes['USER.md'].after is not a whole number"),
])
def test_a_field_of_the_wrong_type_is_named_with_its_file(make_workspace, capsys, damage, words):
    ws = Workspace.open(make_workspace({"memory/MEMORY.md": "# Memory\n"}))
    ws.dreams_dir.mkdir(parents=True)
    raw = fixture("old-shape") | damage
    (ws.dreams_dir / f"{raw['id']}.json").write_text(json.dumps(raw), encoding="utf-8")
    runs, (problem,) = records.list_runs(ws)
    assert runs == [] and problem.file == f"memory/dreams/{raw['id']}.json"
    assert problem.message == f"not a usable run record: {words}; skipped"
    with pytest.raises(WorkspaceError) as err:
        records.load_run(ws, raw["id"])
    assert str(err.value) == f"run record memory/dreams/{raw['id']}.json is not usable: {words}"
    assert main(["runs", str(ws.root), "show", raw["id"]]) == 2
    assert f"memory/dreams/{raw['id']}.json is not usable: {words}" in capsys.readouterr().err


def test_a_record_that_is_not_one_is_refused_before_it_is_written(make_workspace):
    ws = Workspace.open(make_workspace({"memory/MEMORY.md": "# Memory\n"}))
    with pytest.raises(WorkspaceError, match=r"refusing to write a run record: passes\[0\] lacks name"):
        records.save_record(ws, fixture("old-shape") | {"passes": [{"iterations": 2}]})
    with pytest.raises(RecordError, match="its id 'r-20250301-090000' is not its file name"):
        decode_record(fixture("old-shape"), "r-20250301-090001")
    assert not ws.dreams_dir.exists()


def test_keys_this_version_does_not_know_are_written_back_in_place():
    raw = fixture("old-shape")
    later = dict(list(raw.items())[:3] + [("rating", {"stars": 4})] + list(raw.items())[3:])
    later["batch"] = raw["batch"] | {"skipped": [7]}
    again = record_json(decode_record(later))
    assert json.dumps(again) == json.dumps(later)
