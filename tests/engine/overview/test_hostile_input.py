"""Regression tests for the adversarial review of the engine: hostile or damaged input in the
workspace, the home, the model's answers and the config must end in a reported problem, a
refused write or a recorded failure — never a traceback, a hang, or a write outside the place
it belongs. One section per defect of the review, numbered as in the review."""

import json
import os
import subprocess
import sys
import textwrap
import threading
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from conftest import tree_state
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.cli import main
from dreamdesk.engine.jobs.consolidator import journal_path, run_consolidator
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.run import DreamOptions, load_state, run_dream
from dreamdesk.engine.recovery.edits import save_edit
from dreamdesk.engine.disk.files import current_hash
from dreamdesk.engine.home.history import read_history
from dreamdesk.engine.llm import LLMError, choose_model
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.jobs.service import serve
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import turn

REPO = Path(__file__).resolve().parents[3]
USER = "# User\n\n## Identity\n- Name: Maya\n- Likes tea\n"
MEMORY = "# Memory\n\n## Projects\n- Blog runs on Hugo\n"
CONFIG_MARKER = "sk-CONFIG-MARKER-7777"


def hist(*contents, start=1):
    return "".join(json.dumps({"cursor": start + i, "timestamp": "2026-11-01 10:00", "content": c,
                               "session_key": "cli:direct"}) + "\n" for i, c in enumerate(contents))


def base_files(**extra):
    files = {"SOUL.md": "# Soul\n\n- Be brief.\n", "USER.md": USER, "memory/MEMORY.md": MEMORY,
             "memory/history.jsonl": hist("- [durable] likes green tea", "- [ephemeral] asked the time",
                                          "- [durable] cycles to work"),
             "memory/.cursor": "3", "memory/.dream_cursor": "0"}
    files.update(extra)
    return files


def client(srv, key="sk-test-0000"):
    return OpenAIClient(srv.url, "test-model", key, backoff=0.01, max_retries=0)


def only_consolidation():
    # run 1 never reviews (cadence 12); one pass, so one request when the model answers "done"
    return DreamOptions(passes={"deduction": False, "induction": False})


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def cli_proc(*argv, timeout=20):
    """The CLI in its own process (real stdout encoding; a hang is a TimeoutExpired, not a stuck run)."""
    return subprocess.run([sys.executable, "-m", "dreamdesk.engine.cli", *map(str, argv)], cwd=REPO, env=_env(),
                          capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout)


def files_only(state: dict, skip=()) -> dict:
    """tree_state restricted to regular files, minus the paths (prefixes) a run may legitimately write."""
    return {k: v for k, v in state.items() if v[0] is not None and not k.startswith(tuple(skip))}


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- 1. a run record's id steers no write outside memory/dreams/ -----------------------------
HOSTILE_RECORD = "r-20200101-000000.json"


def test_run_record_id_that_is_not_its_file_name_is_skipped_and_steers_no_write(tmp_path, make_workspace,
                                                                                llm_server, capsys):
    home = tmp_path / "home"
    root = make_workspace(base_files(), root=home / "workspace")
    cfg = home / "config.json"
    cfg.write_text(json.dumps({"agents": {"defaults": {"dream": {"userBudgetChars": 3000}}}}))
    dreams = root / "memory" / "dreams"
    dreams.mkdir(parents=True)
    rec = {"id": "../../../config", "started": "2020-01-01T00:00:00+00:00", "finished": "2020-01-01T00:01:00+00:00",
           "trigger": "manual", "status": "completed", "outcome": "x",
           "created": [{"file": "USER.md", "text": "- Likes tea", "sources": [1]}], "removed": []}
    (dreams / HOSTILE_RECORD).write_text(json.dumps(rec))
    ws = Workspace.open(home)
    before = tree_state(home)

    runs, problems = records.list_runs(ws)
    assert runs == []
    assert [p.file for p in problems] == [f"memory/dreams/{HOSTILE_RECORD}"]
    assert "id" in problems[0].message

    srv = llm_server(default=turn(content="done"))
    res = run_dream(ws, client(srv), only_consolidation())          # ends with records.prune(now)
    assert res.status == "wrote-nothing", res.outcome
    assert records.prune(ws, datetime.now().astimezone() + timedelta(days=1)) == []
    assert records.scrub_text(ws, "- Likes tea", "USER.md") == 0

    after = tree_state(home)
    assert cfg.read_bytes() == before["config.json"][0]
    # nothing outside memory/dreams/ changed except what the run itself owns (cursor, lock, snapshots)
    skip = ("workspace/memory/dreams/", "workspace/.git/", "workspace/.gitignore", "workspace/memory/.dream_cursor")
    assert files_only(after, skip) == files_only(before, skip)
    assert after[f"workspace/memory/dreams/{HOSTILE_RECORD}"] == before[f"workspace/memory/dreams/{HOSTILE_RECORD}"]

    code, out, err = run_cli(capsys, "runs", home, "--json")
    assert code == 0
    data = json.loads(out)
    assert [r["id"] for r in data["runs"]] == [res.run_id]
    assert [p["file"] for p in data["problems"]] == [f"memory/dreams/{HOSTILE_RECORD}"]
    code, out, err = run_cli(capsys, "runs", home)
    assert code == 0 and res.run_id in out


