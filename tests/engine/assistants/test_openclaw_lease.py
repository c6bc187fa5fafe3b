"""When memory-core's workspace lock stops keeping Dreamdesk out: as OpenClaw decides it may take
the lock over (isShortTermLockStealable). Held for 60 s whatever became of its owner; then left
behind when the owner is gone or no pid reads, or started at another time than recorded; a live
owner with no recorded start time holds it however old (a sweep longer than a minute)."""

from __future__ import annotations

import os

from dreamdesk.engine.assistants.openclaw_lease import left_behind, start_time
from helpers.openclaw_state_db import gone_pid

NOW = 10_000_000


def test_the_first_60_seconds_the_lock_is_held_whoever_owns_it():
    assert not left_behind(f"{gone_pid()}:x", NOW - 60_000, None, NOW)
    assert not left_behind("no-pid", NOW - 1, None, NOW)


def test_after_60_seconds_a_gone_or_unreadable_owner_leaves_it_behind():
    assert left_behind(f"{gone_pid()}:x", NOW - 60_001, None, NOW)
    assert left_behind("no-pid:x", NOW - 60_001, None, NOW)
    assert left_behind("0:x", NOW - 60_001, None, NOW)


def test_a_live_owner_holds_it_however_old_unless_it_restarted_since():
    me = os.getpid()
    assert not left_behind(f"{me}:x", NOW - 3_600_000, None, NOW)          # a long sweep: still held
    mine = start_time(me)
    if mine is not None:                                                   # (Linux: /proc)
        assert not left_behind(f"{me}:x", NOW - 3_600_000, mine, NOW)
        assert left_behind(f"{me}:x", NOW - 3_600_000, mine + 1, NOW)    # the pid is another process now
