"""The outcome note, real and dry from one renderer: each status says what happened, or for a dry
run what would, with the same facts (the cursor, the batch, the files, the hold count)."""

from __future__ import annotations

import pytest

from dreamdesk.engine.dream.outcome import RunFacts, render_notes, render_outcome, snapshot_note
from dreamdesk.engine.dream.policy import Held, Sizes, decide
from dreamdesk.engine.dream.runtypes import ReviewInfo
from dreamdesk.engine.dream.tools import Refusal

MEM, USER = "memory/MEMORY.md", "USER.md"


def decision(*, blocked=(), near=False, ended=None, wrote=True, held=Held(), refused=(), streaks=None):
    before = {MEM: 950 if near else 10}
    return decide([4, 5, 6], ["- [durable] x"], 3, Sizes(before, before), {MEM: 1000}, list(blocked),
                  refused, held, streaks or {}, wrote=wrote, ended=ended)


def facts(**kw):
    base = dict(duration=2.4, first=4, last=6, cursor_before=3, written=[MEM, USER, MEM], refused=[])
    return RunFacts(**(base | kw))


ROWS = [
    ("completed", dict(), dict(),
     "Dream completed in 2s: 3 write(s) to USER.md, memory/MEMORY.md.",
     "Dry run (nothing written) in 2s: 3 write(s) would go to USER.md, memory/MEMORY.md."),
    ("wrote nothing", dict(wrote=False), dict(written=[], duration=0.25),
     "Dream completed in 0.2s but wrote nothing.", "Dry run (nothing written) in 0.2s and would write nothing."),
    ("held: blocked", dict(blocked=[MEM]), dict(),
     "Dream completed in 2s but held the cursor at 3: a write to memory/MEMORY.md was refused by a size budget "
     "and nothing took its place. Entries 4–6 come back next run (held 1 of 4).",
     "Dry run (nothing written) in 2s and would hold the cursor at 3: a write to memory/MEMORY.md was refused by "
     "a size budget and nothing took its place. Entries 4–6 come back next run (held 1 of 4)."),
    ("held: near budget", dict(near=True, held=Held(4, 1)), dict(),
     "Dream completed in 2s but held the cursor at 3: memory/MEMORY.md was near the budget, the batch carried "
     "facts tagged for retention, and no memory file grew. Entries 4–6 come back next run (held 2 of 4).",
     "Dry run (nothing written) in 2s and would hold the cursor at 3: memory/MEMORY.md was near the budget, the "
     "batch carried facts tagged for retention, and no memory file grew. Entries 4–6 come back next run "
     "(held 2 of 4)."),
    ("cancelled", dict(ended="cancelled"), dict(),
     "Dream was cancelled; the cursor stays at 3 and those entries are retried next run.",
     "Dry run cancelled; a dry run changes nothing: the cursor stays at 3."),
    ("failed", dict(ended="error"), dict(error="the model server said 500"),
     "Dream failed: the model server said 500. The cursor stays at 3 and those entries are retried next run.",
     "Dry run failed: the model server said 500. A dry run changes nothing: the cursor stays at 3."),
]


@pytest.mark.parametrize("seen, run, real, dry", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_each_status_said_done_and_would_be_done(seen, run, real, dry):
    d = decision(**seen)
    assert render_outcome(d, facts(**run)) == real
    assert render_outcome(d, facts(**run), dry=True) == dry


def refusal(file, pass_name="consolidation", kind="budget"):
    return Refusal(file, 3100, 3000, 2900, pass_name, "over budget", kind)


def test_the_review_pass_and_refusals_real_and_dry():
    review = ReviewInfo(chars_freed=1234, archived=["a-1", "a-2"], refused=1, refused_growth=2, refused_pinned=0)
    refused = [refusal(USER), refusal(MEM, "review"), refusal(MEM, kind="pin"), refusal(MEM, kind="shrink-only")]
    run = facts(review=review, refused=refused)
    tail = (" Review pass: freed 1,234 characters, {} 2 facts to memory/archive/{}, 1 of its writes refused by a "
            "size budget (2 more refused because they would have grown a file). Other passes: 1 write(s) refused "
            "by a size budget and {} (USER.md). 1 write(s) refused because they would have removed or changed an "
            "entry the user pinned (memory/MEMORY.md); the pinned entries were kept.")
    head = render_outcome(decision(), facts())
    assert render_outcome(decision(), run) == head + tail.format("moved", " (a-1, a-2)", "never landed")
    dry_head = render_outcome(decision(), facts(), dry=True)
    # a dry run's archive ids are placeholders: not named
    assert render_outcome(decision(), run, dry=True) == dry_head + tail.format("would move", "", "would not land")


def test_one_fact_moved_is_singular():
    run = facts(review=ReviewInfo(chars_freed=5, archived=["a-1"]))
    assert " moved 1 fact to memory/archive/ (a-1), 0 of its writes" in render_outcome(decision(), run)


def test_notes_give_up_stuck_alarm_and_streak_warning():
    gave_up = decision(blocked=[MEM], held=Held(4, 4))
    assert render_notes(gave_up, facts(), []) == (" Gave up on entries 4–6 after 4 held runs and moved on; the stuck "
                                                  "alarm is raised.")
    stuck = decision(blocked=[MEM], held=Held(4, 2))
    assert render_notes(stuck, facts(), ["memory/ is read-only."]) == (
        " memory/ is read-only. Stuck alarm: entries 4–6 have been held 3 runs in a row; the review pass or a "
        "bigger budget would make room.")
    warned = decision(refused={USER}, streaks={USER: 2})
    assert "Writes to USER.md have been refused by a size budget on 3 or more runs in a row" in \
        render_notes(warned, facts(), [])
    assert render_notes(decision(), facts(), []) == ""


def test_snapshot_note():
    assert snapshot_note(None, []) == ""
    assert snapshot_note(None, ["healed the index"]) == " Snapshots: healed the index."
    assert snapshot_note("git is missing", ["x"]).startswith(" No snapshot was taken before the run (git is missing);")
