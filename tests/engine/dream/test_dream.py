"""Dream through the loopback chat-completions server: cursor rules, sandbox, budgets, review,
records, dry run."""

import json
import os
import threading
from datetime import datetime, timedelta, timezone

import pytest

from conftest import tree_state
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.cli import main
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.run import DreamOptions, apply_preview, load_state, run_dream
from dreamdesk.engine.dream.runtypes import decode_record
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import client_threads, turn

USER = """# User

## Identity
- Name: Maya Lindqvist
- Works at Acme as a data engineer
- Lives in Porto

## Preferences
- Short replies
"""
MEMORY = """# Memory

## Projects
- Blog runs on Hugo
"""


def hist(*contents, start=1):
    return "".join(json.dumps({"cursor": start + i, "timestamp": "2026-11-01 10:00", "content": c,
                               "session_key": "cli:direct"}, ensure_ascii=False) + "\n"
                   for i, c in enumerate(contents))


@pytest.fixture
def ws(make_workspace):
    root = make_workspace({
        "SOUL.md": "# Soul\n\n- Be brief.\n", "USER.md": USER, "memory/MEMORY.md": MEMORY,
        "memory/history.jsonl": hist("- [durable] Maya moved the blog from Hugo to Eleventy",
                                     "- [correction] Maya now works at Wattson, not Acme",
                                     "- [ephemeral] Asked for a cake recipe"),
        "memory/.cursor": "3", "memory/.dream_cursor": "0",
        "config.json": json.dumps({"agents": {"defaults": {"dream": {"memoryBudgetChars": 3000,
                                                                     "userBudgetChars": 3000}}}}),
    })
    return Workspace.open(root)


def client(srv):
    return OpenAIClient(srv.url, "test-model", "sk-test-SECRET-4242", backoff=0.01, max_retries=1)


def only_consolidation(**kw):
    return DreamOptions(passes={"deduction": False, "induction": False}, **kw)


def test_clean_run_advances_cursor_commits_and_records(ws, llm_server):
    srv = llm_server([
        turn(("read_file", {"path": "memory/MEMORY.md"})),
        turn(("remove_fact", {"path": "memory/MEMORY.md", "text": "- Blog runs on Hugo",
                              "replacement": "Blog runs on Eleventy (moved from Hugo)", "sources": [1]})),
        turn(("remove_fact", {"path": "USER.md", "text": "- Works at Acme as a data engineer",
                              "replacement": "Works at Wattson as a data engineer", "sources": [2]})),
        turn(content="Updated the blog and the job."),
    ])
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "completed", res.outcome
    assert res.outcome.startswith("Dream completed in ") and "2 write(s)" in res.outcome
    assert (res.cursor_before, res.cursor_after) == (0, 3)
    assert (ws.root / "memory/.dream_cursor").read_text() == "3"
    assert "- Blog runs on Eleventy (moved from Hugo)" in (ws.root / "memory/MEMORY.md").read_text()
    # the old facts are archived with what replaced them
    arc = {r.text: r for r in read_archive(ws).records}
    assert arc["- Works at Acme as a data engineer"].replaced_by == "- Works at Wattson as a data engineer"
    assert arc["- Works at Acme as a data engineer"].reason == "dream"
    assert arc["- Blog runs on Hugo"].run == res.run_id
    # snapshots: one before, one dream commit after, with the real summary
    snaps = SnapshotStore(ws).list()
    assert [s.kind for s in snaps[:2]] == ["dream", "pre-dream"]
    assert snaps[1].subject == f"snapshot: before dream {res.run_id}"
    assert snaps[0].files["USER.md"] == (1, 1)
    # the record
    rec = records.load_run(ws, res.run_id)
    assert rec.status == "completed" and rec.batch.cursors == [1, 2, 3]
    assert rec.user_md["before"] == USER and "Wattson" in rec.user_md["after"]
    assert {(c["file"], c["text"], tuple(c["sources"])) for c in rec.created} == {
        ("memory/MEMORY.md", "- Blog runs on Eleventy (moved from Hugo)", (1,)),
        ("USER.md", "- Works at Wattson as a data engineer", (2,))}
    assert [w["file"] for w in rec.writes] == ["memory/MEMORY.md", "USER.md"]
    assert rec.tokens["total"] == 4 * 1050
    # the model saw sizes and budgets, and the batch with cursors
    prompt = srv.requests[0]["messages"][1]["content"]
    assert f"USER.md: {len(USER):,} / 3,000 chars" in prompt and "[cursor 2]" in prompt


def test_secret_never_reaches_record_snapshot_or_log(ws, llm_server):
    cfgp = ws.root / "config.json"
    cfgp.write_text(json.dumps({"providers": {"x": {"apiKey": "sk-test-SECRET-4242"}}}))
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences",
                                         "sources": [1]})), turn(content="ok")])
    logs = []
    res = run_dream(ws, client(srv), only_consolidation(), progress=logs.append)
    assert res.status == "completed"
    blob = json.dumps(res.to_json()) + json.dumps(logs)
    for p in (ws.root / "memory").rglob("*"):
        if p.is_file():
            blob += p.read_text(encoding="utf-8", errors="replace")
    store = SnapshotStore(ws)
    import subprocess
    objs = subprocess.run(["git", f"--git-dir={store.git_dir}", "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout
    assert b"SECRET-4242" not in objs
    assert "SECRET-4242" not in blob


@pytest.mark.parametrize("script,needle", [
    ([], "HTTP 500"),
])
def test_failed_run_holds_cursor_and_loses_nothing(ws, llm_server, script, needle):
    srv = llm_server(default={"status": 500, "error": "upstream down"})
    before = tree_state(ws.root / "memory")
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "failed" and needle in res.outcome
    assert res.outcome.startswith("Dream failed: ") and "The cursor stays at 0" in res.outcome
    assert (ws.root / "memory/.dream_cursor").read_text() == "0"
    assert (ws.root / "USER.md").read_text() == USER
    assert (ws.root / "memory/history.jsonl").read_bytes() == before["history.jsonl"][0]
    assert records.load_run(ws, res.run_id).status == "failed"


def test_failure_after_a_write_keeps_the_write_and_records_it(ws, llm_server):
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences",
                                         "sources": [1]}))], default={"status": 500})
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "failed" and res.cursor_after == 0
    assert "- Likes tea" in (ws.root / "USER.md").read_text()
    rec = records.load_run(ws, res.run_id)
    assert [c["text"] for c in rec.created] == ["- Likes tea"] and rec.writes[0]["file"] == "USER.md"


