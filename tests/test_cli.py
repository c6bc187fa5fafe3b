import json
import shutil
import subprocess
import sys

import pytest

from conftest import tree_state
from dreamdesk.engine.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def entry(c, content="x", key=None):
    d = {"cursor": c, "timestamp": "2026-11-01 10:00", "content": content}
    if key:
        d["session_key"] = key
    return json.dumps(d, ensure_ascii=False)


@pytest.fixture
def ws(make_workspace):
    hist = "\n".join([entry(1, "old fact"), entry(2, "- [durable] likes tea", "cli:direct"), '{"cursor": "3"',
                      entry(4, "new ✓")]) + "\n"
    return make_workspace({"SOUL.md": "I am Jenny.", "USER.md": "u" * 2800, "memory/MEMORY.md": "- fact\n",
                           "memory/history.jsonl": hist, "memory/.cursor": "4", "memory/.dream_cursor": "1",
                           "config.json": json.dumps({"keep": {"me": True}, "providers": {"p": {"apiKey": "sk-live-0123456789"}}})})


def test_status_json_shape(capsys, ws):
    code, out, err = run(capsys, "status", str(ws), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert {"files", "cursor", "dream_cursor", "pending", "history_entries", "problems"} <= set(data)
    assert data["cursor"] == 4 and data["dream_cursor"] == 1 and data["pending"] == 2
    assert data["history_entries"] == 3
    user = next(f for f in data["files"] if f["path"] == "USER.md")
    assert user == {"path": "USER.md", "kind": "user", "exists": True, "chars": 2800, "budget": 3000,
                    "fraction": 0.9333, "state": "near", "budget_key": "userBudgetChars"}
    bad = [p for p in data["problems"] if p["file"] == "memory/history.jsonl"]
    assert bad == [{"file": "memory/history.jsonl", "line": 3, "severity": "error",
                    "message": "not valid JSON (Expecting ',' delimiter, column 15)"}]
    assert "sk-live" not in out


def test_status_human(capsys, ws):
    code, out, _ = run(capsys, "status", str(ws))
    assert code == 0
    assert "USER.md" in out and "2,800 /  3,000" in out and "near" in out
    assert "memory/history.jsonl:3: not valid JSON" in out
    assert "pending 2" in out


def test_history_json_and_pending(capsys, ws):
    code, out, _ = run(capsys, "history", str(ws), "--json")
    data = json.loads(out)
    assert [(e["cursor"], e["status"], e["in_prompt"]) for e in data["entries"]] == [
        (1, "dreamed", False), (2, "pending", True), (4, "pending", True)]
    assert data["entries"][1]["session_key"] == "cli:direct"
    assert data["bad_lines"][0]["line"] == 3 and "not valid JSON" in data["bad_lines"][0]["reason"]
    code, out, _ = run(capsys, "history", str(ws), "--json", "--pending")
    assert [e["cursor"] for e in json.loads(out)["entries"]] == [2, 4]


def test_history_human_has_markers_and_error_rows(capsys, ws):
    code, out, _ = run(capsys, "history", str(ws))
    lines = out.splitlines()
    assert code == 0
    marker = next(i for i, line in enumerate(lines) if ".dream_cursor = 1" in line)
    assert "old fact" in lines[marker - 1] and "likes tea" in lines[marker + 1]
    assert any("line 3: not valid JSON" in line for line in lines)
    assert ".cursor = 4" in lines[-1]


def test_prompt_json(capsys, ws):
    code, out, _ = run(capsys, "prompt", str(ws), "--json")
    data = json.loads(out)
    names = [p["name"] for p in data["parts"]]
    assert names == ["SOUL.md", "USER.md", "MEMORY.md", "Wikis", "Pending history"]
    assert data["parts"][0]["chars"] == len("I am Jenny.")
    assert data["pending"]["shown_cursors"] == [2, 4]
    assert data["total_chars"] == sum(p["chars"] for p in data["parts"])


def test_config_show_and_set(capsys, ws):
    code, out, _ = run(capsys, "config", str(ws), "--json")
    data = json.loads(out)
    assert data["dream"]["reviewEveryRuns"] == 12
    assert "0123456789" not in out
    code, out, err = run(capsys, "config", "set", str(ws), "memoryBudgetChars", "2500")
    assert code == 0 and "memoryBudgetChars = 2500" in out
    raw = json.loads((ws / "config.json").read_text())
    assert raw["keep"] == {"me": True} and raw["agents"]["defaults"]["dream"]["memoryBudgetChars"] == 2500


def test_config_set_floor(capsys, ws):
    before = (ws / "config.json").read_bytes()
    code, out, err = run(capsys, "config", "set", str(ws), "reviewEveryRuns", "4")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "below the floor of 12" in err and "--confirm-below-floor" in err
    assert (ws / "config.json").read_bytes() == before
    code, out, err = run(capsys, "config", "set", str(ws), "reviewEveryRuns", "4", "--confirm-below-floor")
    assert code == 0
    assert json.loads((ws / "config.json").read_text())["agents"]["defaults"]["dream"]["reviewEveryRuns"] == 4


@pytest.mark.parametrize("argv,needle", [
    (["status"], "required"),
    (["frobnicate"], "invalid choice"),
    (["status", "/no/such/folder"], "no such folder"),
    (["config", "set", "WS", "intervalH", "soon"], "intervalH must be a whole number ≥ 1"),
    (["config", "set", "WS", "nope", "1"], "unknown config key"),
    (["config", "set", "WS", "intervalH"], "usage"),
])
def test_bad_usage_exit_2_one_line(capsys, ws, argv, needle):
    argv = [str(ws) if a == "WS" else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and needle in err, err


def test_bad_config_exit_2_but_status_still_reports(capsys, ws):
    (ws / "config.json").write_text('{"agents": {"defaults": {"dream": {"intervalH": "two"}}}}')
    code, out, err = run(capsys, "config", str(ws))
    assert code == 2 and 'intervalH must be a whole number ≥ 1 and ≤ 8760, got "two"' in err and err.count("\n") == 1
    code, out, err = run(capsys, "status", str(ws), "--json")
    assert code == 0
    assert any('got "two"' in p["message"] for p in json.loads(out)["problems"])
    code, out, err = run(capsys, "config", "set", str(ws), "intervalH", "3")
    assert code == 0   # a bad value can be repaired through the funnel


def test_unreadable_config_refuses_set(capsys, ws):
    (ws / "config.json").write_text("{oops")
    code, out, err = run(capsys, "config", "set", str(ws), "intervalH", "3")
    assert code == 2 and "will not rewrite" in err
    assert (ws / "config.json").read_text() == "{oops"


def test_read_commands_write_nothing(capsys, ws):
    before = tree_state(ws)
    for argv in (["status", str(ws)], ["status", str(ws), "--json"], ["history", str(ws)],
                 ["prompt", str(ws), "--json", "--text"], ["config", str(ws)]):
        assert run(capsys, *argv)[0] == 0
    assert tree_state(ws) == before


def test_console_script_installed(ws):
    exe = shutil.which("dreamdesk")
    cmd = [exe] if exe else [sys.executable, "-m", "dreamdesk.engine.cli"]
    proc = subprocess.run(cmd + ["status", str(ws), "--json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["pending"] == 2


@pytest.mark.parametrize("flag, day", [("--since", "garbage"), ("--until", "2026-13-45"), ("--since", "7d")])
def test_archive_date_filters_refuse_what_is_not_a_day(ws, capsys, flag, day):
    from dreamdesk.engine.cli import main
    assert main(["archive", str(ws), flag, day]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "YYYY-MM-DD" in err and out == ""


def test_status_percent_never_reads_near_while_ok(capsys):
    from conftest import DEMO_HOME
    from dreamdesk.engine.cli import main
    assert main(["status", str(DEMO_HOME)]) == 0
    user = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("USER.md"))
    assert "89%" in user and user.rstrip().endswith("ok")           # 2,687 / 3,000 is 89.6 %, still ok


def test_archive_days_must_be_zero_padded(ws, capsys):
    from dreamdesk.engine.cli import main
    assert main(["archive", str(ws), "--until", "2026-11-9"]) == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err


FAILING_COMMANDS = {
    "restore an unknown snapshot": ["restore", "{ws}", "deadbeef"],
    "restore one file of an unknown snapshot": ["restore", "{ws}", "deadbeef", "--path", "USER.md"],
    "diff an unknown snapshot": ["diff", "{ws}", "deadbeef"],
    "restore an unknown archive entry": ["archive", "{ws}", "--restore", "a-20260101-1"],
    "set an unknown key": ["config", "set", "{ws}", "noSuchKey", "3"],
    "set a budget to words": ["config", "set", "{ws}", "memoryBudgetChars", "lots"],
}


@pytest.mark.parametrize("argv", FAILING_COMMANDS.values(), ids=FAILING_COMMANDS.keys())
def test_a_command_that_fails_changes_nothing_in_a_nanobot_home(capsys, tmp_path, argv):
    """Not a lock, not a temp file, not git's index: a refused command leaves every byte and
    every mtime of the home as it found them (nanobot's git would see anything new in memory/)."""
    from nanobot_repo import build_nanobot_repo
    ws = tmp_path / "workspace"
    build_nanobot_repo(ws)
    before = tree_state(tmp_path)
    code, out, err = run(capsys, *[a.format(ws=ws) for a in argv])
    assert code == 2, (out, err)
    assert "Traceback" not in err and err.startswith("dreamdesk: ")
    assert tree_state(tmp_path) == before


def test_config_set_refuses_a_value_nanobot_would_not_start_on(capsys, ws, private_state):
    before = (ws / "config.json").read_bytes()
    for value in ("1.5", "0.25", "0"):
        code, out, err = run(capsys, "config", "set", str(ws), "intervalH", value)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert f"intervalH must be a whole number ≥ 1 and ≤ 8760, got {value}" in err
        assert "nanobot refuses to start on it" in err
    assert (ws / "config.json").read_bytes() == before
    assert not (private_state / "workspaces").exists()          # a failing command changes nothing
    assert run(capsys, "config", "set", str(ws), "intervalH", "3")[0] == 0
    assert json.loads((ws / "config.json").read_text())["agents"]["defaults"]["dream"]["intervalH"] == 3


def _drop_dreamdesk_keys(path):
    """nanobot's own config save: only the keys its schema knows survive under dream."""
    raw = json.loads(path.read_text())
    dream = raw["agents"]["defaults"]["dream"]
    for k in list(dream):
        if k not in ("enabled", "intervalH", "cron", "modelOverride"):
            del dream[k]
    path.write_text(json.dumps(raw))


def test_lost_settings_in_status_and_one_command_reapplies(capsys, ws):
    cfg = ws / "config.json"
    assert run(capsys, "config", "set", str(ws), "memoryBudgetChars", "2500")[0] == 0
    assert run(capsys, "config", "set", str(ws), "schedule", "activity")[0] == 0
    assert run(capsys, "config", "set", str(ws), "intervalH", "6")[0] == 0
    code, out, _ = run(capsys, "status", str(ws), "--json")
    assert json.loads(out)["lost_settings"] == []
    _drop_dreamdesk_keys(cfg)
    before = cfg.read_bytes()
    code, out, err = run(capsys, "status", str(ws), "--json")
    data = json.loads(out)
    assert code == 0 and data["lost_settings"] == [
        {"key": "agents.defaults.dream.memoryBudgetChars", "value": 2500, "default": 3000},
        {"key": "agents.defaults.dream.schedule", "value": "activity", "default": "interval"}]
    warnings = [p["message"] for p in data["problems"] if p["severity"] == "warning"]
    assert any("memoryBudgetChars = 2500" in m and "is gone" in m for m in warnings)
    assert any('schedule = "activity"' in m for m in warnings)
    code, out, err = run(capsys, "status", str(ws))
    assert "memoryBudgetChars = 2500, which Dreamdesk wrote, is gone" in out
    code, out, err = run(capsys, "config", str(ws), "--json")
    assert [x["key"] for x in json.loads(out)["lost_settings"]] == ["agents.defaults.dream.memoryBudgetChars",
                                                                    "agents.defaults.dream.schedule"]
    assert cfg.read_bytes() == before                              # reading never re-applies
    code, out, err = run(capsys, "config", "reapply", str(ws))
    assert code == 0 and "memoryBudgetChars = 2500  (re-applied)" in out
    dream = json.loads(cfg.read_text())["agents"]["defaults"]["dream"]
    assert dream == {"intervalH": 6, "memoryBudgetChars": 2500, "schedule": "activity"}
    assert json.loads(cfg.read_text())["keep"] == {"me": True}
    code, out, err = run(capsys, "config", "reapply", str(ws), "--json")
    assert code == 0 and json.loads(out)["reapplied"] == []
    assert json.loads(run(capsys, "status", str(ws), "--json")[1])["lost_settings"] == []


def test_config_forget_and_reapply_usage(capsys, ws):
    assert run(capsys, "config", "set", str(ws), "cooldownH", "3")[0] == 0
    _drop_dreamdesk_keys(ws / "config.json")
    before = (ws / "config.json").read_bytes()
    code, out, err = run(capsys, "config", "forget", str(ws), "cooldownH")
    assert code == 0 and "agents.defaults.dream.cooldownH" in out
    assert (ws / "config.json").read_bytes() == before
    assert json.loads(run(capsys, "status", str(ws), "--json")[1])["lost_settings"] == []
    code, out, err = run(capsys, "config", "reapply")
    assert code == 2 and "usage" in err and err.count("\n") == 1
    (ws / "config.json").write_text("{oops")
    code, out, err = run(capsys, "config", "reapply", str(ws))
    assert code == 2 and "will not rewrite" in err and (ws / "config.json").read_text() == "{oops"