# -- 2. malformed model answers, an unsendable key, a tool on a non-folder --------------------
MALFORMED = {
    "tool-call-null": {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [None]}}]},
    "usage-list": {"choices": [{"message": {"role": "assistant", "content": "done"}}], "usage": [1]},
    "function-string": {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": "read_file"}]}}]},
    "choice-list": {"choices": [[1]]},
    "tokens-text": {"choices": [{"message": {"role": "assistant", "content": "done"}}],
                    "usage": {"prompt_tokens": "lots", "completion_tokens": 1}},
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_model_answer_fails_the_run_recorded_and_holds_the_cursor(make_workspace, llm_server, body):
    root = make_workspace(base_files())
    ws = Workspace.open(root)
    files_before = {rel: (root / rel).read_bytes() for rel in ("SOUL.md", "USER.md", "memory/MEMORY.md")}
    srv = llm_server([{"raw": body}])
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "failed"
    assert res.outcome.startswith("Dream failed: ") and "malformed" in res.outcome, res.outcome
    assert (res.cursor_before, res.cursor_after) == (0, 0)
    assert (root / "memory/.dream_cursor").read_text() == "0"
    on_disk = json.loads((root / "memory/dreams" / f"{res.run_id}.json").read_text(encoding="utf-8"))
    assert on_disk["status"] == "failed" and on_disk["finished"] and on_disk["error"]
    assert {rel: (root / rel).read_bytes() for rel in files_before} == files_before


def test_api_key_with_a_non_ascii_character_fails_cleanly(make_workspace, llm_server):
    srv = llm_server(default=turn(content="done"))
    with pytest.raises(LLMError, match="could not be sent"):
        client(srv, key="sk-\u2019x").complete([{"role": "user", "content": "hi"}], [])
    root = make_workspace(base_files())
    env = dict(_env(), DD_HOSTILE_KEY="sk-\u2019x")
    proc = subprocess.run([sys.executable, "-m", "dreamdesk.engine.cli", "dream", str(root), "--base-url", srv.url,
                           "--model", "m", "--api-key-env", "DD_HOSTILE_KEY", "--timeout", "10"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Dream failed" in proc.stdout and "could not be sent" in proc.stdout
    assert srv.requests == []
    assert (root / "memory/.dream_cursor").read_text() == "0"
    (rec,) = (root / "memory/dreams").glob("r-*.json")
    assert json.loads(rec.read_text(encoding="utf-8"))["status"] == "failed"


def test_read_file_below_a_regular_file_is_a_tool_error_and_the_run_goes_on(make_workspace, llm_server):
    root = make_workspace(base_files(**{"skills/README.md": "# Skills\n"}))
    srv = llm_server([turn(("read_file", {"path": "skills/README.md/SKILL.md"})), turn(content="done")])
    res = run_dream(Workspace.open(root), client(srv), only_consolidation())
    assert res.status == "wrote-nothing", res.outcome
    tool = srv.requests[1]["messages"][-1]
    assert tool["role"] == "tool" and tool["content"].startswith("Error: "), tool
    assert (root / "memory/.dream_cursor").read_text() == "3"


def test_absurdly_nested_tool_arguments_are_a_tool_error_and_the_run_goes_on(make_workspace, llm_server):
    root = make_workspace(base_files())
    deep = '{"path": ' + "[" * 5000 + "]" * 5000 + "}"          # valid JSON, too deep for the parser
    srv = llm_server([turn(("read_file", deep)), turn(content="done")])
    res = run_dream(Workspace.open(root), client(srv), only_consolidation())
    assert res.status == "wrote-nothing", res.outcome
    tool = srv.requests[1]["messages"][-1]
    assert tool["role"] == "tool" and tool["content"].startswith("Error: the arguments are not valid JSON"), tool


def test_a_new_skill_through_a_skills_link_into_the_workspace_is_refused(make_workspace, llm_server):
    """skills/ linked to memory/ stays inside the workspace, but skills/new/SKILL.md would land at
    memory/new/SKILL.md, which is not a memory file."""
    root = make_workspace(base_files())
    os.symlink(root / "memory", root / "skills")
    srv = llm_server([turn(("write_file", {"path": "skills/new/SKILL.md", "content": "# New\n"})),
                      turn(content="done")])
    run_dream(Workspace.open(root), client(srv), only_consolidation())
    tool = srv.requests[1]["messages"][-1]
    assert tool["content"].startswith("Error: refused") and "not a memory file" in tool["content"], tool
    assert not (root / "memory" / "new").exists()


# -- 3. unpaired surrogates ------------------------------------------------------------------
SURROGATE_LINE = '{"cursor": 1, "timestamp": "2026-11-01 10:00", "content": "x \\ud800 y"}\n'


def test_history_line_with_an_unpaired_surrogate_is_a_bad_line(make_workspace):
    root = make_workspace({"USER.md": USER, "memory/.cursor": "2", "memory/.dream_cursor": "0",
                           "memory/history.jsonl": SURROGATE_LINE + hist("- fine", start=2)})
    h = read_history(root / "memory/history.jsonl")
    assert [e.cursor for e in h.entries] == [2]
    assert [b.line for b in h.bad_lines] == [1] and "surrogate" in h.bad_lines[0].reason
    proc = cli_proc("history", root, "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    data = json.loads(proc.stdout)
    assert [e["cursor"] for e in data["entries"]] == [2]
    assert [b["line"] for b in data["bad_lines"]] == [1] and "surrogate" in data["bad_lines"][0]["reason"]
    proc = cli_proc("prompt", root, "--json", "--text")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    data = json.loads(proc.stdout)
    assert data["pending"]["shown_cursors"] == [2]


def test_session_message_with_an_unpaired_surrogate_compacts_raw_and_keeps_it_visible(tmp_path, make_workspace):
    home = tmp_path / "home"
    make_workspace({"USER.md": USER}, root=home / "workspace")
    t0 = datetime(2026, 1, 1, 10, 0)
    lines = [json.dumps({"_type": "metadata", "key": "cli:direct", "last_consolidated": 0})]
    for i in range(10):
        text = "caf\udc80 ok" if i == 0 else f"message {i}"
        lines.append(json.dumps({"role": "user" if i % 2 == 0 else "assistant", "content": text,
                                 "timestamp": (t0 + timedelta(minutes=i)).isoformat()}))
    assert "\\udc80" in lines[1]                       # a valid JSON escape, not UTF-8 text
    (home / "sessions").mkdir()
    (home / "sessions/cli_direct.jsonl").write_text("\n".join(lines) + "\n", encoding="ascii")
    ws = Workspace.open(home)
    results = run_consolidator(ws, None, manual=True)
    assert [(r.messages, r.raw) for r in results] == [(2, True)]
    data = (ws.history_path).read_bytes()
    data.decode("utf-8")                               # the file stays valid UTF-8
    h = read_history(ws.history_path)
    assert h.bad_lines == [] and len(h.entries) == 1
    assert "caf\\udc80 ok" in h.entries[0].content       # the surrogate survives as visible text


# -- 4. FIFOs and devices never hang ------------------------------------------------------------
_API = textwrap.dedent("""
    import json, sys
    from dreamdesk.engine.home.workspace import Workspace
    from dreamdesk.engine.overview.status import read_status
    from dreamdesk.engine.assistants.prompt import build_prompt
    ws = Workspace.open(sys.argv[1])
    st = read_status(ws)
    pv = build_prompt(ws, ws.history(), 0)
    print(json.dumps({"status": [p.to_json() for p in st.problems], "prompt": [p.to_json() for p in pv.problems]}))
""")


def _reads(root: Path) -> dict:
    """read_status, build_prompt, `status --json`, `prompt --json` and `prompt`, each in its own
    process with a 20 s timeout (a hang fails the test instead of stalling it)."""
    api = subprocess.run([sys.executable, "-c", _API, str(root)], cwd=REPO, env=_env(), capture_output=True,
                         text=True, timeout=20)
    assert api.returncode == 0, api.stderr
    status = cli_proc("status", root, "--json")
    prompt_json = cli_proc("prompt", root, "--json")
    prompt = cli_proc("prompt", root)
    for p in (status, prompt_json, prompt):
        assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    got = json.loads(api.stdout)
    return {"api_status": got["status"], "api_prompt": got["prompt"],
            "status": json.loads(status.stdout)["problems"], "prompt": json.loads(prompt_json.stdout)["problems"]}


def _files(problems: list[dict], severity=("error", "warning")) -> set[str]:
    return {p["file"] for p in problems if p["severity"] in severity}


@pytest.fixture
def fifo_ws(make_workspace):
    root = make_workspace({"USER.md": USER, "memory/MEMORY.md": MEMORY})
    for rel in ("AGENTS.md", "SOUL.md", "memory/history.jsonl", "memory/.cursor"):
        os.mkfifo(root / rel)
    return root


def test_fifos_never_hang_status_or_prompt_and_are_reported(fifo_ws):
    got = _reads(fifo_ws)
    for key in ("api_status", "status"):
        assert {"SOUL.md", "memory/history.jsonl", "memory/.cursor"} <= _files(got[key]), got[key]
    for key in ("api_prompt", "prompt"):
        assert "SOUL.md" in _files(got[key]), got[key]


def test_fifo_at_agents_md_is_reported_by_the_prompt_preview(fifo_ws):
    # AGENTS.md is read only by the prompt preview, so that is where it must be reported
    got = _reads(fifo_ws)
    for key in ("api_prompt", "prompt"):
        assert "AGENTS.md" in _files(got[key]), got[key]


def test_soul_md_linked_to_dev_zero_never_hangs_and_is_reported(make_workspace):
    root = make_workspace({"USER.md": USER, "memory/MEMORY.md": MEMORY, "memory/history.jsonl": hist("x"),
                           "memory/.cursor": "1"})
    os.symlink("/dev/zero", root / "SOUL.md")
    got = _reads(root)
    for key in ("api_status", "status", "api_prompt", "prompt"):
        assert any(p["file"] == "SOUL.md" and p["severity"] == "error" for p in got[key]), got[key]


# -- 5. hostile numbers and nesting in config.json and sessions ------------------------------------
HOSTILE_CONFIGS = {
    "5000-digit-int": '{"agents": {"defaults": {"dream": {"intervalH": ' + "9" * 5000 + "}}}}",
    "deep-nesting": '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "cooldown-1e308": json.dumps({"agents": {"defaults": {"dream": {
        "schedule": "activity", "activityThreshold": 1, "cooldownH": 1e308}}}}),
}


