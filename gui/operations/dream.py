"""A Dream run, a review or a dry run (the Engine panel, Dream menu, the schedule's trigger), through
engine/ops/dream.py. The model is this machine's choice (`choose`, run on the lane: the keyring may
wait); a replayed run recorded with its review pass first replays it first."""

from __future__ import annotations

from typing import Any, Callable

from dreamdesk.engine.dream.run import DreamOptions
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.llm import ModelChoice
from dreamdesk.engine.llm.replay import forces_review
from dreamdesk.engine.ops import dream as dream_op

from ..context.worker import Job
from .run import Initiator, run_op

Choose = Callable[[], tuple[ModelChoice, str]]


def run_dream(by: Initiator, ws: Workspace, choose: Choose, what: str, *, trigger: str = "manual",
              dry_run: bool = False, review: bool = False, **on: Any) -> Job:
    """`what`: "Dream", "Review" or "Dry run" (the job's name, and the failure's)."""

    def op(ctx, who):
        choice, client = dream_op.model(choose)
        options = DreamOptions(trigger=trigger, dry_run=dry_run, force_review=review or forces_review(choice))
        return dream_op.dream(ws, client, choice, who, options=options, cancel=ctx.cancel, progress=ctx.progress)

    return run_op(by, what.lower(), op, failure=f"{what} failed", **on)
