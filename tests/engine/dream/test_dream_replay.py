"""A recorded transcript drives a Dream run through the LLM client protocol: each pass starts
at its own labelled turns, so a pass that does not run this time shifts none of the others."""

from __future__ import annotations

import json

from dreamdesk.engine.dream.run import DreamOptions, run_dream
from dreamdesk.engine.llm.replay import ReplayClient
from dreamdesk.engine.home.workspace import Workspace


def test_a_pass_that_does_not_run_leaves_the_others_on_their_own_turns(make_workspace, tmp_path):
    root = make_workspace({
        "SOUL.md": "# Soul\n", "USER.md": "# User\n", "memory/MEMORY.md": "# Memory\n\n- Blog runs on Hugo\n",
        "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00",
                                            "content": "Maya moved the blog to Eleventy"}) + "\n",
        "memory/.cursor": "1", "memory/.dream_cursor": "0",
        "config.json": json.dumps({"agents": {"defaults": {"dream": {"reviewEveryRuns": 5}}}}),
    })
    transcript = tmp_path / "t.jsonl"
    add = {"name": "add_fact", "arguments": {"path": "memory/MEMORY.md", "text": "Blog runs on Eleventy",
                                             "sources": [1]}}
    transcript.write_text("\n".join(json.dumps(t) for t in [
        {"pass": "review", "content": "nothing to shrink"},           # run 1: no review pass
        {"pass": "consolidation", "tool_calls": [add]}, {"pass": "consolidation", "content": "done"},
        {"pass": "deduction", "content": "nothing"}, {"pass": "induction", "content": "nothing"}]) + "\n")
    res = run_dream(Workspace.open(root), ReplayClient(transcript), DreamOptions())
    assert res.status == "completed", res.outcome
    assert [(c["pass"], c["text"]) for c in res.record["created"]] == [("consolidation", "- Blog runs on Eleventy")]
    assert [(p["name"], p["iterations"]) for p in res.record["passes"]] == [
        ("consolidation", 2), ("deduction", 1), ("induction", 1)]
