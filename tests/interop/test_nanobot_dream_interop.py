"""Homes written by nanobot-ai 0.3.5's REAL Dream (the driver's `dream` op: its gateway cron
job, its AgentLoop and provider, against the scripted loopback model), checked as the
assistant's own formats. What these runs showed about 0.3.5 (measured, not read):

- The `dream:<YYYYmmdd-HHMMSS>` session IS persisted, though process_direct is called with
  ephemeral=True: ephemeral only skips auto-compaction, the `_last_usage` metadata and the
  turn-persisted event; AgentLoop still calls SessionManager.save. The key is the run's start,
  `datetime.now()` (naive local time of the assistant's process). The transcript holds the
  Dream prompt as the first user message (not the system prompt), then one assistant message
  per model turn with OpenAI-style `tool_calls` (arguments a JSON string), a `tool` message
  per result ("Patch applied:\\n- update USER.md (+0/-1)"), the final answer. A run that changed
  nothing is saved too, and has no commit. prune_dream_sessions keeps the newest ten.
- Usage lands in HOME/llm_usage.sqlite3 (nanobot's data dir: the config file's folder), table
  `llm_calls`, one row per provider call, source "dream", provider "custom", the model name,
  stream 1, finish_reason "tool_calls"/"stop", input/output/total tokens as the server
  reported them, started_at_ms (epoch ms, UTC). The gateway attaches the observer
  (record_llm_call) to its provider snapshot; a bare `nanobot agent` CLI does not.
- The commit: author/committer `nanobot <nanobot@dream>`, subject "dream: periodic memory
  consolidation", body nanobot's diff summary ("USER.md: +0 -1", the file totals line and a
  ```diff block```); memory/.dream_cursor is committed with it; a run with no file change
  makes no commit (the cursor it advanced stays uncommitted until the next). The commit time is at or just after the session key's second.
- nanobot's edit_file keeps USER.md's CRLF line endings and BOM.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from .nanobot_dream_runs import RUNS

SUBJECT = "dream: periodic memory consolidation"


def _git(ws, *args) -> str:
    return subprocess.run(["git", *args], cwd=ws, capture_output=True, text=True, check=True).stdout


def _changed_lines(ws, sha: str, path: str) -> tuple[list[str], list[str]]:
    diff = _git(ws, "show", "--format=", "--no-color", sha, "--", path).splitlines()
    gone = [ln[1:].strip("\r\ufeff") for ln in diff if ln.startswith("-") and not ln.startswith("---")]
    came = [ln[1:].strip("\r\ufeff") for ln in diff if ln.startswith("+") and not ln.startswith("+++")]
    return gone, came


def _check_runs(home) -> None:
    ws = home.ws
    assert [bool(r["sha"]) for r in home.runs] == [True, True, True, False], home.runs
    log = _git(ws, "log", "--format=%H%x00%an <%ae>%x00%s%x00%b%x01").split("\x01")
    ours = [e.strip("\n").split("\x00") for e in log if e.strip()][:3]
    assert [c[2] for c in ours] == [SUBJECT] * 3
    assert {c[1] for c in ours} == {"nanobot <nanobot@dream>"}
    for run, res in zip(RUNS, home.runs):
        if not res["sha"]:
            continue
        full = _git(ws, "rev-parse", res["sha"]).strip()
        body = next(c[3] for c in ours if c[0] == full)
        assert body.startswith(res["diff"].split("\n", 1)[0]) and "```diff" in body, body
        for path in ("USER.md", "memory/MEMORY.md"):
            gone, came = _changed_lines(ws, res["sha"], path)
            assert sorted(gone) == sorted(run.removed.get(path, ())), (path, gone)
            assert sorted(came) == sorted(run.added.get(path, ())), (path, came)


def test_nanobots_dream_commits_remove_real_lines(nanobot, nanobot_dreamed_home):
    home = nanobot_dreamed_home
    _check_runs(home)
    assert (home.ws / "USER.md").read_bytes().startswith(b"# User Profile\n")
    after = nanobot.check(home)
    assert after["history"]["unprocessed"] == [], "nanobot's Dream left history undreamt"
    # the last run changed no file: nanobot advanced .dream_cursor and made no commit
    assert after["git"]["unstaged"] == ["memory/.dream_cursor"]


def test_crlf_bom_user_md_keeps_its_form_under_nanobots_dream(nanobot_dreamed_home_crlf):
    home = nanobot_dreamed_home_crlf
    _check_runs(home)
    data = (home.ws / "USER.md").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# User Profile\r\n") and b"\n" not in data.replace(b"\r\n", b"")
    assert b"- Lives in Braga\r\n" in data


def test_dream_transcripts_are_saved_though_ephemeral(nanobot, nanobot_dreamed_home):
    home = nanobot_dreamed_home
    keys = [r["key"] for r in home.runs]
    assert all(r["session_saved"] for r in home.runs)
    assert set(keys) <= set(home.runs[-1]["dream_sessions"])
    after = nanobot.check(home)
    first = next(s for s in after["sessions"] if s["key"] == keys[0])
    lines = [json.loads(x) for x in Path(first["path"]).read_text(encoding="utf-8").splitlines()]
    calls = [c["function"] for m in lines if m.get("role") == "assistant" for c in m.get("tool_calls") or []]
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == list(RUNS[0].calls)
    assert [m["content"] for m in lines if m.get("role") == "tool"][1] == "Patch applied:\n- update USER.md (+0/-1)"
    assert lines[-1]["content"] == RUNS[0].answer


def test_dream_usage_lands_in_the_homes_store(nanobot_dreamed_home):
    home = nanobot_dreamed_home
    db = home.path / "llm_usage.sqlite3"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = con.execute("SELECT source, provider, input_tokens, output_tokens, total_tokens, finish_reason "
                           "FROM llm_calls ORDER BY started_at_ms, id").fetchall()
    con.close()
    want = [(1000 * n + i, 10 * n + i) for n, run in enumerate(RUNS, 1) for i in range(run.calls_count)]
    assert [(r[2], r[3]) for r in rows] == want
    assert {r[0] for r in rows} == {"dream"} and {r[1] for r in rows} == {"custom"}
    assert all(r[4] == r[2] + r[3] for r in rows)
    assert [r[5] for r in rows][-1] == "stop"
    assert home.runs[-1]["usage"] and len(home.runs[-1]["usage"]) == len(rows)


def test_the_driver_never_reaches_beyond_loopback(nanobot, tmp_path):
    home = tmp_path / "home"
    nanobot.make_home(home)
    nanobot("use-model", home, "http://example.invalid:9/v1")
    res = nanobot("dream", home)
    assert not res["completed"] and res["sha"] is None
    assert any("blocked a connection to example.invalid" in w for w in res["warnings"]), res["warnings"]
