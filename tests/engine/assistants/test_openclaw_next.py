"""OpenClaw's "What's next" (issue 28 item 5): the recall candidates equal what the real `openclaw
memory promote` listed on the dreamed home (oracle/promote_dry.json), score for score, at the
moment it listed them; the thresholds openclaw.json sets; the next sweep from the dreaming job's
schedule, which agrees with what the Gateway planned; the cron forms read."""

from __future__ import annotations

import json
import os
import math
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from conftest import tree_state
from dreamdesk.engine.assistants.openclaw_cron import CronError, next_fire
from dreamdesk.engine.assistants.openclaw_next import thresholds, whats_next
from dreamdesk.engine.assistants.openclaw_recall import recall_of
from dreamdesk.engine.assistants.openclaw_state import CronJob, OpenClawState, read_state
from helpers.openclaw_state_db import copy_home, gone_pid, grow_recalls, oracle

UTC = timezone.utc
DRY = oracle("dreamed", "promote_dry.json")


def dry_listing_time() -> datetime:
    """When `memory promote` listed: its candidate's last recall plus the age it reported."""
    c = DRY["candidates"][0]
    last = datetime.fromisoformat(c["lastRecalledAt"].replace("Z", "+00:00"))
    return last + timedelta(milliseconds=round(c["ageDays"] * 86_400_000))


def dreamed(tmp_path):
    home = copy_home("dreamed", tmp_path)
    return home, read_state(home / "state" / "openclaw.sqlite", home / "workspace"), \
        json.loads((home / "openclaw.json").read_text())


def test_the_candidates_are_what_openclaw_memory_promote_listed_score_for_score(tmp_path):
    home, state, config = dreamed(tmp_path)
    before = tree_state(home)
    got = whats_next(state, config, dry_listing_time(), UTC)
    assert tree_state(home) == before
    assert [c.key for c in got.listed] == [c["key"] for c in DRY["candidates"]]
    for mine, theirs in zip(got.listed, DRY["candidates"]):
        assert (mine.recall_count, mine.signals, mine.unique_queries, mine.path, mine.start_line, mine.end_line) == \
            (theirs["recallCount"], theirs["signalCount"], theirs["uniqueQueries"], theirs["path"],
             theirs["startLine"], theirs["endLine"])
        assert math.isclose(mine.score, theirs["score"], rel_tol=1e-12)
        assert math.isclose(mine.avg_score, theirs["avgScore"], rel_tol=1e-12)
        assert math.isclose(mine.age_days, theirs["ageDays"], rel_tol=1e-6)
        for name, value in theirs["components"].items():
            assert math.isclose(mine.components[name], value, rel_tol=1e-12), name
    assert got.next_batch == got.listed and got.thresholds.configured == ()


def test_ranking_a_big_store_starts_no_garbage_collection_and_its_entries_are_not_tracked(tmp_path):
    """Structure of the Dashboard's read (tests/bench/test_bench_openclaw.py measures it): the
    recall store's thousands of rows hold no cycle, so the collector is held off while they are
    decoded and ranked (it walked them again and again: a third of the read) and the entries are
    structs it never tracks."""
    import gc

    from dreamdesk.engine.assistants import assistant_of, open_home
    from helpers.openclaw_homes import copy_home as copy_opened
    home = copy_opened("dreamed", tmp_path)
    grow_recalls(home / "state" / "openclaw.sqlite", 3000)
    ws = open_home(home)
    assistant = assistant_of(ws)
    assistant.whats_next(ws)                      # (the modules it imports on first use: their collections)
    started = []

    def seen(phase, info):
        if phase == "start":
            started.append(info["generation"])
    gc.collect()
    gc.callbacks.append(seen)
    try:
        got = assistant.whats_next(ws)
    finally:
        gc.callbacks.remove(seen)
    assert len(started) <= 1 and gc.isenabled()   # the one when it is let go (13 when it is not held off)
    assert all(c["path"].startswith("memory/2026-12-") for c in got["candidates"])   # (the grown rows are promoted)
    state = read_state(home / "state" / "openclaw.sqlite", home / "workspace")
    assert len(state.recalls) == 3010 and not any(gc.is_tracked(r) for r in state.recalls)


def test_the_entries_still_short_say_which_threshold_and_promoted_ones_are_gone(tmp_path):
    _, state, config = dreamed(tmp_path)
    got = whats_next(state, config, dry_listing_time(), UTC)
    short = {c.key: c.short for c in got.candidates if not c.eligible}
    assert short["memory:memory/2026-12-05.md:1:4"] == ("signals 2 < 3", "unique queries 2 < 3", "score 0.740 < 0.750")
    assert len(got.candidates) == 7 and not any(c.key.endswith("2026-12-06.md:1:4") for c in got.candidates)


