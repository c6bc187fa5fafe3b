"""The watch (issue 13 §3) against nanobot-ai 0.3.5's own Dream: the real `dreamdesk serve --watch`
process (real watchdog) runs on a nanobot home while nanobot's gateway Dream (driver op `dream`)
edits USER.md and memory/MEMORY.md with its tools and then commits. Every entry it removes
lands in memory/archive/ once, reason `outside`, with that run's `dream:` commit (noted when
the commit lands); with the watch off nothing is written to memory/archive/.

The scripted model is paced like a real one: the turn after an edit waits (bounded) until the
watch has reported that edit, so the watch sees each intermediate version nanobot writes, as
it does when a real model takes seconds between tool calls."""

from __future__ import annotations

import re

from helpers.llm_server import turn
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.home.workspace import Workspace
from helpers.serve_process import Serve

from .nanobot_checks import assert_nanobot_fine, dreamdesk_json, tree_state
from .nanobot_dream_runs import RUNS

EDITS = ("edit_file", "write_file")
WAIT = 15.0


def paced(serve: Serve):
    """script(run, n) for build_dreamed_home: each turn after an edit first waits until the watch
    has archived one more change."""
    seen = [sum("(archived:" in line for line in serve.lines)]

    def script(run, n):
        turns = run.script(n)
        out = [turns[0]]
        for call, nxt in zip(run.calls, turns[1:]):
            out.append(_after_edit(serve, seen, nxt) if call[0] in EDITS else nxt)
        return out

    return script


def _after_edit(serve: Serve, seen: list[int], nxt: dict):
    def answer(_body):
        seen[0] += 1
        serve.said("(archived:", times=seen[0], timeout=WAIT)      # bounded: the turn goes on regardless
        return nxt
    return answer


def _serve(llm_server, home, *flags) -> Serve:
    """serve with its own loopback model (its Consolidator may compact nanobot's idle chat), up
    and past its first Consolidator pass before nanobot starts."""
    own = llm_server(default=turn(content="- The user talked about the tide-table talk."))
    serve = Serve(home.path, "--base-url", own.url, "--model", "dreamdesk-model", *flags)
    serve.wait_for("schedule:", timeout=60)
    return serve


def _outside(home) -> list:
    return [r for r in read_archive(Workspace.open(home.path)).records if r.reason == "outside"]


def test_the_watch_archives_each_entry_nanobots_dream_removes_once_with_its_commit(
        nanobot, make_dreamed_home, llm_server):
    started: list[Serve] = []
    try:
        def start(h):
            started.append(_serve(llm_server, h, "--watch"))

        home = make_dreamed_home(before=start, script=lambda run, n: paced(started[0])(run, n))
        serve = started[0]
        shas = {r["sha"] for r in home.runs if r["sha"]}
        for sha in shas:
            serve.wait_for(f"(commit {sha[:8]})", timeout=WAIT)
    finally:
        if started:
            assert started[0].stop() == 0, started[0].lines
    want = [(path, text, run_["sha"]) for script, run_ in zip(RUNS, home.runs)
            for path, texts in script.removed.items() for text in texts]
    recs = _outside(home)
    got = sorted((r.file, r.text, (r.commit or "")[:8]) for r in recs)
    assert got == sorted((p, t, s[:8]) for p, t, s in want), serve.lines
    assert all(re.fullmatch(r"[0-9a-f]{40}", r.commit) for r in recs), [r.commit for r in recs]
    heads = {r.text: r.heading for r in recs}
    assert heads["- Prefers dark mode"] == "## Preferences" and heads["- Blog runs on Hugo"] == "## Projects"
    # the Archive shows each once, from the archive file and from nanobot's commit
    listed = dreamdesk_json("archive", home)["entries"]
    for path, text, sha in want:
        (e,) = [e for e in listed if (e["file"], e["text"]) == (path, text)]
        assert e["known_from"] == "archive + commit", e
        assert {c["commit"][:8] for c in e["commits"]} == {sha[:8]}
    assert any("The assistant's Dream removed" in line for line in serve.lines), serve.lines
    assert_nanobot_fine(nanobot, home)


def test_with_the_watch_off_nothing_is_written_to_the_archive(make_dreamed_home, llm_server, private_state):
    started: list[Serve] = []
    marks: dict = {}
    try:
        def start(h):
            started.append(_serve(llm_server, h))
            marks["before"] = tree_state(h.path)

        home = make_dreamed_home(runs=RUNS[:1], before=start)
        # no sleep for a watch to act: a watch starts (and says "watch: on") before serve's first
        # "schedule:" line, which came before nanobot ran; none is said (checked below)
    finally:
        if started:
            assert started[0].stop() == 0, started[0].lines
    assert not (home.ws / "memory" / "archive").exists()
    assert not any(" watch" in line for line in started[0].lines), started[0].lines
    after = tree_state(home.path)
    changed = {p for p in set(after) | set(marks["before"]) if after.get(p) != marks["before"].get(p)}
    # what nanobot's Dream writes (its files and git store; its transcript, usage store and the
    # runtime folders its gateway agent makes beside config.json); nothing else
    theirs = re.compile(r"^(workspace(/(USER\.md|memory|memory/(MEMORY\.md|\.dream_cursor|history\.jsonl|\.cursor)|"
                        r"\.git(/.*)?))?|(sessions|cli-apps|media)(/.*)?|llm_usage\.sqlite3.*)$")
    assert {"workspace/USER.md", "workspace/memory/MEMORY.md"} <= changed
    assert sorted(p for p in changed if not theirs.match(p)) == []
    assert not list(private_state.rglob("seen.json")), "the watch remembered files though it was off"