def test_cancel_holds_cursor_and_does_not_wait_for_the_model(ws, llm_server):
    cancel = threading.Event()

    def held(_body):                        # the second model call is in flight: the person cancels
        cancel.set()
        return {"delay": 30, **turn(content="late")}
    srv = llm_server([turn(("read_file", {"path": "USER.md"})), held])
    before = client_threads()
    res = run_dream(ws, client(srv), only_consolidation(), cancel=cancel)
    assert srv.answered == 1                # the held answer is still held: the run did not wait for it
    assert res.status == "cancelled" and res.cursor_after == 0
    assert "cancelled" in res.outcome and (ws.root / "memory/.dream_cursor").read_text() == "0"
    assert client_threads() == before       # the request in flight was aborted, not left on a thread


def test_a_run_talks_over_one_connection_and_closes_it(ws, llm_server):
    srv = llm_server([turn(("read_file", {"path": "USER.md"})), turn(("read_file", {"path": "memory/MEMORY.md"})),
                      turn(content="nothing to change")], default=turn(content="done"))
    before = client_threads()
    c = client(srv)
    res = run_dream(ws, c, DreamOptions(dry_run=True))      # consolidation, deduction, induction
    assert res.preview["status"] == "wrote-nothing", res.outcome
    assert len(srv.requests) == 5 and srv.connections == 1
    assert client_threads() == before and srv.all_closed()   # closed when the run ended
    srv.add(turn(content="done"))
    assert run_dream(ws, c, only_consolidation()).status == "wrote-nothing"   # the same client again
    assert (len(srv.requests), srv.connections) == (6, 2) and srv.all_closed()  # on a new connection


def test_iteration_limit_bounds_the_pass_and_holds(ws, llm_server):
    srv = llm_server(default=turn(("read_file", {"path": "USER.md"})))
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "failed" and "15-iteration limit" in res.outcome
    assert len(srv.requests) == 15 and res.cursor_after == 0


def test_hostile_tool_calls_are_refused_and_bounded(ws, llm_server, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("do not touch")
    os.symlink(outside, ws.root / "skills-link")
    (ws.root / "skills").mkdir()
    os.symlink(outside.parent, ws.root / "skills" / "evil")     # skills/evil/SKILL.md leads out
    hostile = [
        ("read_file", {"path": "../../x"}), ("read_file", {"path": "/etc/passwd"}),
        ("write_file", {"path": "memory/history.jsonl", "content": "x"}),
        ("write_file", {"path": "memory/.dream_cursor", "content": "999"}),
        ("write_file", {"path": "config.json", "content": "{}"}),
        ("write_file", {"path": "memory/archive/2026-11.jsonl", "content": "x"}),
        ("write_file", {"path": "skills/evil/SKILL.md", "content": "pwned"}),
        ("write_file", {"path": "skills/new/SKILL.md", "content": "x" * 10_000_000}),
        ("edit_file", '{"path": "USER.md", "old_text": '),
        ("nonexistent_tool", {}),
        ("edit_file", {"path": "USER.md", "old_text": "Porto", "new_text": "Porto"}),
    ]
    noop = turn(("edit_file", {"path": "USER.md", "old_text": "- Short replies", "new_text": "- Short replies"}))
    srv = llm_server([turn(*hostile)] + [noop] * 500)
    before = tree_state(ws.root)
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "failed" and "failed twice with the same arguments" in res.outcome
    assert len(srv.requests) <= 3                      # the repeated no-op ended the pass at once
    results = [m["content"] for m in srv.requests[1]["messages"] if m["role"] == "tool"]
    assert len(results) == len(hostile) and all(r.startswith("Error: ") for r in results), results
    assert "leaves the workspace" in results[0] and "absolute path" in results[1]
    assert "not a memory file" in results[2] and "not a memory file" in results[3]
    assert "symlink leading outside" in results[6]
    assert "absolute cap" in results[7] and "not valid JSON" in results[8] and "unknown tool" in results[9]
    assert "no-op" in results[10]
    assert outside.read_text() == "do not touch"
    after = tree_state(ws.root)
    for rel in ("USER.md", "SOUL.md", "memory/MEMORY.md", "memory/history.jsonl", "memory/.dream_cursor", "config.json"):
        assert after[rel][0] == before[rel][0], rel
    assert not (ws.root / "skills/new").exists()


def test_budget_refuses_growth_but_allows_shrinking(ws, llm_server):
    (ws.root / "config.json").write_text(json.dumps({"agents": {"defaults": {"dream": {"userBudgetChars": 100}}}}))
    assert len(USER) > 100
    srv = llm_server([
        turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences", "sources": [1]})),
        turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})),
        turn(content="made room"),
    ])
    res = run_dream(ws, client(srv), only_consolidation())
    text = (ws.root / "USER.md").read_text()
    assert "- Likes tea" not in text and "- Lives in Porto" not in text
    refused = records.load_run(ws, res.run_id).refused
    assert refused == [{"file": "USER.md", "size": len(USER) + len("- Likes tea\n"), "budget": 100,
                        "before": len(USER), "pass": "consolidation",
                        "reason": refused[0]["reason"], "kind": "budget"}]
    assert "over its budget of 100" in refused[0]["reason"]
    tool_msg = [m for m in srv.requests[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert tool_msg.startswith("Error: refused: USER.md would be") and "budget of 100" in tool_msg
    assert "1 write(s) refused by a size budget" in res.outcome


def test_near_budget_hold_then_give_up_after_four(make_workspace, llm_server):
    memory = "# Memory\n\n" + "".join(f"- fact number {i:03d} about the homelab\n" for i in range(80))
    root = make_workspace({"USER.md": USER, "memory/MEMORY.md": memory,
                           "memory/history.jsonl": hist("- [durable] Uses Proxmox now"),
                           "config.json": json.dumps({"agents": {"defaults": {"dream": {
                               "memoryBudgetChars": len(memory) + 50, "reviewEveryRuns": 100}}}})})
    ws = Workspace.open(root)
    srv = llm_server(default=turn(content="nothing to add"))
    statuses = []
    for _ in range(5):
        res = run_dream(ws, client(srv), only_consolidation())
        statuses.append((res.status, res.cursor_after, res.stuck_alarm))
    assert statuses == [("held", 0, False), ("held", 0, False), ("held", 0, True), ("held", 0, True),
                        ("wrote-nothing", 1, True)]
    assert "near the budget" in records.list_runs(ws)[0][-1].outcome
    assert load_state(ws)["stuck"]["batch"] == [1, 1]


def near_budget_workspace(make_workspace, **dream):
    memory = "# Memory\n\n" + "".join(f"- fact number {i:03d} about the homelab\n" for i in range(80))
    root = make_workspace({"USER.md": USER, "memory/MEMORY.md": memory,
                           "memory/history.jsonl": hist("- [durable] Uses Proxmox now"),
                           "config.json": json.dumps({"agents": {"defaults": {"dream": {
                               "memoryBudgetChars": len(memory) + 50, "reviewEveryRuns": 100, **dream}}}})})
    return Workspace.open(root)


def test_held_batch_keeps_its_count_while_new_history_arrives(make_workspace, llm_server):
    """The batch is the same one as long as it starts at the same entry: a chat line arriving
    between held runs must not reset the count (or the give-up would never come)."""
    ws = near_budget_workspace(make_workspace)
    srv = llm_server(default=turn(content="nothing to add"))
    statuses = []
    for i in range(5):
        res = run_dream(ws, client(srv), only_consolidation())
        statuses.append((res.status, res.cursor_after, res.stuck_alarm))
        with open(ws.history_path, "a", encoding="utf-8") as fh:      # the assistant goes on chatting
            fh.write(hist(f"- [ephemeral] chat line {i}", start=2 + i))
    assert statuses == [("held", 0, False), ("held", 0, False), ("held", 0, True), ("held", 0, True),
                        ("wrote-nothing", 5, True)]
    assert load_state(ws)["stuck"]["batch"] == [1, 5]


def test_a_dry_run_is_the_run_that_would_happen(make_workspace, llm_server):
    """Same run number (so a due review pass is in the preview) and, applied, the same hold."""
    ws = near_budget_workspace(make_workspace, reviewEveryRuns=12)
    (ws.memory_dir / "dreams").mkdir()
    (ws.memory_dir / "dreams" / "state.json").write_text(json.dumps({"runs": 11}))
    srv = llm_server(default=turn(content="nothing to add"))
    res = run_dream(ws, client(srv), only_consolidation(dry_run=True))
    assert res.status == "held" and res.record["run_number"] == 12
    assert [p["name"] for p in res.record["passes"]][0] == "review"
    apply_preview(ws, res.preview)
    state = load_state(ws)
    assert state["runs"] == 12 and state["held"] == {"batch": 1, "count": 1}
    # applied, the run says what the dry run said (issue 17.4), in the words of a run that happened
    applied = state["last_run"]["outcome"]
    assert applied.startswith("Applied a previewed dry run: ")
    explained = res.preview["applied_outcome"]
    assert explained and explained in applied and "held" in explained.lower()
    assert res.outcome != explained                    # the dry run's own text says "would"
    assert "Review pass" in explained and not any(w in explained for w in ("would move", "would go to", "Dry run"))
    assert not (ws.memory_dir / ".dream_cursor").exists()                # held: the cursor stays


def test_a_blocked_run_holds_the_cursor(ws, llm_server):
    """Spec: "Blocked, failed, cancelled: hold." A size refusal still outstanding at the end
    (nothing written to that file after it) is a blocked run, even below the near-budget mark."""
    (ws.root / "config.json").write_text(json.dumps({"agents": {"defaults": {"dream": {
        "userBudgetChars": len(USER) + 5}}}}))
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Moved to Lisbon in May", "section": "Identity",
                                         "sources": [1]})), turn(content="could not add it")],
                     default=turn(content="nothing"))
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "held" and res.cursor_after == 0
    assert "refused by a size budget and nothing took its place" in res.outcome
    assert load_state(ws)["held"] == {"batch": 1, "count": 1}