@pytest.mark.parametrize("text", HOSTILE_CONFIGS.values(), ids=HOSTILE_CONFIGS.keys())
def test_hostile_config_is_reported_by_status_config_and_schedule(make_workspace, capsys, text):
    root = make_workspace(base_files(**{"config.json": text}))
    code, out, err = run_cli(capsys, "status", root, "--json")
    assert code == 0
    probs = [p for p in json.loads(out)["problems"] if p["file"] == "config.json" and p["severity"] == "error"]
    assert probs, out
    if "cooldownH" in text:
        assert "cooldownH" in probs[0]["message"]
    code, out, err = run_cli(capsys, "config", root)
    assert code == 2
    assert one_line(err).startswith("dreamdesk: config.json")
    code, out, err = run_cli(capsys, "config", root, "--json")
    assert code == 2 and json.loads(out)["problems"]
    code, out, err = run_cli(capsys, "schedule", root, "--json")
    assert code == 0 and json.loads(out)["state"]
    code, out, err = run_cli(capsys, "schedule", root)
    assert code == 0 and out.strip()
    assert (root / "config.json").read_text() == text


def test_session_line_with_a_5000_digit_integer_is_a_reported_bad_line(tmp_path, make_workspace, capsys):
    home = tmp_path / "home"
    make_workspace({"USER.md": USER}, root=home / "workspace")
    (home / "sessions").mkdir()
    (home / "sessions/cli_direct.jsonl").write_text(
        json.dumps({"_type": "metadata", "key": "cli:direct", "last_consolidated": 0}) + "\n"
        + '{"role": "user", "content": "hi", "n": ' + "7" * 5000 + "}\n"
        + json.dumps({"role": "assistant", "content": "hello"}) + "\n")
    code, out, err = run_cli(capsys, "status", home, "--json")
    assert code == 0
    data = json.loads(out)
    (s,) = data["sessions"]
    assert s["messages"] == 1
    assert any(p["file"] == "sessions/cli_direct.jsonl" and p["line"] == 2 and p["severity"] == "error"
               for p in data["problems"]), data["problems"]


