"""The tokens nanobot's own Dream spent, read from the usage store nanobot's own gateway code
wrote (engine/assistants/nanobot_usage.py, `dreamdesk usage`): per run (matched to its
transcript and commit) and per day, strictly read-only, and said plainly when there is none."""

from __future__ import annotations

import json
import re

import pytest

from dreamdesk.engine.assistants.nanobot_dreams import find_transcripts
from dreamdesk.engine.assistants.nanobot_usage import NONE_MESSAGE, read_dream_usage, usage_by_day, usage_by_run
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

from .nanobot_checks import dreamdesk, dreamdesk_json, tree_state
from .nanobot_dream_runs import RUNS

WANT = [(sum(1000 * n + i for i in range(r.calls_count)), sum(10 * n + i for i in range(r.calls_count)))
        for n, r in enumerate(RUNS, 1)]


def _runs(home):
    ws = Workspace.open(home.path)
    usage = read_dream_usage(ws)
    commits = [(x.sha, x.time) for x in SnapshotStore(ws).list()]
    return usage, usage_by_run(usage.calls, find_transcripts(ws).transcripts, commits)


def _check_runs(home, runs) -> None:
    assert [(r.tokens.input, r.tokens.output) for r in runs] == WANT
    assert [r.tokens.calls for r in runs] == [r.calls_count for r in RUNS]
    assert [r.key for r in runs] == [r["key"] for r in home.runs]
    for r, made in zip(runs, home.runs):
        assert (r.sha or "").startswith(made["sha"] or "-") if made["sha"] else r.sha is None, (r, made)


def test_tokens_per_run_and_per_day_while_nanobot_holds_the_store(nanobot_dreamed_home):
    home = nanobot_dreamed_home
    assert (home.path / "llm_usage.sqlite3-wal").exists(), "nanobot's store should be open (WAL) here"
    before = tree_state(home.path)
    usage, runs = _runs(home)
    assert usage.state == "recorded" and usage.total.calls == 12
    _check_runs(home, runs)
    (day,) = usage_by_day(usage.calls)
    assert day.tokens.total == sum(a + b for a, b in WANT)
    assert tree_state(home.path) == before


@pytest.mark.own_dreamed_home()                  # its own home: closing nanobot's store changes it
def test_a_closed_store_is_read_without_creating_anything(nanobot, own_dreamed_home):
    home = own_dreamed_home
    nanobot("close-usage", home)
    assert not (home.path / "llm_usage.sqlite3-wal").exists()
    before = tree_state(home.path)
    usage, runs = _runs(home)
    _check_runs(home, runs)
    out = dreamdesk_json("usage", home)
    assert [r["tokens"]["total"] for r in out["runs"]] == [a + b for a, b in WANT]
    assert out["runs"][0]["transcript"] == home.runs[0]["key"] and out["runs"][-1]["commit"] is None
    assert tree_state(home.path) == before, "reading nanobot's usage store wrote beside it"


def test_the_cli_shows_runs_and_days(nanobot_dreamed_home):
    rc, out, err = dreamdesk("usage", nanobot_dreamed_home)
    assert rc == 0, err
    assert "nanobot recorded 12 call(s) of its Dream" in out
    assert len(re.findall(r"commit [0-9a-f]{8}", out)) == 3 and out.count("no commit") == 1, out
    assert "Per day:" in out
    assert f"{WANT[0][0] + WANT[0][1]:,} tokens" in out


def test_a_home_without_the_gateway_has_no_usage(nanobot_home):
    before = tree_state(nanobot_home.path)
    rc, out, err = dreamdesk("usage", nanobot_home)
    assert (rc, out.strip()) == (0, NONE_MESSAGE + "."), err
    assert json.loads(dreamdesk("usage", nanobot_home, "--json")[1])["state"] == "none"
    assert tree_state(nanobot_home.path) == before