def test_a_refusal_followed_by_a_write_to_that_file_is_not_blocked(ws, llm_server):
    (ws.root / "config.json").write_text(json.dumps({"agents": {"defaults": {"dream": {
        "userBudgetChars": len(USER) + 25}}}}))                       # below the near-budget mark
    fact = "Likes green tea from the Porto markets"
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": fact, "section": "Preferences",
                                         "sources": [1]})),
                      turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})),
                      turn(("add_fact", {"path": "USER.md", "text": fact, "section": "Preferences",
                                         "sources": [1]})), turn(content="made room, then added it")],
                     default=turn(content="nothing"))
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "completed" and res.cursor_after == 3, res.outcome
    assert f"- {fact}" in (ws.root / "USER.md").read_text()
    assert len(records.load_run(ws, res.run_id).refused) == 1


def test_review_growth_refusals_are_not_counted_as_budget_refusals(ws, llm_server):
    srv = llm_server([turn(("edit_file", {"path": "USER.md", "old_text": "- Short replies",
                                          "new_text": "- Short replies, always, in English"})),
                      turn(content="nothing to shrink")], default=turn(content="nothing"))
    res = run_dream(ws, client(srv), DreamOptions(force_review=True, passes={"deduction": False, "induction": False}))
    rec = records.load_run(ws, res.run_id)
    assert rec.review.refused == 0 and rec.review.refused_growth == 1
    assert "0 of its writes refused by a size budget (1 more refused because they would have grown a file)" \
        in res.outcome
    assert load_state(ws)["refusal_streak"].get("USER.md", 0) == 0
    assert res.status != "held"                       # a shrink-only refusal never blocks the batch


def test_the_record_on_disk_holds_each_write_as_it_lands(ws, llm_server):
    """A run killed part way still records what it committed: the record is saved after every
    write, not only at the end of a pass."""
    seen = {}

    def look(body):
        rec = json.loads(next((ws.memory_dir / "dreams").glob("r-*.json")).read_text(encoding="utf-8"))
        seen["writes"] = [(w["file"], w["tool"]) for w in rec["writes"]]
        seen["created"] = [c["text"] for c in rec["created"]]
        return turn(content="done")

    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences",
                                         "sources": [1]})),
                      turn(("add_fact", {"path": "memory/MEMORY.md", "text": "Blog on Eleventy", "section": "Projects",
                                         "sources": [1]})), look], default=turn(content="nothing"))
    run_dream(ws, client(srv), only_consolidation())
    assert seen["writes"] == [("USER.md", "add_fact"), ("memory/MEMORY.md", "add_fact")]   # mid-pass, on disk
    assert seen["created"] == ["- Likes tea", "- Blog on Eleventy"]


def test_induction_creates_patterns_only_with_sources_and_confidence(ws, llm_server):
    """Spec: patterns need ≥2 source entries and get a confidence; edit_file would bypass both."""
    srv = llm_server([turn(("edit_file", {"path": "USER.md", "old_text": "- Short replies",
                                          "new_text": "- Short replies\n- Always asks for recipes"})),
                      turn(("add_fact", {"path": "USER.md", "text": "Asks for recipes", "section": "Preferences",
                                         "sources": [3]})),
                      turn(content="no pattern with enough sources")], default=turn(content="nothing"))
    res = run_dream(ws, client(srv), DreamOptions(passes={"consolidation": False, "deduction": False}))
    assert "Always asks for recipes" not in (ws.root / "USER.md").read_text()
    assert records.load_run(ws, res.run_id).created == []
    tools = [m["content"] for m in srv.requests[2]["messages"] if m["role"] == "tool"]
    assert "edit_file is not one of the induction pass's tools" in tools[0], tools
    assert "at least 2 source entries" in tools[1]