def test_config_json_that_is_a_folder_is_an_error_naming_it(tmp_path, make_workspace, capsys):
    home = tmp_path / "home"
    make_workspace({"USER.md": USER}, root=home / "workspace")
    (home / "config.json").mkdir()
    code, out, err = run_cli(capsys, "status", home, "--json")
    assert code == 0
    errors = [p for p in json.loads(out)["problems"] if p["severity"] == "error" and "config.json" in p["file"]]
    assert errors and "folder" in errors[0]["message"], json.loads(out)["problems"]


# -- 6. corrupt bookkeeping: state.json, run records, the consolidator journal ---------------------
STATES = {"runs-text": {"runs": "x"}, "held-count-text": {"held": {"batch": 3, "count": "z"}},
          "stuck-text": {"stuck": "x"}}


@pytest.mark.parametrize("state", STATES.values(), ids=STATES.keys())
def test_corrupt_state_json_does_not_stop_dream_or_schedule(make_workspace, llm_server, capsys, state):
    root = make_workspace(base_files(**{"memory/dreams/state.json": json.dumps(state)}))
    code, out, err = run_cli(capsys, "schedule", root)
    assert code == 0 and out.strip(), err
    code, out, err = run_cli(capsys, "schedule", root, "--json")
    assert code == 0 and json.loads(out)["state"], err
    srv = llm_server(default=turn(content="done"))
    code, out, err = run_cli(capsys, "dream", root, "--base-url", srv.url, "--model", "m", "--json")
    assert code == 0, (out, err)
    assert json.loads(out)["status"] == "wrote-nothing"
    assert (root / "memory/.dream_cursor").read_text() == "3"
    assert load_state(Workspace.open(root))["runs"] == 1
    code, out, err = run_cli(capsys, "schedule", root, "--json")
    assert code == 0


