"""engine/jobs/upkeep.py: the one Qt-free loop `serve` and the window drive — what is due now
(a scheduled Dream, the watch's look, its commit check), on an injected clock, no sleeps."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from dreamdesk.engine.jobs.scheduler import Scheduler
from dreamdesk.engine.jobs.upkeep import CANCEL, COMMITS, OBSERVE, REQUEUE, SCHEDULE, START, Upkeep
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import build_nanobot_repo, git, head

T0 = datetime(2026, 11, 29, 9, 0).astimezone()
USER = "# User\n\n## Preferences\n- Tea.\n- Cycling.\n"


class Clock:
    def __init__(self):
        self.t = T0

    def __call__(self) -> datetime:
        return self.t


def loop(make_workspace, dream: dict | None = None, **kw) -> tuple[Upkeep, Clock]:
    root = make_workspace({"USER.md": USER, "memory/history.jsonl": "",
                           "config.json": json.dumps({"agents": {"defaults": {"dream": dream or {}}}})})
    ws = Workspace.open(root)
    clock = Clock()
    return Upkeep(ws, Scheduler(ws), clock, **kw), clock


def test_a_scheduled_dream_is_due_at_its_deadline_not_a_second_before(make_workspace):
    up, clock = loop(make_workspace, {"intervalH": 2})
    assert up.due() == []                                  # scheduling is opt-in
    up.scheduler.start(T0)
    assert up.schedule_started(up.schedule_on())
    clock.t = T0 + timedelta(hours=2) - timedelta(seconds=1)
    assert up.due() == [SCHEDULE] and up.run(SCHEDULE) is None
    up.done(SCHEDULE)
    clock.t = T0 + timedelta(hours=2)
    assert up.due() == [SCHEDULE]
    assert up.due() == []                                  # never asked twice at once
    trigger = up.run(SCHEDULE)
    up.done(SCHEDULE)
    assert trigger == "interval" and up.verdict(trigger, busy=False) == START
    assert up.due(busy=True) == []                         # a run is under way: not asked


def test_a_start_that_lands_after_scheduling_was_turned_off_stays_off(make_workspace):
    up, _ = loop(make_workspace, {"intervalH": 2})
    token = up.schedule_on()
    up.schedule_off()                                       # the user changed their mind meanwhile
    assert not up.schedule_started(token)
    assert not up.scheduling and up.due() == []
    assert up.verdict("interval", busy=False) == CANCEL    # a trigger given before: never starts
    up.schedule_started(up.schedule_on())
    assert up.verdict("interval", busy=True) == REQUEUE


def test_the_watch_looks_after_an_outside_change_and_for_commits_every_interval(make_workspace):
    up, clock = loop(make_workspace, commit_every=timedelta(seconds=3))
    assert not up.outside_change({"USER.md"})              # the watch is off: nothing to look at
    up.watch_on()
    assert up.due() == [OBSERVE]                           # its first look remembers the files
    assert up.due() == []
    up.done(OBSERVE)
    clock.t = T0 + timedelta(seconds=2.999)
    assert up.due() == []
    clock.t = T0 + timedelta(seconds=3)
    assert up.due() == [COMMITS]
    assert up.outside_change({"SOUL.md"}) is False         # not a watched file
    assert up.outside_change({"USER.md"}) is True
    assert up.due() == []                                  # the commit check is still under way
    up.done(COMMITS)
    assert up.due() == [OBSERVE]
    up.done(OBSERVE)
    up.watch_off()
    clock.t += timedelta(hours=1)
    assert up.due() == [] and not up.active


def test_a_removal_whose_commit_lands_later_is_found_by_the_loops_commit_check(tmp_path):
    repo = build_nanobot_repo(tmp_path / "ws")
    (repo.root / "USER.md").write_text(USER, encoding="utf-8")
    ws = Workspace.open(repo.root)
    clock = Clock()
    up = Upkeep(ws, Scheduler(ws), clock, commit_every=timedelta(seconds=3))
    up.watch_on()
    assert [up.run(k) for k in up.due()] == [[]]           # remembers the files
    up.done(OBSERVE)
    tmp = repo.root / "USER.md.other"
    tmp.write_text(USER.replace("- Tea.\n", ""), encoding="utf-8")
    tmp.replace(repo.root / "USER.md")                     # the assistant writes first...
    assert up.outside_change({"USER.md"})
    (event,) = up.run(*up.due())
    up.done(OBSERVE)
    assert event.commit is None
    git(repo.root, "add", "--", "USER.md")                 # ...and commits after
    git(repo.root, "commit", "--quiet", "--no-verify", "-m", "dream: periodic memory consolidation")
    assert up.due() == []                                  # not yet: the next check is 3 s on
    clock.t += timedelta(seconds=3)
    assert up.due() == [COMMITS]
    (later,) = up.run(COMMITS)
    assert later.later and later.commit == head(repo.root) and later.ids == event.ids


def test_only_a_real_append_to_the_history_is_activity(make_workspace):
    up, clock = loop(make_workspace, {"schedule": "activity"})
    hist = up.ws.history_path
    up.files_touched({"memory/history.jsonl"})
    assert up.scheduler.last_activity is None              # nothing was appended
    hist.write_text(json.dumps({"cursor": 1, "timestamp": "2026-11-29 08:00", "content": "hi"}) + "\n")
    clock.t = T0 + timedelta(minutes=5)
    up.files_touched({"USER.md"})
    assert up.scheduler.last_activity is None              # not the history
    up.files_touched({"memory/history.jsonl"})
    assert up.scheduler.last_activity == T0 + timedelta(minutes=5)