def test_below_near_budget_a_run_that_adds_nothing_is_believed(ws, llm_server):
    srv = llm_server(default=turn(content="nothing new"))
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "wrote-nothing" and res.cursor_after == 3
    assert res.outcome.endswith("but wrote nothing.")


def test_review_pass_is_shrink_only_and_archives_every_removed_entry(ws, llm_server):
    srv = llm_server([
        turn(("add_fact", {"path": "USER.md", "text": "grow", "sources": [1]})),          # not in review's tools
        turn(("edit_file", {"path": "USER.md", "old_text": "- Short replies", "new_text": "- Short replies, always, in English"})),
        turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"}),
             ("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Projects\n- Blog runs on Hugo\n", "new_text": ""})),
        turn(content="freed room"),
    ], default=turn(content="done"))
    res = run_dream(ws, client(srv), DreamOptions(force_review=True, passes={"deduction": False, "induction": False}))
    rec = records.load_run(ws, res.run_id)
    assert [p["name"] for p in rec.passes] == ["review", "consolidation"]
    review_tools = {t["function"]["name"] for t in srv.requests[0]["tools"]}
    assert "add_fact" not in review_tools
    assert any(r["reason"].startswith("the review pass only makes files smaller") for r in rec.refused)
    arc = read_archive(ws).records
    assert {(a.file, a.text, a.reason) for a in arc} == {("USER.md", "- Lives in Porto", "review"),
                                                        ("memory/MEMORY.md", "- Blog runs on Hugo", "review"),
                                                        ("memory/MEMORY.md", "## Projects", "review")}
    freed = len("- Lives in Porto\n") + len("## Projects\n- Blog runs on Hugo\n")
    assert rec.review.chars_freed == freed
    ids = ", ".join(a.id for a in arc)
    assert f"Review pass: freed {freed:,} characters, moved 3 facts to memory/archive/ ({ids})" in res.outcome


def test_review_cadence_counts_runs(ws, llm_server):
    (ws.root / "config.json").write_text(json.dumps({"agents": {"defaults": {"dream": {"reviewEveryRuns": 2}}}}))
    srv = llm_server(default=turn(content="ok"))
    names = []
    for i in range(3):
        (ws.root / "memory/history.jsonl").write_text(hist(*[f"- [ephemeral] note {j}" for j in range(3 * (i + 1))]))
        res = run_dream(ws, client(srv), only_consolidation())
        names.append([p["name"] for p in records.load_run(ws, res.run_id).passes])
    assert names == [["consolidation"], ["review", "consolidation"], ["consolidation"]]


def test_induction_needs_two_sources_and_sets_confidence(ws, llm_server):
    srv = llm_server([
        turn(("add_fact", {"path": "USER.md", "text": "Tends to reschedule", "section": "Patterns", "sources": [1]})),
        turn(("add_fact", {"path": "USER.md", "text": "Tends to reschedule", "section": "Patterns", "sources": [1, 2, 3]})),
        turn(("add_fact", {"path": "USER.md", "text": "Unknown source", "section": "Patterns", "sources": [1, 77]})),
        turn(content="one pattern"),
    ])
    res = run_dream(ws, client(srv), DreamOptions(passes={"consolidation": False, "deduction": False}))
    rec = records.load_run(ws, res.run_id)
    assert [(c["text"], c["kind"], c["confidence"], c["sources"]) for c in rec.created] == [
        ("- Tends to reschedule", "inductive", "medium", [1, 2, 3])]
    results = [m["content"] for m in srv.requests[-1]["messages"] if m["role"] == "tool"]
    assert "at least 2 source entries" in results[0] and "not in this batch" in results[2]


def test_fact_status_across_two_runs(ws, llm_server):
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences", "sources": [1]})),
                      turn(content="ok")])
    first_start = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
    r1 = run_dream(ws, client(srv), only_consolidation(), now=lambda: first_start)
    with open(ws.history_path, "a") as fh:
        fh.write(hist("- [correction] Maya quit tea, drinks coffee", start=4))
    srv.add(turn(("remove_fact", {"path": "USER.md", "text": "- Likes tea", "replacement": "Drinks coffee, not tea",
                                  "sources": [4]})), turn(content="ok"))
    # run ids and start times have one-second resolution: the second run starts a minute later
    r2 = run_dream(ws, client(srv), only_consolidation(), now=lambda: first_start + timedelta(minutes=1))
    first = records.resolve(ws, records.load_run(ws, r1.run_id))
    fact = first["created"][0]
    assert fact["status"] == "removed" and fact["removed_in_run"] == r2.run_id
    assert fact["source_entries"][0]["status"] == "current" and "Eleventy" in fact["source_entries"][0]["content"]
    second = records.resolve(ws, records.load_run(ws, r2.run_id))
    assert second["created"][0]["status"] == "current"
    assert second["removed"][0]["replaced_by"] == "- Drinks coffee, not tea"


def test_two_runs_in_the_same_second_keep_their_order(ws, llm_server):
    """Issue 13.5: run B started in the same second as run A and removed A's fact: it reads as
    removed in B (the run number orders them), not unavailable."""
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences", "sources": [1]})),
                      turn(content="ok")])
    r1 = run_dream(ws, client(srv), only_consolidation())
    with open(ws.history_path, "a") as fh:
        fh.write(hist("- [correction] Maya quit tea", start=4))
    srv.add(turn(("remove_fact", {"path": "USER.md", "text": "- Likes tea"})), turn(content="ok"))
    r2 = run_dream(ws, client(srv), only_consolidation())
    path = ws.memory_dir / "dreams" / f"{r2.run_id}.json"
    rec = json.loads(path.read_text())
    rec["started"] = records.load_run(ws, r1.run_id).started        # the same second as A
    path.write_text(json.dumps(rec))
    first = records.resolve(ws, records.load_run(ws, r1.run_id))
    assert first["created"][0]["status"] == "removed" and first["created"][0]["removed_in_run"] == r2.run_id
    runs, _ = records.list_runs(ws)
    assert [r.id for r in runs] == [r2.run_id, r1.run_id]