GOOD_ID, BAD_ID = "r-20261101-100000", "r-20261101-090000"
GOOD_RECORD = {"id": GOOD_ID, "started": "2026-11-01T10:00:00+00:00", "finished": "2026-11-01T10:01:00+00:00",
               "trigger": "manual", "status": "completed", "outcome": "ok", "batch": {"first": 1, "last": 3, "count": 3},
               "created": [{"file": "USER.md", "text": "- Likes tea", "sources": [1]}], "removed": [],
               "tokens": {"prompt": 1, "completion": 1, "total": 2}}
BAD_RECORDS = {
    "started-number": dict(GOOD_RECORD, id=BAD_ID, started=5),
    "created-null": dict(GOOD_RECORD, id=BAD_ID, created=None),
    "tokens-list": dict(GOOD_RECORD, id=BAD_ID, tokens=[1]),
    "created-strings": dict(GOOD_RECORD, id=BAD_ID, created=["s"]),
    "top-level-list": [GOOD_RECORD],
    "refused-size-true": dict(GOOD_RECORD, id=BAD_ID, refused=[{"file": "USER.md", "size": True}]),
    "source-not-whole": dict(GOOD_RECORD, id=BAD_ID, created=[{"file": "USER.md", "text": "- x", "sources": [1.5]}]),
    "iterations-text": dict(GOOD_RECORD, id=BAD_ID, passes=[{"name": "consolidation", "iterations": "3"}]),
}


@pytest.fixture
def runs_ws(make_workspace):
    def make(bad):
        return make_workspace(base_files(**{f"memory/dreams/{GOOD_ID}.json": json.dumps(GOOD_RECORD),
                                            f"memory/dreams/{BAD_ID}.json": json.dumps(bad)}))
    return make


@pytest.mark.parametrize("bad", BAD_RECORDS.values(), ids=BAD_RECORDS.keys())
def test_unusable_run_record_is_skipped_with_a_problem(runs_ws, capsys, bad):
    root = runs_ws(bad)
    runs, problems = records.list_runs(Workspace.open(root))
    assert [r.id for r in runs] == [GOOD_ID]
    assert [p.file for p in problems] == [f"memory/dreams/{BAD_ID}.json"]
    code, out, err = run_cli(capsys, "runs", root, "--json")
    assert code == 0
    data = json.loads(out)
    assert [r["id"] for r in data["runs"]] == [GOOD_ID]
    assert [p["file"] for p in data["problems"]] == [f"memory/dreams/{BAD_ID}.json"]
    code, out, err = run_cli(capsys, "runs", root)
    assert code == 0 and GOOD_ID in out and f"{BAD_ID}  " not in out
    code, out, err = run_cli(capsys, "runs", root, "show", GOOD_ID)
    assert code == 0 and "USER.md: - Likes tea" in out
    for extra in ((), ("--json",)):
        code, out, err = run_cli(capsys, "runs", root, "show", BAD_ID, *extra)
        assert code == 2 and (json.loads(out)["error"] in err if extra else out == "")     # (--json: the error as JSON)
        assert BAD_ID in one_line(err) and "not usable" in err


@pytest.mark.parametrize("lists, why", [
    ({"created": [GOOD_RECORD["created"][0], {"file": "USER.md"}]}, "created[1] lacks text"),
    ({"created": [{"file": "USER.md", "text": "- x", "sources": [1, 2.5]}]},
     "created[0].sources[1] is not a whole number"),
    ({"refused": [{"file": "USER.md", "size": 9}, {"file": "USER.md", "size": True}]},
     "refused[1].size is not a whole number"),
    ({"removed": [{"file": "USER.md", "text": 5}]}, "removed[0].text is not text or null"),
    ({"writes": [{"file": "USER.md"}, {}, {"file": 3}]}, "writes[2].file is not text"),
])
def test_an_unusable_entry_is_named_with_its_place(runs_ws, lists, why):
    """Thousands of entries are checked a field at a time; the message still names the first bad one."""
    root = runs_ws(dict(GOOD_RECORD, id=BAD_ID, **lists))
    _, (problem,) = records.list_runs(Workspace.open(root))
    assert problem.message == f"not a usable run record: {why}; skipped"


