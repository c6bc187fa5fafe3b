"""The Dream cursor rule (spec §5.6) row by row, through the pure decide(): what moves the
cursor, what holds it, the hold count across runs, the stuck alarm and the refusal streaks.
Boundaries: 90% of a budget is near (89.9% is not), the 3rd held run raises the alarm, the 4th
held run is the last, a size equal to the start is no growth."""

from __future__ import annotations

import pytest

from dreamdesk.engine.dream.policy import HOLD_LIMIT, REFUSAL_WARN_RUNS, STUCK_AT, Held, Sizes, decide

MEM, USER = "memory/MEMORY.md", "USER.md"
BUDGETS = {"SOUL.md": 1000, USER: 1000, MEM: 1000}
BATCH = [11, 12, 13]
KEEP = ["- [durable] Maya moved the blog to Eleventy", "- chat about cakes"]
PLAIN = ["- chat about cakes"]


def run(*, mem=500, mem_after=None, base=None, contents=KEEP, blocked=(), refused=(), held=Held(),
        streaks=None, wrote=True, ended=None):
    sizes = Sizes({MEM: mem, USER: 100}, {MEM: mem if mem_after is None else mem_after, USER: 100},
                  None if base is None else {MEM: base, USER: 100})
    return decide(BATCH, contents, 10, sizes, BUDGETS, list(blocked), refused, held, streaks or {},
                  wrote=wrote, ended=ended)


# (what the run saw) -> (status, cursor after, held count after, stuck alarm)
ROWS = [
    ("clean run that wrote", dict(), ("completed", 13, 0, False)),
    ("clean run with nothing to write", dict(wrote=False), ("wrote-nothing", 13, 0, False)),
    ("failed pass", dict(ended="error"), ("failed", 10, 0, False)),
    ("pass hit its limit", dict(ended="limit"), ("failed", 10, 0, False)),
    ("repeated failure", dict(ended="repeated-failure"), ("failed", 10, 0, False)),
    ("cancelled", dict(ended="cancelled"), ("cancelled", 10, 0, False)),
    ("stopped at the token ceiling", dict(ended="ceiling"), ("stopped", 10, 0, False)),
    ("the ceiling keeps the hold count", dict(ended="ceiling", held=Held(11, 2)), ("stopped", 10, 2, False)),
    ("failure keeps the hold count", dict(ended="error", held=Held(11, 2)), ("failed", 10, 2, False)),
    ("blocked: a size refusal outstanding", dict(blocked=[MEM]), ("held", 10, 1, False)),
    ("blocked even when the file grew", dict(blocked=[MEM], mem_after=600), ("held", 10, 1, False)),
    ("near (exactly 90%), retention tag, no growth", dict(mem=900), ("held", 10, 1, False)),
    ("just under near (899 of 1000)", dict(mem=899), ("completed", 13, 0, False)),
    ("over the budget counts as near", dict(mem=1200, wrote=False), ("held", 10, 1, False)),
    ("near but no retention tag", dict(mem=900, contents=PLAIN), ("completed", 13, 0, False)),
    ("near, tagged, but a file grew by one", dict(mem=900, mem_after=901), ("completed", 13, 0, False)),
    ("near, tagged, same size is no growth", dict(mem=900, mem_after=900), ("held", 10, 1, False)),
    ("growth after the review pass counts", dict(mem=950, base=800, mem_after=850), ("completed", 13, 0, False)),
    ("shrunk by review, not grown after", dict(mem=950, base=800, mem_after=800), ("held", 10, 1, False)),
    ("second held run", dict(blocked=[MEM], held=Held(11, 1)), ("held", 10, 2, False)),
    ("third held run raises the alarm", dict(blocked=[MEM], held=Held(11, STUCK_AT - 1)), ("held", 10, 3, True)),
    ("fourth held run: still held, alarm on", dict(blocked=[MEM], held=Held(11, HOLD_LIMIT - 1)),
     ("held", 10, 4, True)),
    ("after four held runs: advance, alarm", dict(blocked=[MEM], held=Held(11, HOLD_LIMIT)),
     ("completed", 13, 0, True)),
    ("give up with nothing written", dict(blocked=[MEM], held=Held(11, HOLD_LIMIT), wrote=False),
     ("wrote-nothing", 13, 0, True)),
    ("a hold on another batch starts over", dict(blocked=[MEM], held=Held(5, 3)), ("held", 10, 1, False)),
    ("a clean run ends a hold", dict(held=Held(11, 3)), ("completed", 13, 0, False)),
]


@pytest.mark.parametrize("seen, expected", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_the_cursor_rule(seen, expected):
    d = run(**seen)
    assert (d.status, d.cursor_after, d.held_count, d.stuck) == expected
    assert d.held == (d.status == "held")


def test_giving_up_says_after_how_many_and_clears_no_alarm():
    d = run(blocked=[MEM], held=Held(11, HOLD_LIMIT))
    assert d.gave_up and d.gave_up_after == HOLD_LIMIT and not d.clears_stuck
    assert not run(blocked=[MEM], held=Held(11, HOLD_LIMIT - 1)).gave_up


@pytest.mark.parametrize("seen, clears", [(dict(), True), (dict(wrote=False), True), (dict(blocked=[MEM]), False),
                                          (dict(ended="error"), False), (dict(ended="cancelled"), False)])
def test_only_a_run_that_advances_cleanly_clears_the_stuck_alarm(seen, clears):
    assert run(**seen).clears_stuck is clears


def test_near_lists_the_files_at_or_over_ninety_percent_in_budget_order():
    d = decide(BATCH, KEEP, 10, Sizes({MEM: 950, USER: 900, "SOUL.md": 899}, {}), BUDGETS, [], [], Held(), {},
               wrote=False)
    assert d.near == [USER, MEM] and d.status == "held"
    assert decide(BATCH, KEEP, 10, Sizes({MEM: 10**6}, {}), {MEM: 0}, [], [], Held(), {}, wrote=False).near == []


def test_refusal_streaks_count_runs_in_a_row_and_warn_at_three():
    streaks: dict[str, int] = {}
    for n in range(1, REFUSAL_WARN_RUNS + 1):
        d = run(refused={MEM}, streaks=streaks)
        streaks = d.streaks
        assert streaks[MEM] == n
        assert d.warn == ([MEM] if n >= REFUSAL_WARN_RUNS else [])
    d = run(refused={USER}, streaks=streaks)              # a run without a refusal of MEM resets it
    assert d.streaks == {MEM: 0, USER: 1} and d.warn == []


def test_streaks_move_on_a_failed_run_too():
    assert run(ended="error", refused={MEM}, streaks={MEM: 2}).warn == [MEM]