def test_dry_run_changes_nothing_and_apply_writes_the_preview(ws, llm_server):
    script = [turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"}),
                   ("add_fact", {"path": "memory/MEMORY.md", "text": "Blog on Eleventy", "section": "Projects",
                                 "sources": [1]})),
              turn(content="done")]
    srv = llm_server(list(script))
    before = tree_state(ws.root)
    res = run_dream(ws, client(srv), only_consolidation(dry_run=True))
    assert tree_state(ws.root) == before
    assert res.preview is not None and {d.path for d in res.diffs} == {"USER.md", "memory/MEMORY.md"}
    assert "-- Lives in Porto" in "".join(d.unified() for d in res.diffs)
    expected = {rel: f["new"] for rel, f in res.preview["files"].items()}
    apply_preview(ws, res.preview)
    for rel, text in expected.items():
        assert (ws.root / rel).read_text() == text
    assert (ws.root / "memory/.dream_cursor").read_text() == "3"
    assert any(a.text == "- Lives in Porto" for a in read_archive(ws).records)
    # applied as a recorded run: a record, archive lines that name it, the run counter
    runs, problems = records.list_runs(ws)
    assert len(runs) == 1 and not problems
    rec = runs[0]
    assert rec.outcome.startswith("Applied a previewed dry run") and rec.batch.cursors == [1, 2, 3]
    assert {a.run for a in read_archive(ws).records} == {rec.id}
    assert [f["archive_id"] for f in rec.removed] == [a.id for a in read_archive(ws).records]
    assert load_state(ws)["runs"] == 1
    assert "dry-" not in res.outcome


def test_apply_refuses_a_preview_older_than_the_last_run(make_workspace, llm_server):
    """A held preview applied after a real run would put back a stale hold count."""
    from dreamdesk.engine.core.problems import WorkspaceError
    ws = near_budget_workspace(make_workspace)
    srv = llm_server(default=turn(content="nothing to add"))
    preview = run_dream(ws, client(srv), only_consolidation(dry_run=True)).preview
    run_dream(ws, client(srv), only_consolidation())                      # a real run since
    state = load_state(ws)
    with pytest.raises(WorkspaceError, match="happened since the preview"):
        apply_preview(ws, preview)
    assert load_state(ws) == state


def test_applied_dry_run_archives_as_the_run_said_and_commits_a_spec_message(ws, llm_server):
    script = [turn(("remove_fact", {"path": "USER.md", "text": "- Short replies"})), turn(content="trimmed"),
              turn(("remove_fact", {"path": "USER.md", "text": "- Works at Acme as a data engineer",
                                    "replacement": "Works at Wattson as a data engineer", "sources": [2]})),
              turn(content="updated")]
    srv = llm_server(list(script), default=turn(content="nothing"))
    res = run_dream(ws, client(srv), DreamOptions(dry_run=True, force_review=True,
                                                  passes={"deduction": False, "induction": False}))
    apply_preview(ws, res.preview)
    by_text = {a.text: a for a in read_archive(ws).records}
    assert by_text["- Short replies"].reason == "review"
    acme = by_text["- Works at Acme as a data engineer"]
    assert acme.reason == "dream" and acme.replaced_by == "- Works at Wattson as a data engineer"
    subject = SnapshotStore(ws).list()[0].subject
    assert subject == "dream: manual run"


def test_apply_refuses_a_dry_run_that_failed(ws, llm_server):
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"}))],
                     default={"status": 500})
    res = run_dream(ws, client(srv), only_consolidation(dry_run=True))
    assert res.status == "failed" and res.preview["files"]
    from dreamdesk.engine.core.problems import WorkspaceError
    with pytest.raises(WorkspaceError, match="did not complete"):
        apply_preview(ws, res.preview)
    assert (ws.root / "USER.md").read_text() == USER


def test_apply_refuses_when_files_changed(ws, llm_server):
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})), turn(content="x")])
    res = run_dream(ws, client(srv), only_consolidation(dry_run=True))
    (ws.root / "USER.md").write_text(USER + "- edited by hand\n")
    from dreamdesk.engine.core.problems import ConflictError
    with pytest.raises(ConflictError):
        apply_preview(ws, res.preview)
    assert (ws.root / "USER.md").read_text() == USER + "- edited by hand\n"


def test_nothing_to_process(ws, llm_server):
    (ws.root / "memory/.dream_cursor").write_text("3")
    srv = llm_server()
    res = run_dream(ws, client(srv))
    assert res.status == "nothing" and "idleCompactAfterMinutes" in res.outcome and not srv.requests


# the retention's fixed clock: runs made OLD (40 days before NOW) are past the 30-day window
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
OLD = NOW - timedelta(days=40)


def old_run(ws, srv, when=OLD):
    return run_dream(ws, client(srv), only_consolidation(), now=lambda: when)


def test_retention_prunes_old_records(ws, llm_server):
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences", "sources": [1]}),
                           ("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})), turn(content="ok")])
    res = old_run(ws, srv)
    pruned = records.prune(ws, NOW)
    assert pruned == [res.run_id]
    rec = records.load_run(ws, res.run_id)
    assert rec.pruned_at == NOW.isoformat(timespec="seconds") and rec.removed == [] and rec.user_md is None
    assert [c["text"] for c in rec.created] == ["- Likes tea"] and rec.removed_count == 1
    assert records.prune(ws, NOW + timedelta(days=1)) == []                     # once is enough


def test_retention_deletes_a_run_with_nothing_left(ws, llm_server):
    """Honcho's rule (seed-honcho-dreaming.txt, "Retention and deletion"): past the 30 days a run
    keeps only the facts it created that still exist, and a run with nothing left is deleted. A
    run that only removed things created nothing: nothing of it is left. What it removed stays
    in the archive, restorable."""
    from dreamdesk.engine.recovery.prunes import restore_prune
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})), turn(content="ok")])
    res = old_run(ws, srv)
    path = ws.dreams_dir / f"{res.run_id}.json"
    assert path.exists()
    assert records.prune(ws, NOW) == [res.run_id]
    assert not path.exists() and records.list_runs(ws)[0] == []
    (gone,) = read_archive(ws).records
    assert gone.text == "- Lives in Porto" and gone.run == res.run_id          # the archive keeps it
    assert restore_prune(ws, gone.id).files == ["USER.md"]
    assert "- Lives in Porto" in (ws.root / "USER.md").read_text()