def test_human_runs_listing_names_the_records_it_skipped(runs_ws, capsys):
    root = runs_ws(BAD_RECORDS["tokens-list"])
    code, out, err = run_cli(capsys, "runs", root)
    assert code == 0 and GOOD_ID in out
    assert f"memory/dreams/{BAD_ID}.json" in out + err, (out, err)


@pytest.fixture
def journal_home(tmp_path, make_workspace):
    home = tmp_path / "home"
    make_workspace({"USER.md": USER}, root=home / "workspace")
    (home / "sessions").mkdir()
    outside = home / "outside.jsonl"
    outside.write_text("\n".join([json.dumps({"_type": "metadata", "key": "k", "last_consolidated": 0})]
                                 + [json.dumps({"role": "user", "content": f"m{i}"}) for i in range(4)]) + "\n")
    return home, outside


JOURNALS = {"empty-object": {}, "list": [], "path-outside-sessions": "OUTSIDE",
            "path-escaping-sessions": "ESCAPING"}


@pytest.mark.parametrize("journal", JOURNALS.values(), ids=JOURNALS.keys())
def test_unusable_consolidator_journal_is_a_clear_error_and_rewrites_nothing(journal_home, capsys, journal):
    home, outside = journal_home
    if isinstance(journal, str):
        path = str(outside) if journal == "OUTSIDE" else str(home / "sessions" / ".." / "outside.jsonl")
        journal = {"path": path, "display": "sessions/k.jsonl", "key": "k", "from": 0, "to": 4, "trigger": "idle",
                   "raw": True, "entries": [{"content": "[RAW] injected", "timestamp": "2026-11-01 10:00"}]}
    ws = Workspace.open(home)
    journal_path(ws).parent.mkdir(parents=True, exist_ok=True)
    journal_path(ws).write_text(json.dumps(journal))
    before = tree_state(home)
    code, out, err = run_cli(capsys, "compact", home)
    assert code == 2, (out, err)
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("dreamdesk: the compaction journal (")
    assert tree_state(home) == before
    assert not ws.history_path.exists()


# -- 7. a memory file that is not valid UTF-8 is never rewritten --------------------------------------
LATIN1_USER = b"Ren\xe9\n- a\n"


def test_dream_edit_of_a_non_utf8_file_is_a_refused_tool_call(make_workspace, llm_server):
    root = make_workspace(base_files(**{"USER.md": LATIN1_USER}))
    srv = llm_server([turn(("edit_file", {"path": "USER.md", "old_text": "- a", "new_text": "- b"})),
                      turn(content="done")])
    res = run_dream(Workspace.open(root), client(srv), only_consolidation())
    assert res.status == "wrote-nothing", res.outcome
    tool = srv.requests[1]["messages"][-1]
    assert tool["role"] == "tool" and tool["content"].startswith("Error: refused"), tool
    assert (root / "USER.md").read_bytes() == LATIN1_USER
    assert read_archive(Workspace.open(root)).records == []


def test_save_edit_of_a_non_utf8_file_raises_and_writes_nothing(make_workspace):
    root = make_workspace(base_files(**{"USER.md": LATIN1_USER}))
    ws = Workspace.open(root)
    before = tree_state(root)
    with pytest.raises(WorkspaceError, match="UTF-8"):
        save_edit(ws, "USER.md", "Ren\n- b\n", current_hash(root / "USER.md"))
    skip = (".git/", ".gitignore")   # the snapshot before the edit may be taken
    assert files_only(tree_state(root), skip) == files_only(before, skip)
    assert (root / "USER.md").read_bytes() == LATIN1_USER


# -- 8. a heading that leaves a file is archived ------------------------------------------------------
MEDICAL = "# User\n\n## Medical: allergic to penicillin\n- Takes the bus\n\n## Work\n- Engineer\n"


@pytest.mark.parametrize("new", [MEDICAL.replace("## Medical: allergic to penicillin\n", ""),
                                 MEDICAL.replace("## Medical: allergic to penicillin", "## Medical")],
                         ids=["removed", "shortened"])
def test_save_edit_archives_a_heading_it_removes_or_shortens(make_workspace, new):
    root = make_workspace(base_files(**{"USER.md": MEDICAL}))
    ws = Workspace.open(root)
    res = save_edit(ws, "USER.md", new, current_hash(root / "USER.md"))
    assert (root / "USER.md").read_text() == new
    assert "## Medical: allergic to penicillin" in [r.text for r in res.archived]
    assert [r.text for r in read_archive(ws).records] == [r.text for r in res.archived]
    assert all(r.reason == "edit" and r.file == "USER.md" for r in res.archived)


