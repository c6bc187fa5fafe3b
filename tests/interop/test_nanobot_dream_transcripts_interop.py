"""Dreamdesk reads the Dream transcripts nanobot's own Dream saved, and tells which commit
each run made (engine/assistants/nanobot_dreams.py), on homes nanobot wrote."""

from __future__ import annotations

import subprocess

from dreamdesk.engine.assistants.nanobot_dreams import find_transcripts, match_commits
from dreamdesk.engine.home.workspace import Workspace

from .nanobot_checks import tree_state
from .nanobot_dream_runs import RUNS


def _commits(ws) -> list[tuple[str, int]]:
    out = subprocess.run(["git", "log", "--format=%H %ct"], cwd=ws, capture_output=True, text=True, check=True)
    return [(sha, int(t)) for sha, t in (line.split() for line in out.stdout.splitlines())]


def _check(home) -> None:
    before = tree_state(home.path)
    ws = Workspace.open(home.path)
    found = find_transcripts(ws)
    assert found.problems == []
    keys = [t.key for t in found.transcripts]
    assert keys == [home.made["dream_session"], *(r["key"] for r in home.runs)]
    runs = found.transcripts[1:]
    for run, t in zip(RUNS, runs):
        assert [(c.name, c.arguments) for c in t.calls] == list(run.calls)
        assert t.answer == run.answer and "## Conversation History" in t.prompt
        assert all(c.result and not c.failed for c in t.calls)
    first = runs[0]
    assert [(e.path, e.action, e.old_text, e.new_text) for _, e in first.edits] == [
        ("USER.md", "replace", "- Prefers dark mode\n", ""),
        ("memory/MEMORY.md", "replace", "- Blog runs on Hugo", "- Blog moved to Zola")]
    assert runs[2].edits[-1][1].action == "write" and runs[2].files == ["USER.md", "memory/MEMORY.md"]
    assert runs[3].calls == () and runs[3].files == []
    assert all(t.ended is not None and t.started <= t.ended for t in runs)

    matched = match_commits(found.transcripts, _commits(home.ws))
    want = {r["key"]: r["sha"] for r in home.runs if r["sha"]}     # nanobot's short shas
    assert matched.keys() == want.keys() and all(matched[k].startswith(want[k]) for k in want), \
        f"a run got another run's commit: {matched} vs {want}"
    assert tree_state(home.path) == before, "reading the transcripts wrote into the home"


def test_transcripts_of_nanobots_dream_and_their_commits(nanobot_dreamed_home):
    _check(nanobot_dreamed_home)


def test_transcripts_on_a_crlf_bom_home(nanobot_dreamed_home_crlf):
    _check(nanobot_dreamed_home_crlf)


def test_nanobot_keeps_ten_transcripts_and_all_ten_are_read(nanobot, nanobot_home, llm_server):
    """Twelve older Dream transcripts saved by nanobot's own SessionManager.save, then one real
    Dream: its prune_dream_sessions keeps the newest ten, and Dreamdesk reads those ten."""
    import json
    import os
    from pathlib import Path
    home = nanobot_home
    after: float | None = None           # the newest transcript already there (the home's own run)
    for day in range(1, 13):
        saved = nanobot("save-dream-session", home, f"dream:202611{day:02d}-030000", json.dumps([
            {"role": "user", "content": "## Conversation History"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": f"c{day}", "type": "function",
                 "function": {"name": "edit_file", "arguments": json.dumps(
                     {"path": "USER.md", "old_text": f"- fact {day}", "new_text": ""})}}]},
            {"role": "tool", "tool_call_id": f"c{day}", "name": "edit_file", "content": "Patch applied"},
            {"role": "assistant", "content": f"run {day}"}]))
        path = Path(saved["path"])
        if after is None:
            after = max((p.stat().st_mtime for p in path.parent.glob("*.jsonl") if p != path), default=0.0)
        when = after + day / 1000            # nanobot prunes the oldest by file time: in the order saved
        os.utime(path, (when, when))
    srv = llm_server(RUNS[3].script(1))
    nanobot("use-model", home, srv.url)
    nanobot.append_history(home, RUNS[3].history[0])
    ran = nanobot("dream", home)
    found = find_transcripts(Workspace.open(home))
    assert len(ran["dream_sessions"]) == 10 and [t.key for t in found.transcripts] == ran["dream_sessions"]
    assert found.transcripts[0].key == "dream:20261104-030000" and found.transcripts[-1].key == ran["key"]
    assert found.transcripts[0].edits[0][1].old_text == "- fact 4"


def test_runs_show_gives_a_runs_tool_calls_and_tokens(nanobot_dreamed_home):
    """`dreamdesk runs PATH show SHA` says what the Dream runs tab says of an assistant's run: the
    model's tool calls from nanobot's transcript and the tokens nanobot recorded for it."""
    from .nanobot_checks import dreamdesk, dreamdesk_json
    from .test_nanobot_usage_interop import WANT
    home = nanobot_dreamed_home
    for n, (run, script) in enumerate(zip(home.runs, RUNS)):
        if not run["sha"]:
            continue                         # the run that changed nothing made no commit
        shown = dreamdesk_json("runs", home, "show", run["sha"])
        assert shown["transcript"]["key"] == run["key"] and shown["transcript"]["answer"] == script.answer
        assert [(c["tool"], c["arguments"]) for c in shown["transcript"]["calls"]] == list(script.calls)
        assert (shown["tokens"]["input"], shown["tokens"]["output"]) == WANT[n]
    rc, out, _ = dreamdesk("runs", home, "show", home.runs[0]["sha"])
    assert rc == 0 and "- Blog runs on Hugo" in out and "edit_file" in out and "Tokens:" in out