def test_retention_deletes_a_run_whose_facts_were_all_removed_since(ws, llm_server):
    """The facts a run created, all gone from their files (edited away, or removed by a later
    run): nothing is left of it. One fact of two gone: the record keeps the other."""
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences", "sources": [1]}),
                           ("add_fact", {"path": "USER.md", "text": "Likes rain", "section": "Preferences", "sources": [1]})),
                      turn(content="ok")])
    res = old_run(ws, srv)
    user = ws.root / "USER.md"
    user.write_text(user.read_text().replace("- Likes tea\n", ""))
    assert records.prune(ws, NOW) == [res.run_id]
    rec = records.load_run(ws, res.run_id)
    assert [c["text"] for c in rec.created] == ["- Likes rain"] and rec.created_count == 2
    first_pruned = rec.pruned_at
    assert records.prune(ws, NOW + timedelta(days=1)) == []                     # nothing changed: no write
    user.write_text(user.read_text().replace("- Likes rain\n", ""))
    assert records.prune(ws, NOW + timedelta(days=2)) == [res.run_id]           # what it kept is gone since
    assert not (ws.dreams_dir / f"{res.run_id}.json").exists()
    assert first_pruned == NOW.isoformat(timespec="seconds")


def test_retention_keeps_a_run_inside_the_window_and_one_whose_file_cannot_be_read(ws, llm_server):
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})), turn(content="ok")])
    edge = old_run(ws, srv, when=NOW - timedelta(days=30))                     # exactly 30 days: kept
    assert records.prune(ws, NOW) == []
    assert records.load_run(ws, edge.run_id).removed                            # whole, not slimmed
    assert records.prune(ws, NOW + timedelta(seconds=1)) == [edge.run_id]       # a second past it: deleted
    (ws.root / "memory/history.jsonl").write_text(hist("a", "b", "c", "- [durable] Likes tea"))
    (ws.root / "memory/.cursor").write_text("4")
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences", "sources": [4]})),
                      turn(content="ok")])
    res = old_run(ws, srv)
    user = ws.root / "USER.md"
    user.rename(ws.root / "USER.bak")
    user.mkdir()                                   # a folder where the file was: not known to be gone
    try:
        assert records.prune(ws, NOW) == [] and records.load_run(ws, res.run_id).created
    finally:
        user.rmdir()
        (ws.root / "USER.bak").rename(user)


def test_retention_runs_at_the_end_of_a_run_under_the_job_lock_never_on_a_read(ws, llm_server, capsys, monkeypatch):
    from dreamdesk.engine.disk.files import lock_is_held
    from dreamdesk.engine.core.state import lock_path
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})), turn(content="ok")])
    res = old_run(ws, srv)
    before = tree_state(ws.root)
    for argv in (["runs", str(ws.root)], ["runs", str(ws.root), "--json"], ["status", str(ws.root)],
                 ["runs", str(ws.root), "show", res.run_id], ["schedule", str(ws.root)]):
        assert main(argv) == 0
    Workspace.open(ws.root).history()
    assert tree_state(ws.root) == before                                        # reads delete nothing
    held = []
    real = records.prune
    monkeypatch.setattr(records, "prune", lambda w, now: held.append(lock_is_held(lock_path(w.root, "job")))
                        or real(w, now))
    (ws.root / "memory/history.jsonl").write_text(hist("a", "b", "c", "- [durable] Likes rain"))
    (ws.root / "memory/.cursor").write_text("4")
    later = run_dream(ws, client(llm_server([turn(content="nothing to do")])), only_consolidation(), now=lambda: NOW)
    assert later.run_id and held == [True]
    assert [r.id for r in records.list_runs(ws)[0]] == [later.run_id]           # the old run is gone


def test_applying_a_dry_run_prunes_too(ws, llm_server):
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})), turn(content="ok")])
    old = old_run(ws, srv)
    (ws.root / "memory/history.jsonl").write_text(hist("a", "b", "c", "- [durable] Likes rain"))
    (ws.root / "memory/.cursor").write_text("4")
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes rain", "section": "Preferences",
                                         "sources": [4]})), turn(content="ok")])
    res = run_dream(ws, client(srv), only_consolidation(dry_run=True), now=lambda: NOW)
    assert (ws.dreams_dir / f"{old.run_id}.json").exists()                       # a dry run writes nothing
    apply_preview(ws, res.preview, now=lambda: NOW)
    assert old.run_id not in [r.id for r in records.list_runs(ws)[0]]


def test_deleting_archive_entry_scrubs_records(ws, llm_server):
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})), turn(content="ok")])
    res = run_dream(ws, client(srv), only_consolidation())
    arc = read_archive(ws).records
    out = records.delete_archive_entry(ws, arc[0].id)
    assert out["records_scrubbed"] == 1
    assert read_archive(ws).get(arc[0].id) is None
    raw = (ws.root / f"memory/dreams/{res.run_id}.json").read_text()
    assert "Lives in Porto" not in raw


def test_a_deleted_archive_id_is_never_given_again_and_its_facts_read_unavailable(ws, llm_server):
    from dreamdesk.engine.recovery.archive import append_records
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})), turn(content="ok")])
    res = run_dream(ws, client(srv), only_consolidation())
    gone = read_archive(ws).records[-1]
    records.delete_archive_entry(ws, gone.id)
    (new,) = append_records(ws, [{"file": "USER.md", "text": "- Gamma, unrelated", "reason": "edit"}])
    assert new.id != gone.id and read_archive(ws).get(gone.id) is None
    assert not read_archive(ws).problems                              # the tombstone is not a bad line
    raw = "".join(p.read_text(encoding="utf-8") for p in (ws.memory_dir / "archive").glob("*.jsonl"))
    assert "Lives in Porto" not in raw and gone.id in raw              # id kept, text gone
    rec = records.resolve(ws, records.load_run(ws, res.run_id))
    assert [f["status"] for f in rec["removed"]] == ["unavailable"]


def test_deleting_with_a_stale_view_of_the_archive_erases_the_right_entry(ws, monkeypatch):
    """Another deletion moved the lines after our read: the entry is found again by its id
    under the lock, so a neighbour is never erased in its place."""
    from dreamdesk.engine.recovery.archive import append_records
    a, b, c = append_records(ws, [{"file": "USER.md", "text": f"- entry {x}", "reason": "edit"} for x in "abc"])
    stale = read_archive(ws)
    records.delete_archive_entry(ws, a.id)                       # lines shift up by one
    monkeypatch.setattr(records, "read_archive", lambda _ws: stale)
    records.delete_archive_entry(ws, b.id)
    assert [r.id for r in read_archive(ws).records] == [c.id]
    with pytest.raises(Exception, match="no longer in"):
        records.delete_archive_entry(ws, b.id)