# -- 9. serve does not compact while another process holds the job lock --------------------------------
def test_serve_skips_consolidation_while_another_process_holds_the_job_lock(tmp_path, make_workspace,
                                                                             brief_job_lock_wait):
    home = tmp_path / "home"
    make_workspace({"USER.md": USER}, root=home / "workspace")
    (home / "sessions").mkdir()
    session = home / "sessions/cli_direct.jsonl"
    session.write_text("\n".join([json.dumps({"_type": "metadata", "key": "cli:direct", "last_consolidated": 0})]
                                 + [json.dumps({"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}",
                                                "timestamp": f"2020-01-01T10:{i:02d}:00"}) for i in range(12)]) + "\n")
    ws = Workspace.open(home)
    code = textwrap.dedent(f"""
        import sys
        from dreamdesk.engine.home.workspace import Workspace
        from dreamdesk.engine.recovery.job_lock import job_lock
        with job_lock(Workspace.open({str(home)!r})):
            print("held", flush=True)
            sys.stdin.readline()
    """)
    holder = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=_env(), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    logs: list[str] = []
    stop, consolidator_said = threading.Event(), threading.Event()

    def log(line: str) -> None:
        logs.append(line)
        if line.startswith("consolidator:"):
            consolidator_said.set()

    def no_model():
        raise LLMError("no model in this test")

    try:
        assert holder.stdout.readline().strip() == "held"
        session_before = session.read_bytes()
        t = threading.Thread(target=serve, args=(ws, no_model, stop, log),
                             kwargs={"tick_seconds": 0.05, "consolidate_every": 3600.0, "watch": False}, daemon=True)
        t.start()
        assert consolidator_said.wait(10), logs
        stop.set()
        t.join(10)                                 # serve has ended: whatever it would write is written
        assert not t.is_alive() and logs[-1] == "stopped"
    finally:
        stop.set()
        holder.communicate("\n", timeout=10)
    assert holder.returncode == 0
    assert any(line.startswith("consolidator: skipped") for line in logs), logs
    assert session.read_bytes() == session_before
    assert not ws.history_path.exists() and not journal_path(ws).exists()


# -- 10. config set: through a symlink, and only what it can write back faithfully ---------------------
def test_config_set_writes_through_a_symlink_and_keeps_the_link(tmp_path, make_workspace, capsys):
    root = make_workspace(base_files())
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "config.json"
    target.write_text(json.dumps({"keep": {"me": 1}}))
    os.symlink(target, root / "config.json")
    code, out, err = run_cli(capsys, "config", "set", root, "intervalH", "3")
    assert code == 0, err
    assert os.path.islink(root / "config.json") and os.readlink(root / "config.json") == str(target)
    data = json.loads(target.read_text())
    assert data["keep"] == {"me": 1} and data["agents"]["defaults"]["dream"]["intervalH"] == 3


UNFAITHFUL = {"nan": '{"x": NaN}', "infinity": '{"x": Infinity}', "1e400": '{"x": 1e400}',
              "duplicate-keys": '{"x": 1, "x": 2}', "long-float": '{"x": 12345678901234567890.5}'}


@pytest.mark.parametrize("text", UNFAITHFUL.values(), ids=UNFAITHFUL.keys())
def test_config_set_refuses_a_file_it_cannot_write_back_faithfully(make_workspace, capsys, text):
    root = make_workspace(base_files(**{"config.json": text}))
    code, out, err = run_cli(capsys, "config", "set", root, "intervalH", "3")
    assert code == 2
    assert one_line(err).startswith("dreamdesk: ")
    assert (root / "config.json").read_text() == text


def test_config_set_keeps_ordinary_floats(make_workspace, capsys):
    root = make_workspace(base_files(**{"config.json": '{"a": 0.1, "b": 1e-7, "c": 2.5e+30}'}))
    code, out, err = run_cli(capsys, "config", "set", root, "intervalH", "3")
    assert code == 0, err
    data = json.loads((root / "config.json").read_text())
    assert (data["a"], data["b"], data["c"]) == (0.1, 1e-7, 2.5e30)
    assert data["agents"]["defaults"]["dream"]["intervalH"] == 3


# -- 11. user:secret@ in an apiBase is never shown ------------------------------------------------------
def test_userinfo_in_api_base_never_appears(make_workspace, llm_server, capsys):
    srv = llm_server(default=turn(content="done"))
    base = srv.url.replace("http://", "http://user:secret@") + "?key=sk-query-secret"
    root = make_workspace(base_files(**{"config.json": json.dumps({
        "agents": {"defaults": {"model": "test-model", "provider": "p"}},
        "providers": {"p": {"apiBase": base, "apiKey": "sk-test-key-123456"}}})}))
    ws = Workspace.open(root)
    code, out, err = run_cli(capsys, "config", root, "--json")
    assert code == 0
    assert "secret" not in out and "127.0.0.1" in json.loads(out)["providers"]["p"]["apiBase"]
    choice, _ = choose_model(ws.config())
    assert "secret" not in choice.describe() and "127.0.0.1" in choice.describe()
    code, out, err = run_cli(capsys, "dream", root, "--json")
    assert code == 0, (out, err)
    assert srv.requests                                   # the run really went through that base URL
    assert srv.paths[-1] == "/v1/chat/completions?key=sk-query-secret"     # the query stays after the path
    run_id = json.loads(out)["run_id"]
    rec_text = (root / "memory/dreams" / f"{run_id}.json").read_text(encoding="utf-8")
    assert json.loads(rec_text)["model"] and "secret" not in rec_text
    assert "secret" not in out + err