def test_thresholds_set_in_openclaw_json_are_used_and_invalid_ones_are_not(tmp_path):
    _, state, _ = dreamed(tmp_path)
    config = {"plugins": {"entries": {"memory-core": {"config": {"dreaming": {"phases": {"deep": {
        "minScore": 0.7, "minRecallCount": "2", "minUniqueQueries": 2, "maxAgeDays": 0, "limit": -1}}}}}}}}
    t = thresholds(config)
    assert (t.min_score, t.min_recall_count, t.min_unique_queries, t.max_age_days, t.limit) == (0.7, 2, 2, 30, 10)
    assert t.configured == ("min_score", "min_recall_count", "min_unique_queries")
    got = whats_next(state, config, dry_listing_time(), UTC)
    assert [c.key for c in got.listed] == ["memory:memory/2026-12-05-retro.md:1:4", "memory:memory/2026-12-05.md:1:4"]


def test_untrusted_origins_dreaming_reports_and_a_missing_user_query_list_follow_openclaw(tmp_path):
    base = {"source": "memory", "startLine": 1, "endLine": 2, "snippet": "A fact.", "recallCount": 3, "totalScore": 3.0,
            "lastRecalledAt": "2026-12-06T00:00:00.000Z", "queryHashes": ["a", "b", "c"], "recallDays": ["2026-12-06"],
            "conceptTags": ["a", "b", "c", "d", "e", "f"]}
    rows = (dict(base, key="own", path="memory/2026-12-06.md"),
            dict(base, key="untrusted", path="memory/2026-12-06.md", provenance={"originClass": "untrusted"}),
            dict(base, key="report", path="memory/dreaming/light/2026-12-06.md"),
            dict(base, key="long-term", path="MEMORY.md"),
            dict(base, key="daily", path="memory/2026-12-05.md", dailyCount=1))
    s = OpenClawState(Path("x"), True, "k", "/ws", recalls=tuple(map(recall_of, rows)))
    got = whats_next(s, {}, datetime(2026, 12, 6, tzinfo=UTC), UTC)
    assert [(c.key, c.unique_queries, c.eligible) for c in got.candidates] == [("own", 3, True), ("daily", 0, False)]


def job(expr="0 3 * * *", **state) -> CronJob:
    return CronJob("j1", "Memory Dreaming Promotion", True, "memory-core:memory-dreaming-promotion", None,
                   {"kind": "cron", "expr": expr}, {}, state)


def test_the_next_sweep_from_the_real_job_is_what_the_gateway_planned(tmp_path):
    _, state, config = dreamed(tmp_path)
    [dreaming] = [j for j in state.cron_jobs if j.declaration_key == "memory-core:memory-dreaming-promotion"]
    last_run = datetime.fromtimestamp(dreaming.state["lastRunAtMs"] / 1000, UTC)
    got = whats_next(state, config, last_run, UTC).next_sweep
    assert got.enabled and got.expr == "0 3 * * *" and got.job == dreaming.id and "cron job" in got.how
    assert datetime.fromisoformat(got.at).timestamp() * 1000 == dreaming.state["nextRunAtMs"]
    assert got.at == got.planned_at and got.last_status == "ok"


def test_without_a_job_the_config_schedule_and_zone_are_used_and_said(tmp_path):
    config = {"plugins": {"entries": {"memory-core": {"config": {"dreaming": {
        "frequency": "30 4 * * mon-fri", "timezone": "Europe/Lisbon"}}}}}}
    s = OpenClawState(Path("x"), True, None, None)
    got = whats_next(s, config, datetime(2026, 12, 5, 12, tzinfo=UTC), UTC).next_sweep   # a Saturday
    assert got.job is None and "no dreaming cron job yet" in got.how and got.planned_at is None
    assert datetime.fromisoformat(got.at) == datetime(2026, 12, 7, 4, 30, tzinfo=ZoneInfo("Europe/Lisbon"))
    off = {"plugins": {"entries": {"memory-core": {"config": {"dreaming": {"enabled": False}}}}}}
    assert not whats_next(s, off, datetime(2026, 12, 5, tzinfo=UTC)).next_sweep.enabled


def test_a_schedule_not_read_here_is_a_problem_in_words():
    s = OpenClawState(Path("x"), True, None, None, cron_jobs=(job("0 3 L * *"),))
    got = whats_next(s, {}, datetime(2026, 12, 5, tzinfo=UTC), UTC)
    assert got.next_sweep.at is None and "not read here" in got.problems[0]


