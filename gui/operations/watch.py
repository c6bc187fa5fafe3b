"""The watch's writes a person causes, through engine/ops/watch.py: turning it off (what it saw is
forgotten) and "Got it" on what changed since the last look. (Turning it on is its first look,
which the upkeep loop runs.) Their jobs are named as the watch's, which closing the window does not
wait for."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.ops import watch as op
from dreamdesk.engine.recovery.watch import SinceLooked

from ..context.job_names import WATCH_JOB
from ..context.worker import Job
from .run import Initiator, run_op


def watch_off(by: Initiator, ws: Workspace, **on: Any) -> Job:
    return run_op(by, f"{WATCH_JOB}off", lambda ctx, who: op.watch_off(ws, who), failure="Watch",
                  bookkeeping=True, **on)


def got_it(by: Initiator, ws: Workspace, shown: SinceLooked, **on: Any) -> Job:
    return run_op(by, f"{WATCH_JOB}got it", lambda ctx, who: op.looked(ws, shown, who), failure="Not noted",
                  bookkeeping=True, **on)