def test_cli_dream_and_runs(ws, llm_server, capsys, monkeypatch):
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences", "sources": [1]})),
                      turn(content="ok")], default=turn(content="nothing"))
    monkeypatch.setenv("DD_TEST_KEY", "sk-cli-1")
    code = main(["dream", str(ws.root), "--base-url", srv.url, "--model", "m", "--api-key-env", "DD_TEST_KEY", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "completed" and out["cursor"] == {"before": 0, "after": 3}
    assert srv.headers[0]["authorization"] == "Bearer sk-cli-1"
    assert main(["runs", str(ws.root), "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert runs[0]["id"] == out["run_id"] and runs[0]["created_count"] == 1
    assert main(["runs", str(ws.root), "show", out["run_id"]]) == 0
    text = capsys.readouterr().out
    assert "+ [explicit] USER.md: - Likes tea  — current" in text
    assert main(["runs", str(ws.root), "show", "r-19990101-000000"]) == 2


def test_batch_entries_are_truncated_to_500_characters_in_all():
    from dreamdesk.engine.dream.prompts import batch_text
    from dreamdesk.engine.home.history import HistoryEntry
    long, exact = HistoryEntry(1, 7, "2026-11-01 10:00", "x" * 800, None), HistoryEntry(2, 8, "t", "y" * 500, None)
    shown = batch_text([long, exact]).split("\n\n")
    assert len(shown[0].split("\n", 1)[1]) == 500 and shown[0].endswith("…")
    assert shown[1].split("\n", 1)[1] == "y" * 500                       # exactly 500: shown whole


def test_remove_fact_names_a_nested_entry_by_its_first_line(make_workspace, llm_server):
    memory = "# Memory\n\n## Homelab\n- Proxmox on the NUC\n  - VM 101: Home Assistant\n- Blog on Eleventy\n"
    root = make_workspace({"USER.md": USER, "memory/MEMORY.md": memory,
                           "memory/history.jsonl": hist("- [correction] The NUC is gone; everything runs on the M720q")})
    ws = Workspace.open(root)
    srv = llm_server([turn(("remove_fact", {"path": "memory/MEMORY.md", "text": "  - VM 101: Home Assistant"}),
                           ("remove_fact", {"path": "memory/MEMORY.md", "text": "- Proxmox on the NUC"})),
                      turn(content="done")], default=turn(content="nothing"))
    run_dream(ws, client(srv), only_consolidation())
    tools = [m["content"] for m in srv.requests[1]["messages"] if m["role"] == "tool"]
    assert "is a nested line of the entry '- Proxmox on the NUC'" in tools[0]
    assert tools[1].startswith("OK")
    assert (root / "memory/MEMORY.md").read_text() == "# Memory\n\n## Homelab\n- Blog on Eleventy\n"
    archived = [a.text for a in read_archive(ws).records]
    assert archived == ["- Proxmox on the NUC\n  - VM 101: Home Assistant"]       # the whole entry, children too


def test_review_growth_over_the_budget_is_the_shrink_rule_and_never_blocks(ws, llm_server):
    (ws.root / "config.json").write_text(json.dumps({"agents": {"defaults": {"dream": {
        "userBudgetChars": len(USER) + 25}}}}))                      # below near; the edit would go over
    srv = llm_server([turn(("edit_file", {"path": "USER.md", "old_text": "- Short replies",
                                          "new_text": "- Short replies, always, in English please"})),
                      turn(content="nothing to shrink")], default=turn(content="nothing"))
    res = run_dream(ws, client(srv), DreamOptions(force_review=True, passes={"deduction": False, "induction": False}))
    rec = records.load_run(ws, res.run_id)
    assert [r["kind"] for r in rec.refused] == ["shrink-only"] and res.status != "held"
    assert "only makes files smaller" in rec.refused[0]["reason"]


def test_a_refused_fact_moved_where_it_belongs_is_not_blocked(ws, llm_server):
    (ws.root / "config.json").write_text(json.dumps({"agents": {"defaults": {"dream": {
        "userBudgetChars": len(USER) + 25}}}}))
    fact = "Runs the blog build pipeline on Eleventy 3 with GitHub Actions"
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": fact, "section": "Preferences", "sources": [1]})),
                      turn(("add_fact", {"path": "memory/MEMORY.md", "text": fact, "section": "Projects",
                                         "sources": [1]})), turn(content="put it in MEMORY.md instead")],
                     default=turn(content="nothing"))
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "completed" and res.cursor_after == 3, res.outcome


def test_a_fact_recorded_as_one_nested_line_still_resolves_current(make_workspace):
    memory = "# Memory\n\n## Homelab\n- Proxmox on the NUC\n  - VM 101: Home Assistant\n"
    ws = Workspace.open(make_workspace({"memory/MEMORY.md": memory}))
    legacy = decode_record({"id": "r-20261101-100000", "started": "2026-11-01T10:00:00+01:00", "created": [
        {"file": "memory/MEMORY.md", "text": "  - VM 101: Home Assistant", "kind": "explicit", "sources": []}],
        "removed": []})
    assert records.resolve(ws, legacy, [legacy])["created"][0]["status"] == "current"


def test_induction_raises_a_pattern_s_confidence_by_replacing_it(make_workspace, llm_server):
    user = USER + "\n## Patterns\n- Tends to reschedule Friday plans\n"
    root = make_workspace({"USER.md": user, "memory/MEMORY.md": MEMORY,
                           "memory/history.jsonl": hist("- moved Friday dinner", "- moved Friday run",
                                                        "- moved Friday call")})
    ws = Workspace.open(root)
    old = "- Tends to reschedule Friday plans"
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": old})),
                      turn(("remove_fact", {"path": "USER.md", "text": old, "replacement": "Reschedules Friday plans",
                                            "sources": [1]})),
                      turn(("remove_fact", {"path": "USER.md", "text": old, "replacement": "Reschedules Friday plans",
                                            "sources": [1, 2, 3]})), turn(content="raised")],
                     default=turn(content="nothing"))
    res = run_dream(ws, client(srv), DreamOptions(passes={"consolidation": False, "deduction": False}))
    tools = [m["content"] for m in srv.requests[3]["messages"] if m["role"] == "tool"]
    assert "does not delete" in tools[0] and "at least 2 source entries" in tools[1] and tools[2].startswith("OK")
    (fact,) = records.load_run(ws, res.run_id).created
    assert (fact["text"], fact["kind"], fact["confidence"], fact["sources"]) == \
        ("- Reschedules Friday plans", "inductive", "medium", [1, 2, 3])


def test_an_unrelated_write_does_not_resolve_a_refused_fact(ws, llm_server):
    """Blocked stays blocked unless the refused fact itself landed somewhere."""
    (ws.root / "config.json").write_text(json.dumps({"agents": {"defaults": {"dream": {
        "userBudgetChars": len(USER) + 25}}}}))
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Allergic to penicillin, since childhood",
                                         "section": "Identity", "sources": [1]})),
                      turn(("add_fact", {"path": "memory/MEMORY.md", "text": "Blog moved to Eleventy", "section": "Projects",
                                         "sources": [1]})), turn(content="done")], default=turn(content="nothing"))
    res = run_dream(ws, client(srv), only_consolidation())
    assert res.status == "held" and res.cursor_after == 0 and "USER.md" in res.outcome