# -- 12. SOUL.md linked to config.json hands nothing of the config to the model --------------------------
@pytest.fixture
def soul_to_config(make_workspace):
    root = make_workspace(base_files(**{"config.json": json.dumps({"providers": {"p": {"apiKey": CONFIG_MARKER}}})}))
    (root / "SOUL.md").unlink()
    os.symlink("config.json", root / "SOUL.md")
    return root


def test_dream_read_file_of_soul_md_linked_to_config_is_refused(soul_to_config, llm_server):
    srv = llm_server([turn(("read_file", {"path": "SOUL.md"})), turn(content="done")])
    res = run_dream(Workspace.open(soul_to_config), client(srv), only_consolidation())
    assert res.status == "wrote-nothing", res.outcome
    tool = srv.requests[1]["messages"][-1]
    assert tool["role"] == "tool" and tool["content"].startswith("Error: refused"), tool
    assert CONFIG_MARKER not in tool["content"]


def test_model_never_sees_config_through_a_soul_md_link(soul_to_config, llm_server):
    srv = llm_server([turn(("read_file", {"path": "SOUL.md"})), turn(content="done")])
    run_dream(Workspace.open(soul_to_config), client(srv), only_consolidation())
    assert len(srv.requests) == 2
    for i, req in enumerate(srv.requests):
        for m in req["messages"]:
            assert CONFIG_MARKER not in (m.get("content") or ""), f"request {i}, {m['role']} message: {m['content'][:300]}"


def test_cli_archive_delete_needs_yes_and_scrubs(capsys, make_workspace):
    from dreamdesk.engine.recovery.archive import read_archive
    from dreamdesk.engine.recovery.edits import save_edit
    from dreamdesk.engine.disk.files import current_hash
    root = make_workspace({"USER.md": "# U\n\n- secret diagnosis\n- keep\n"})
    ws = Workspace.open(root)
    res = save_edit(ws, "USER.md", "# U\n\n- keep\n", current_hash(root / "USER.md"))
    rid = res.archived[0].id
    code, out, err = run_cli(capsys, "archive", "delete", root, rid)
    assert code == 2 and "--yes" in err and read_archive(ws).get(rid) is not None
    code, out, err = run_cli(capsys, "archive", "delete", root, rid, "--yes")
    assert code == 0 and read_archive(ws).get(rid) is None
    assert not any("secret diagnosis" in p.read_text() for p in (root / "memory/archive").glob("*.jsonl"))


@pytest.mark.parametrize("mutate, words", [
    (lambda r: r["created"][0]["sources"].append([1, "a"]), "created[0].sources[1] is not a whole number"),
    (lambda r: r["created"][0].update(text=["not", "text"]), "created[0].text is not text"),
    (lambda r: r["refused"].insert(0, {"file": "USER.md", "size": "big"}), "refused[0].size is not a whole number"),
    (lambda r: r["passes"].insert(0, {"iterations": 2}), "passes[0] lacks name"),
    (lambda r: r.update(sizes={"USER.md": {"before": 1}}), "sizes['USER.md'] lacks after"),
    (lambda r: r["batch"].update(first="one"), "batch.first is not a whole number"),
])
def test_a_mangled_run_record_is_refused_in_one_line_not_a_traceback(demo_home, capsys, mutate, words):
    import json as json_mod
    from dreamdesk.engine.cli import main
    assert main(["dream", str(demo_home), "--replay", str(demo_home / "dream-replay.jsonl"), "--json"]) == 0
    rid = json_mod.loads(capsys.readouterr().out)["run_id"]
    path = demo_home / "workspace" / "memory" / "dreams" / f"{rid}.json"
    rec = json_mod.loads(path.read_text())
    rec.setdefault("refused", [])
    mutate(rec)
    path.write_text(json_mod.dumps(rec))
    for argv in (["runs", str(demo_home), "show", rid, "--json"], ["runs", str(demo_home), "show", rid]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code in (1, 2) and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1 and words in err
    assert main(["runs", str(demo_home), "--json"]) == 0          # the list still reads, with the problem
    listing = json_mod.loads(capsys.readouterr().out)
    assert rid not in [r["id"] for r in listing["runs"]] and any(words in p["message"] for p in listing["problems"])
