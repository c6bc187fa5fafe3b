"""One pass's loop (engine/dream/run.py run_pass), driven by a real run against the scripted
loopback model: the progress it reports at each step, how it ends (cancelled, error, a repeated
failure, its iteration limit) as the run record says, the tool calls one reply may make, and the
arguments it keeps in the conversation."""

from __future__ import annotations

import json
import threading

import pytest

from conftest import pending_files
from dreamdesk.engine.recovery import pins
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.run import MAX_CALLS_PER_TURN, MAX_STORED_ARGS, DreamOptions, run_dream
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import turn

LONG = "- Allergic to penicillin, amoxicillin and every other beta-lactam antibiotic there is, " * 2


@pytest.fixture
def ws(make_workspace):
    return Workspace.open(make_workspace(pending_files("- fact 1", "- fact 2",
                                                      USER="# User\n\n" + LONG.strip() + "\n")))


def client(srv):
    return OpenAIClient(srv.url, "m", "sk-test", backoff=0.01, max_retries=1)


def passes(**on):
    return DreamOptions(passes={"review": False, "consolidation": False, "deduction": False, "induction": False} | on)


def test_each_step_of_a_pass_is_reported(ws, llm_server):
    pins.pin(ws, "USER.md", LONG.strip())
    said = "  " + "Nothing else to fold. " * 15 + "  "                          # 330 characters, spaced
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": LONG.strip()})), turn(content=said),
                      turn(content=None)])
    events = []
    run_dream(ws, client(srv), passes(consolidation=True, deduction=True), progress=events.append)
    refusal = ("Error: refused: the entry " + repr(" ".join(LONG.split())[:120]) + " in USER.md is pinned by the "
               "user; leave it as it is (do not remove or reword it)")
    step = {"pass": "consolidation", "limit": 15}
    assert events == [step | {"iteration": 1, "tokens": 0},
                      step | {"iteration": 1, "tokens": 1_050, "tool": "remove_fact", "ok": False,
                              "message": refusal[:200]},
                      step | {"iteration": 2, "tokens": 1_050},
                      step | {"iteration": 2, "tokens": 2_100, "message": said.strip()[:300]},
                      {"pass": "deduction", "limit": 12, "iteration": 1, "tokens": 2_100},
                      {"pass": "deduction", "limit": 12, "iteration": 1, "tokens": 3_150, "message": ""}]
    assert len(refusal) > 200 and len(said.strip()) > 300


def test_a_reply_s_calls_past_the_sixteenth_are_not_run_and_long_arguments_are_not_kept(ws, llm_server):
    facts = [("add_fact", {"path": "memory/MEMORY.md", "text": f"Fact number {n}", "sources": [1]})
             for n in range(MAX_CALLS_PER_TURN + 1)]
    filler = MAX_STORED_ARGS - len(json.dumps({"path": "skills/a/SKILL.md", "content": ""}))
    kept = json.dumps({"path": "skills/a/SKILL.md", "content": "a" * filler})           # exactly the most kept
    cut = json.dumps({"path": "skills/b/SKILL.md", "content": "b" * (filler + 1)})      # one character more
    assert (len(kept), len(cut)) == (MAX_STORED_ARGS, MAX_STORED_ARGS + 1)
    srv = llm_server([turn(*facts), turn(("write_file", kept), ("write_file", cut)), turn(content="done")])
    run_dream(ws, client(srv), passes(consolidation=True))
    memory = (ws.root / "memory/MEMORY.md").read_text()
    assert all(f"- Fact number {n}\n" in memory for n in range(MAX_CALLS_PER_TURN)) and "number 16" not in memory
    tools = [m for m in srv.requests[1]["messages"] if m["role"] == "tool"]
    assert len(tools) == MAX_CALLS_PER_TURN + 1 and tools[-1] == {
        "role": "tool", "tool_call_id": srv.requests[1]["messages"][-18]["tool_calls"][-1]["id"],
        "content": "Error: more than 16 tool calls in one turn; this one was not run"}
    sent = [tc["function"]["arguments"] for tc in srv.requests[2]["messages"][-3]["tool_calls"]]
    assert sent == [kept, json.dumps({"_note": "arguments too long; not kept"})]
    assert (ws.root / "skills/b/SKILL.md").exists()                     # run all the same, only not kept


def ended(ws, res) -> list[tuple[str, str]]:
    return [(p["name"], p["ended"]) for p in records.load_run(ws, res.run_id).passes]


def test_a_pass_cancelled_between_its_steps_ends_cancelled(ws, llm_server):
    cancel = threading.Event()
    srv = llm_server([turn(("read_file", {"path": "USER.md"})), turn(content="never asked")])
    res = run_dream(ws, client(srv), passes(consolidation=True), cancel=cancel,
                    progress=lambda e: "tool" in e and cancel.set())
    assert ended(ws, res) == [("consolidation", "cancelled")] and len(srv.requests) == 1


def test_a_pass_the_model_fails_ends_in_error(ws, llm_server):
    res = run_dream(ws, client(llm_server([], default={"status": 500})), passes(consolidation=True))
    assert ended(ws, res) == [("consolidation", "error")]


def test_a_call_failing_twice_alike_ends_the_pass(ws, llm_server):
    bad = turn(("read_file", {"path": "config.json"}))
    res = run_dream(ws, client(llm_server([bad, bad, turn(content="never asked")])), passes(consolidation=True))
    assert ended(ws, res) == [("consolidation", "repeated-failure")]


def test_a_pass_that_never_stops_ends_at_its_limit(ws, llm_server):
    srv = llm_server([], default=turn(("read_file", {"path": "USER.md"})))
    res = run_dream(ws, client(srv), passes(induction=True))
    assert ended(ws, res) == [("induction", "limit")] and len(srv.requests) == 10
    assert "the induction pass hit its 10-iteration limit" in res.outcome
