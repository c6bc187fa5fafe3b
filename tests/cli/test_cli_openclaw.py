"""`dreamdesk` on an OpenClaw home built by the real OpenClaw 2026.9.6 (issue 28 item 7): every read
command takes --json there and answers for OpenClaw's home (the sizes against its caps and the
cut, its Project Context byte for byte, its daily notes), says in words what it does not read yet,
refuses Dreamdesk's own jobs in words, and writes nothing."""

from __future__ import annotations

import json

import pytest

from conftest import tree_state
from dreamdesk.engine.cli import main
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)
from helpers.openclaw_homes import copy_home, manifest, oracle_context
from helpers.openclaw_state_db import oracle

READS = (["status"], ["files"], ["history"], ["prompt", "--text"], ["prompt", "--new", "--text"], ["runs"],
         ["archive"], ["schedule"])


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_status_json_carries_each_limit_the_cut_and_the_total(capsys, tmp_path):
    home = copy_home("over-cap", tmp_path)
    st = as_json(capsys, "status", home)
    assert st["workspace"] == str(home / "workspace") and st["assistant"]["kind"] == "openclaw"
    assert st["assistant"]["agent"] == "main" and st["assistant"]["jobs_refused"].startswith("OpenClaw runs its own")
    files = {f["path"]: f for f in st["files"]}
    memory = files["MEMORY.md"]
    assert (memory["chars"], memory["budget"], memory["state"]) == (8040, 6000, "over")
    assert [x["what"] for x in memory["limits"]] == ["per-file cap", "left of the total", "promotion budget"]
    assert [c["line"] for c in memory["cut"]] == list(range(35, 52))
    assert memory["cut"][0]["whole"] is False and memory["cut"][1]["text"].startswith("- Fact 34:")
    assert files["USER.md"]["budget"] == 4000 and files["SOUL.md"]["cut"] == []
    assert st["totals"] == [{"name": "All bootstrap files (a private session)", "chars": 22539, "budget": 60000,
                             "state": "ok", "key": "agents.defaults.bootstrapTotalMaxChars",
                             "note": "5 files, 22,539 characters together; OpenClaw injects 18,842 of them"}]
    assert as_json(capsys, "files", home)["files"] == st["files"]


def test_status_in_words_names_the_cut(capsys, tmp_path):
    code, out, _ = run(capsys, "status", copy_home("over-cap", tmp_path))
    assert code == 0
    assert "  MEMORY.md                         8,040 /  6,000   134%" in out
    assert "      17 entries fall into the cut (never seen by the model):" in out
    assert "        line   36  - Fact 34: the build server rack 34" in out
    assert "Dream      OpenClaw runs its own dreaming" in out and "Cursors" not in out


@pytest.mark.parametrize("name", ["over-cap", "over-total"])
def test_prompt_text_is_the_project_context_openclaw_sent(capsys, tmp_path, name):
    home = copy_home(name, tmp_path)
    code, out, _ = run(capsys, "prompt", home, "--text")
    assert code == 0 and out == oracle_context(name, home) + "\n"
    pv = as_json(capsys, "prompt", home, "--text")
    assert pv["text"] == oracle_context(name, home) and pv["first_message"] is None
    assert [p["name"] for p in pv["parts"]] == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"]


def test_prompt_new_adds_the_daily_notes_prelude(capsys, tmp_path, monkeypatch):
    home = copy_home("dreamed", tmp_path)
    d0 = manifest("dreamed")["days"]["D0"]
    monkeypatch.setenv("DREAMDESK_TODAY", d0)
    pv = as_json(capsys, "prompt", home, "--new", "--text")
    assert pv["text"] == oracle_context("dreamed", home)
    assert pv["first_message"].startswith("[Startup context loaded by runtime]")
    assert f"[Untrusted daily memory: memory/{d0}-standup.md]" in pv["first_message"]
    assert pv["parts"][-1]["name"] == "Startup context (/new)"


