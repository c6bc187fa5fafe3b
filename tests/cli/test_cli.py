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
    from helpers.nanobot_repo import build_nanobot_repo
    ws = tmp_path / "workspace"
    build_nanobot_repo(ws)
    before = tree_state(tmp_path)
    code, out, err = run(capsys, *[a.format(ws=ws) for a in argv])
    assert code == 2, (out, err)
    assert "Traceback" not in err and err.startswith("dreamdesk: ")
    assert tree_state(tmp_path) == before


def test_config_set_refuses_a_value_nanobot_would_not_start_on(capsys, ws, private_state):
    before = (ws / "config.json").read_bytes()
    code, out, err = run(capsys, "config", "set", str(ws), "intervalH", "1.5")
    assert code == 2 and "got 1.5" in err and "nanobot" not in err      # a Jenny-style home: our words only
    (ws / ".nanobot").mkdir()
    (ws / ".nanobot" / "workspace-id").write_text("0123456789abcdef0123456789abcdef")   # now nanobot's home
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


# -- issue 25 item 13 ------------------------------------------------------------------------
# each command that takes --json, with an argument value it refuses (WS: a workspace, EMPTY: a
# folder that is no workspace); the first argument after the command is where the folder goes
JSON_COMMANDS = {
    "status": ["status", "WS", "extra"],
    "history": ["history", "WS", "extra"],
    "files": ["files", "WS", "extra"],
    "prompt": ["prompt", "WS", "extra"],
    "config": ["config", "set", "WS", "intervalH", "soon"],
    "snapshots": ["snapshots", "WS", "extra"],
    "diff": ["diff", "WS", "deadbeef"],
    "restore": ["restore", "WS", "HEAD", "--hunk", "USER.md:x"],
    "archive": ["archive", "WS", "--since", "garbage"],
    "pin": ["pin", "WS", "USER.md", "--line", "0"],
    "unpin": ["unpin", "WS", "USER.md", "--line", "0"],
    "pins": ["pins", "WS", "extra"],
    "directive": ["directive", "WS", "retire", "first"],
    "prompts": ["prompts", "WS", "--reset", "no-such-pass"],
    "scope": ["scope", "WS", "--close", "NOPE.md"],
    "dream": ["dream", "WS", "--max-tokens", "lots"],
    "lint": ["lint", "WS", "extra"],
    "ceiling": ["ceiling", "WS", "--tokens", "-5"],
    "model": ["model", "WS", "--timeout", "soon"],
    "runs": ["runs", "WS", "show", "r-19990101-000000"],
    "compact": ["compact", "WS", "--timeout", "soon"],
    "usage": ["usage", "WS", "extra"],
    "schedule": ["schedule", "WS", "extra"],
    "install-desktop": ["install-desktop", "--bogus"],
}


def _json_commands():
    import argparse
    from dreamdesk.engine.cli import build_parser
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {n for n, p in sub.choices.items() if any("--json" in a.option_strings for a in p._actions)}


def test_every_json_command_has_its_error_case():
    assert set(JSON_COMMANDS) == _json_commands()


def _json_error(capsys, argv):
    """Run argv with and without --json: the JSON run prints {"error": …} (only that) on stdout,
    the same words as the plain run's stderr line, with the same exit code."""
    plain_code, plain_out, plain_err = run(capsys, *argv)
    code, out, err = run(capsys, *argv, "--json")
    assert code == plain_code != 0, (plain_err, err)
    assert json.loads(out) == {"error": json.loads(out)["error"]}
    words = json.loads(out)["error"]
    assert words and plain_err.rstrip("\n").endswith(words) and err == plain_err
    assert not plain_out.lstrip().startswith("{")
    return code, words


@pytest.mark.parametrize("name", JSON_COMMANDS)
def test_json_error_on_a_bad_argument_value(capsys, ws, name):
    code, _ = _json_error(capsys, [str(ws) if a == "WS" else a for a in JSON_COMMANDS[name]])
    assert code == 2


NEEDS_MORE = {"diff": ["HEAD"], "restore": ["HEAD"], "pin": ["USER.md", "x"], "unpin": ["USER.md", "x"],
              "directive": ["add", "x"]}


@pytest.mark.parametrize("name", sorted(set(JSON_COMMANDS) - {"install-desktop"}))
def test_json_error_on_a_folder_that_is_no_workspace(capsys, tmp_path, name):
    empty = tmp_path / "plain folder"
    empty.mkdir()
    code, words = _json_error(capsys, [name, str(empty)] + NEEDS_MORE.get(name, []))
    assert code == 2 and "does not look like an assistant workspace" in words


def test_json_error_keeps_the_exit_code_of_a_failed_action(capsys, ws, monkeypatch):
    from dreamdesk.engine import cli

    def refused(path, args=None):
        raise PermissionError(13, "Permission denied", str(ws / "memory"))
    monkeypatch.setattr(cli, "_open", refused)
    code, words = _json_error(capsys, ["status", str(ws)])
    assert code == 1 and "ermission denied" in words


def test_json_error_without_a_command(capsys):
    code, out, err = run(capsys, "--json")
    assert code == 2 and "unrecognized arguments" in json.loads(out)["error"]


def test_runs_says_a_first_cursor_as_the_gui_does(capsys, tmp_path):
    """An assistant's commit that wrote .dream_cursor for the first time moved it from no file:
    "cursor —→6", as the Dream runs tab says it, never "None→6"."""
    from helpers.nanobot_repo import build_nanobot_repo, git
    ws = tmp_path / "workspace"
    build_nanobot_repo(ws)
    (ws / "memory" / ".dream_cursor").write_text("6")
    (ws / "USER.md").write_text((ws / "USER.md").read_text() + "- Likes tea.\n")
    git(ws, "add", "-f", "--", "USER.md", "memory/.dream_cursor")
    git(ws, "commit", "--quiet", "--no-verify", "-m", "dream: periodic memory consolidation")
    code, out, err = run(capsys, "runs", str(ws))
    newest = out.splitlines()[0]
    assert code == 0 and "cursor —→6" in newest and "None" not in out


def test_history_columns_line_up_with_long_session_keys(capsys, make_workspace):
    keys = [None, "cli:direct", "telegram:8123456789", "discord:112233445566778899001122", "x" * 60]
    hist = "".join(entry(c, f"fact {c}", k) + "\n" for c, k in enumerate(keys, 1))
    ws = make_workspace({"USER.md": "u", "memory/history.jsonl": hist + entry(6, "odd", "s") .replace(
        "2026-11-01 10:00", "sometime in the long afternoon") + "\n",
        "memory/.cursor": "6", "memory/.dream_cursor": "2"})
    code, out, _ = run(capsys, "history", str(ws))
    rows = [line for line in out.splitlines() if "fact" in line or "odd" in line]
    assert code == 0 and len(rows) == 6
    status_at = {line.index("dreamed") if "dreamed" in line else line.index("pending") for line in rows}
    assert len(status_at) == 1, "\n".join(rows)               # every status starts in the same column
    assert "discord:11…899001122 " in out          # elided in the middle: the channel and the end kept
    assert "x" * 60 not in out and "sometime in the long afternoon" not in out