def test_replacing_an_item_by_its_first_line_keeps_its_nested_items(make_workspace, llm_server):
    memory = ("# Memory\n\n## Homelab\n- Proxmox on the NUC\n  - VM 101: Home Assistant\n  - VM 102: Pi-hole\n\n"
              "## Notes\nFirst line of a paragraph\nsecond line of it\n")
    root = make_workspace({"USER.md": USER, "memory/MEMORY.md": memory,
                           "memory/history.jsonl": hist("- [correction] Proxmox moved from the NUC to the M720q")})
    ws = Workspace.open(root)
    srv = llm_server([turn(("remove_fact", {"path": "memory/MEMORY.md", "text": "- Proxmox on the NUC",
                                            "replacement": "Proxmox on the M720q", "sources": [1]}),
                           ("remove_fact", {"path": "memory/MEMORY.md", "text": "First line of a paragraph"})),
                      turn(content="done")], default=turn(content="nothing"))
    res = run_dream(ws, client(srv), DreamOptions(passes={"deduction": False, "induction": False}))
    text = (root / "memory/MEMORY.md").read_text()
    assert "- Proxmox on the M720q\n  - VM 101: Home Assistant\n  - VM 102: Pi-hole\n" in text
    assert "First line of a paragraph\nsecond line of it" in text          # a paragraph is not named by a line
    tools = [m["content"] for m in srv.requests[1]["messages"] if m["role"] == "tool"]
    assert tools[0].startswith("OK") and tools[1].startswith("Error")
    (fact,) = records.load_run(ws, res.run_id).created
    assert fact["text"] == "- Proxmox on the M720q\n  - VM 101: Home Assistant\n  - VM 102: Pi-hole"
    assert records.resolve(ws, records.load_run(ws, res.run_id))["created"][0]["status"] == "current"


def test_no_key_we_were_given_leaves_dreamdesk_whatever_echoes_it(ws, llm_server, capsys, monkeypatch):
    """Issue 12.9: URL credentials, a URL query key, the key sent in the header and a key that
    only sits in config.json, all echoed back by a 401: none reaches stdout, stderr, the run
    record, Dream's state file or the snapshots."""
    import subprocess
    from dreamdesk.engine.core import redact
    redact.forget_all()
    keys = {"user": "dd-user-8c1f", "pass": "dd-pass-5e7a", "query": "dd-query-41bd", "header": "sk-header-93aa",
            "config": "sk-config-17fe"}
    (ws.root / "config.json").write_text(json.dumps({"providers": {"openrouter": {"apiKey": keys["config"]}}}))
    srv = llm_server(default={"status": 401, "error": "bad credentials: " + " ".join(keys.values())})
    monkeypatch.setenv("DD_TEST_KEY", keys["header"])
    host = srv.url.split("://", 1)[1]
    url = f"http://{keys['user']}:{keys['pass']}@{host}?key={keys['query']}"
    code = main(["dream", str(ws.root), "--base-url", url, "--model", "m", "--api-key-env", "DD_TEST_KEY", "--json"])
    out, err = capsys.readouterr()
    assert code == 1 and json.loads(out)["status"] == "failed"          # a failed run, said as one
    assert "bad credentials" in out + err                               # the reason is still said
    written = [p.read_text() for p in (ws.root / "memory").rglob("*") if p.is_file()]
    log = subprocess.run(["git", "-C", str(ws.root), "log", "-p", "--all"], capture_output=True, text=True).stdout
    for name, key in keys.items():
        for where, text in (("stdout", out), ("stderr", err), ("git", log), *(("memory/", t) for t in written)):
            assert key not in text, f"the {name} key reached {where}"


def test_a_killed_run_reads_as_interrupted_and_its_cursor_never_moved(ws, llm_server, capsys):
    """kill -9 of a `dreamdesk dream` while its model call is in flight: the record it left says
    "running"; with no process holding the workspace, it reads as interrupted everywhere."""
    import signal
    import subprocess
    import sys
    from conftest import REPO
    srv = llm_server(default={"delay": 30, **turn(content="late")})
    env = dict(os.environ, DD_TEST_KEY="sk-kill-1")
    proc = subprocess.Popen([sys.executable, "-m", "dreamdesk.engine.cli", "dream", str(ws.root), "--base-url", srv.url,
                             "--model", "m", "--api-key-env", "DD_TEST_KEY"], cwd=REPO, env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert srv.wait_for_requests(), "the run never called the model"
    [path] = list((ws.root / "memory" / "dreams").glob("r-*.json"))
    assert json.loads(path.read_text())["status"] == "running"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert main(["runs", str(ws.root), "--json"]) == 0
    [run] = json.loads(capsys.readouterr().out)["runs"]
    assert run["status"] == "interrupted" and "Interrupted" in run["outcome"]
    assert records.load_run(ws, run["id"]).status == "interrupted"
    assert (ws.root / "memory/.dream_cursor").read_text().strip() == "0"


def test_the_cursor_moves_only_after_the_record_is_final(ws, llm_server, monkeypatch):
    import dreamdesk.engine.dream.run as run_mod
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences",
                                         "sources": [1]})), turn(content="ok")], default=turn(content="nothing"))
    seen = []
    real = run_mod.write_cursor

    def check(path, value):
        [rec] = [json.loads(p.read_text()) for p in (ws.root / "memory" / "dreams").glob("r-*.json")]
        seen.append((rec["status"], rec["cursor"]["after"], value))
        real(path, value)
    monkeypatch.setattr(run_mod, "write_cursor", check)
    result = run_dream(ws, OpenAIClient(srv.url, "m", "k"), DreamOptions())
    assert result.status == "completed" and seen == [("completed", 3, 3)]


def test_a_write_dream_cannot_make_is_said_in_words_in_its_outcome(ws, llm_server, monkeypatch):
    import errno
    import dreamdesk.engine.disk.files as files_mod
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "section": "Preferences",
                                         "sources": [1]})), turn(content="ok")], default=turn(content="nothing"))
    real = files_mod.atomic_write_bytes

    def refuse(path, data, *a, **kw):
        if path.name == "USER.md":
            raise PermissionError(errno.EACCES, "Permission denied", str(path.with_name(".USER.md.dreamdesk-ab.tmp")))
        return real(path, data, *a, **kw)
    monkeypatch.setattr(files_mod, "atomic_write_bytes", refuse)
    result = run_dream(ws, OpenAIClient(srv.url, "m", "k"), DreamOptions())
    text = json.dumps(result.record)
    assert "Errno" not in text and "PermissionError" not in text
    assert "Could not write USER.md" in text