@pytest.mark.parametrize("expr, after, zone, expected", [
    ("0 3 * * *", datetime(2026, 12, 6, 3, 0, tzinfo=UTC), UTC, datetime(2026, 12, 7, 3, 0, tzinfo=UTC)),
    ("*/15 9-17 * * *", datetime(2026, 12, 6, 17, 50, tzinfo=UTC), UTC, datetime(2026, 12, 7, 9, 0, tzinfo=UTC)),
    ("0 0 13 * FRI", datetime(2026, 12, 6, tzinfo=UTC), UTC, datetime(2026, 12, 11, tzinfo=UTC)),   # day OR weekday
    ("@weekly", datetime(2026, 12, 6, 1, tzinfo=UTC), UTC, datetime(2026, 12, 13, tzinfo=UTC)),
    ("30 15 10 * * *", datetime(2026, 12, 6, 10, 15, 30, tzinfo=UTC), UTC, datetime(2026, 12, 6, 10, 15, 30, tzinfo=UTC) + timedelta(days=1)),
    ("0 0 29 feb *", datetime(2026, 12, 6, tzinfo=UTC), UTC, datetime(2028, 2, 29, tzinfo=UTC)),
    ("0 2 * * *", datetime(2027, 3, 27, 12, tzinfo=UTC), ZoneInfo("Europe/Berlin"),
     datetime(2027, 3, 29, 2, 0, tzinfo=ZoneInfo("Europe/Berlin"))),          # 02:00 does not exist on the 28th
    ("0 3 * * 7", datetime(2026, 12, 6, 4, tzinfo=UTC), UTC, datetime(2026, 12, 13, 3, tzinfo=UTC)),
])
def test_cron_forms(expr, after, zone, expected):
    assert next_fire(expr, after, zone) == expected


@pytest.mark.parametrize("expr", ["0 3 * *", "0 3 L * *", "0 3 1W * *", "0 3 * * 1#2", "61 * * * *", "*/0 * * * *"])
def test_cron_forms_not_read_raise(expr):
    with pytest.raises(CronError):
        next_fire(expr, datetime(2026, 12, 6, tzinfo=UTC), UTC)


@pytest.mark.parametrize("snippet, kept", [
    ("Kubernetes cluster upgrade is blocked on the storage driver.", True),
    ("<!-- openclaw-memory-promotion:abc --> a promoted line", False),
    ("- fact [score=0.91 recalls=4 avg=0.8 source=memory/2026-12-04.md:1-5]", False),
    ("Session Key: main · and later  Session  ID: 42", False),          # whitespace runs as one space
    ("conversation SUMMARY: what was said", False),                      # any case
    ("Sessions are long; the key is patience.", True),                   # a word alone is no marker
])
def test_dreamings_own_text_is_never_a_candidate(snippet, kept):
    """isContaminatedDreamingSnippet's checks: a snippet of dreaming's own output is not recalled
    memory (OpenClaw drops it before ranking)."""
    from dreamdesk.engine.assistants.openclaw_recall import normalized
    entry = recall_of({"key": "k", "path": "memory/2026-12-04.md", "source": "memory", "startLine": 1, "endLine": 5,
                       "snippet": snippet, "recallCount": 3, "lastRecalledAt": "2026-12-06T23:19:59.620Z"})
    assert (normalized([entry]) == [entry]) is kept


def test_the_dashboard_says_when_openclaw_writes_its_memory_now_or_its_sweep_is_due_soon():
    """Issue 29 item 2: around a sweep Dreamdesk's writes are refused; the Dream box says so first."""
    from dataclasses import replace

    from dreamdesk.engine.assistants.openclaw_state import WorkspaceLock
    from dreamdesk.engine.overview.status import next_words
    s = OpenClawState(Path("x"), True, "k", "/ws", cron_jobs=(job("0 3 * * *"),))
    config = {"agents": {"defaults": {"userTimezone": "UTC"}}}
    due = whats_next(s, config, datetime(2026, 12, 7, 2, 50, tzinfo=UTC), UTC)
    assert due.busy is not None and due.busy.startswith("OpenClaw's dreaming sweep is due ")
    assert next_words(due.to_json()).startswith(due.busy + ".\nNext sweep ")
    assert whats_next(s, config, datetime(2026, 12, 7, 2, 40, tzinfo=UTC), UTC).busy is None   # 20 min: not yet
    now = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
    held = replace(s, lock=WorkspaceLock(f"{os.getpid()}:0c3f", int(now.timestamp() * 1000) - 5_000))
    assert whats_next(held, config, now, UTC).busy.startswith("OpenClaw is writing this workspace's memory now")
    left = replace(s, lock=WorkspaceLock(f"{gone_pid()}:0c3f", int(now.timestamp() * 1000) - 61_000))
    assert whats_next(left, config, now, UTC).busy is None                                    # a lease left behind