def test_history_lists_the_daily_notes_newest_first(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    d = manifest("dreamed")["days"]
    out = as_json(capsys, "history", home)
    assert [(n["date"], n["slug"]) for n in out["notes"]] == [(d["D0"], None), (d["D0"], "standup"), (d["D1"], None),
                                                             (d["D1"], "retro"), (d["D2"], None)]
    first = out["notes"][0]
    assert first["path"] == f"memory/{d['D0']}.md"
    assert first["size"] == (home / "workspace" / first["path"]).stat().st_size
    assert out["note"].startswith("this home keeps no history.jsonl")


def test_runs_lists_each_sweep_and_promotion_with_dreams_md_counts_and_the_restore_points(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    runs = as_json(capsys, "runs", home)
    assert [(r["kind"], r["author"], r["writer"], r["created_count"], r["removed_count"]) for r in runs["runs"]] == [
        ("sweep", "OpenClaw", "assistant", 1, 1), ("promotion", "OpenClaw", "assistant", 1, 0),
        ("sweep", "OpenClaw", "assistant", 1, 0)]
    history = oracle("dreamed", "sweeps.json")["history"]
    assert [r["detail"]["counts"] for r in runs["runs"] if r["kind"] == "sweep"] == [
        {k: h[k] for k in ("added", "merged", "superseded")} for h in reversed(history)]
    sweeps = [r["id"] for r in runs["runs"] if r["kind"] == "sweep"]
    assert [(p["created_at"], p["run"]) for p in runs["restore_points"]] == [
        ("2026-12-06T23:20:57.068Z", sweeps[0]), ("2026-12-06T23:19:35.817Z", sweeps[1])]
    code, out, _ = run(capsys, "runs", home)
    assert code == 0 and "Dreaming sweep: added 0, merged 1, superseded 0" in out
    assert "Restore points (2): MEMORY.md as the assistant saved it before a run rewrote it" in out
    assert "coming step" not in out


def test_runs_show_gives_a_sweeps_entries_diary_reports_and_diff(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    last = as_json(capsys, "runs", home)["runs"][0]["id"]
    code, out, _ = run(capsys, "runs", home, "show", last[:30])
    assert code == 0 and out.startswith(f"{last}  ") and "by OpenClaw" in out
    assert "  - [merged] - The user prefers green tea in the afternoon.  → - The user prefers green tea" in out
    assert "Diary (December 6, 2026 at 11:20 PM UTC): Diary entry 3:" in out
    assert "Report deep: memory/dreaming/deep/2026-12-06.md (completed)" in out
    assert "\n-- The user prefers green tea in the afternoon.\n" in out      # the MEMORY.md diff
    shown = as_json(capsys, "runs", home, "show", last)
    assert shown["id"] == last and shown["detail"]["diff_unified"].startswith("--- before/MEMORY.md")
    code, _, err = run(capsys, "runs", home, "show", "openclaw-nothing")
    assert code != 0 and "no run openclaw-nothing here" in err


def test_archive_lists_what_left_memory_md_with_the_sweep_and_its_replacement(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    [entry] = as_json(capsys, "archive", home)["entries"]
    sweep = as_json(capsys, "runs", home)["runs"][0]
    assert (entry["text"], entry["file"], entry["run"], entry["known_from"], entry["back"]) == (
        "- The user prefers green tea in the afternoon.", "MEMORY.md", sweep["id"], "assistant", False)
    assert entry["replaced_by"].startswith("- The user prefers green tea in the afternoon. Source: memory/")
    assert not entry["restore_refused"]
    code, out, _ = run(capsys, "archive", home)
    assert code == 0 and "    from the assistant · pre-image 2026-12-06T23:20:57.068Z" in out
    assert "    → replaced by: - The user prefers green tea" in out


def test_an_entry_openclaw_removed_is_restored_undone_and_never_deleted(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    memory = home / "workspace" / "MEMORY.md"
    [entry] = as_json(capsys, "archive", home)["entries"]
    raw = memory.read_bytes()
    code, out, _ = run(capsys, "archive", "restore", home, entry["id"])
    assert code == 0 and memory.read_text(encoding="utf-8").count(entry["text"] + "\n") == 1
    assert memory.read_bytes().startswith(raw.split(entry["heading"].encode())[0])   # the rest kept as it was
    [back] = as_json(capsys, "archive", home)["entries"]          # still the sweep's removal, now back
    assert (back["id"], back["back"], back["run"]) == (entry["id"], True, entry["run"])
    undo = out.rsplit("--undo ", 1)[1].split()[0]
    code, _, _ = run(capsys, "restore", home, "--undo", undo)
    assert code == 0 and memory.read_bytes() == raw
    before = tree_state(home)
    code, _, err = run(capsys, "archive", "delete", home, entry["id"], "--yes")
    assert code == 2 and err.strip() == (f"dreamdesk: {entry['id']} is read from the assistant's own records, which "
                                         "Dreamdesk never writes: there is no copy of Dreamdesk's to delete")
    code, _, err = run(capsys, "archive", "restore", home, "oc-nothing")
    assert code == 2 and err.strip() == "dreamdesk: no archive entry with id oc-nothing"
    assert tree_state(home) == before


def test_dream_and_compact_are_refused_in_words(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    before = tree_state(home)
    for command in ("dream", "compact", "serve"):
        code, out, err = run(capsys, command, home)
        assert code == 2 and err.startswith("dreamdesk: OpenClaw runs its own dreaming"), (command, err)
    assert tree_state(home) == before


def test_agent_picks_an_agent_and_an_unknown_one_is_said(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    config = json.loads((home / "openclaw.json").read_text(encoding="utf-8"))
    config["agents"]["entries"]["work"] = {"workspace": str(tmp_path / "work-claw")}
    (tmp_path / "work-claw").mkdir()
    (home / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    assert as_json(capsys, "status", home, "--agent", "work")["workspace"] == str(tmp_path / "work-claw")
    code, out, err = run(capsys, "status", home, "--agent", "play", "--json")
    assert code == 2 and json.loads(out)["error"].endswith("no agent 'play' in this OpenClaw home; its agents: main, work")


@pytest.mark.parametrize("name", ["fresh", "dreamed"])
def test_every_read_command_writes_nothing(capsys, tmp_path, name, private_state):
    home = copy_home(name, tmp_path)
    before, state_before = tree_state(home), tree_state(private_state)
    for argv in READS:
        for extra in ([], ["--json"]):
            code, _, err = run(capsys, argv[0], home, *argv[1:], *extra)
            assert code == 0, (argv, err)
    assert tree_state(home) == before and tree_state(private_state) == state_before


def test_status_carries_whats_next_as_openclaw_memory_promote_lists_it(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    n = as_json(capsys, "status", home)["whats_next"]
    listed = [c["key"] for c in oracle("dreamed", "promote_dry.json")["candidates"]]
    assert [c["key"] for c in n["candidates"] if c["eligible"]] == listed == n["next_batch"]
    assert (n["next_sweep"]["expr"], n["next_sweep"]["how"]) == ("0 3 * * *", "the dreaming cron job in the state database")
    code, out, _ = run(capsys, "status", home)
    # (within 15 minutes of 03:00 the line first says the sweep is due)
    assert ("Next       Next sweep " in out or "Next       OpenClaw's dreaming sweep is due " in out) \
        and "1 of 7 recalled candidate(s) meet the thresholds" in out
    assert "• memory/2026-12-05-retro.md:1-4  score " in out and "— ready" in out


def test_files_json_carries_provenance_directives_and_daily_notes(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    got = as_json(capsys, "files", home)
    promoted = [e for e in got["provenance"]["entries"] if e["origin"] == "promoted"]
    assert [(e["source"]["path"], e["source"]["start_line"], e["source"]["end_line"], e["score"], e["recalls"])
            for e in promoted] == [("memory/2026-12-06.md", 1, 4, 0.806, 3)]
    statuses = [(d["observed"], d["status"], d["replaced_by"]) for d in got["directives"]["directives"]]
    assert statuses == [("2026-11-30", "superseded", 1), ("2026-12-04", "active", None), ("2026-12-03", "active", None)]
    assert len(got["daily_notes"]["notes"]) == 5


def test_config_shows_and_sets_openclaws_own_memory_settings(capsys, tmp_path):
    """`config` on an OpenClaw home is OpenClaw's settings in openclaw.json; `config set --dry-run`
    says what the prompt would cut and writes nothing; `config set` writes only that value."""
    home = copy_home("over-cap", tmp_path)
    cfg = home / "openclaw.json"
    shown = as_json(capsys, "config", home)
    assert shown["file"] == str(cfg) and [(s["key"], s["value"]) for s in shown["settings"]] == [
        ("bootstrapMaxChars", 6000), ("bootstrapTotalMaxChars", 60000), ("dreaming.enabled", True),
        ("dreaming.frequency", "0 3 * * *")]
    before = cfg.read_bytes()
    dry = as_json(capsys, "config", "set", home, "bootstrapMaxChars", "9000", "--dry-run")
    assert dry["written"] is False and cfg.read_bytes() == before
    memory = next(f for f in dry["what_if"]["files"] if f["path"] == "MEMORY.md")
    assert (memory["cut_now"], memory["cut_then"], memory["cap_then"]) == (17, 0, 9000)
    code, out, _ = run(capsys, "config", "set", home, "bootstrapMaxChars", "9000", "--dry-run")
    assert code == 0 and "MEMORY.md (8,040 chars), cap 6,000 → 9,000: would fit whole (now: 17 entries in the cut)" in out
    done = as_json(capsys, "config", "set", home, "dreaming.enabled", "false")
    assert done["changed"] == [{"key": "dreaming.enabled", "where": "plugins.entries.memory-core.config.dreaming.enabled",
                                "before": True, "after": False}]
    assert json.loads(cfg.read_text(encoding="utf-8"))["plugins"]["entries"]["memory-core"] == {
        "config": {"dreaming": {"enabled": False}}}
    assert as_json(capsys, "config", home)["settings"][2]["value"] is False


@pytest.mark.parametrize("key, value, words", [
    ("bootstrapTotalMaxChars", "0", "must be a whole number ≥ 1, got 0; nothing written"),
    ("dreaming.frequency", "0 25 * * *", "'25' is outside 0-23"),
    ("intervalH", "4", "Dreamdesk's own Dream settings are never written there"),
    ("nonsense", "4", "not one of the settings Dreamdesk writes here"),
])
def test_config_set_refuses_in_words_on_an_openclaw_home(capsys, tmp_path, key, value, words):
    home = copy_home("over-cap", tmp_path)
    before = tree_state(home)
    code, _, err = run(capsys, "config", "set", home, key, value)
    assert code == 2 and words in err
    assert tree_state(home) == before


def test_directive_adds_supersedes_and_retires_in_usermd(capsys, tmp_path):
    home = copy_home("dreamed", tmp_path)
    user = home / "workspace" / "USER.md"
    code, out, _ = run(capsys, "directive", home, "add", "Answer", "in", "English.")
    assert code == 0 and out.strip() == "Saved USER.md"
    assert user.read_text(encoding="utf-8").endswith("| status: active -->\n\n- Answer in English.\n")
    code, _, err = run(capsys, "directive", home, "retire")
    assert code == 2 and "retire takes the directive's number N" in err
    code, _, err = run(capsys, "directive", home, "retire", "1")
    assert code == 2 and err.strip() == "dreamdesk: directive 1 is superseded, not active: only an active directive is retired"
    done = as_json(capsys, "directive", home, "retire", "2")
    assert done["written"] is True and "<!-- observed: 2026-12-04 | status: superseded -->" in user.read_text(encoding="utf-8")
