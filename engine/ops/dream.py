"""A Dream run now (the Engine panel's Dream, Review and Dry run, the scheduler's trigger,
`dreamdesk dream`): the front end chooses the model (the window from this machine's setting, the
CLI from its options); the run's outcome is what the person is told."""

from __future__ import annotations

import threading
from typing import Callable

from ..dream import run as dream_run
from ..dream.run import DreamOptions, DreamResult
from ..home.workspace import Workspace
from ..llm.base import LLMClient
from ..llm.resolve import ModelChoice
from .result import OpResult, perform


def dream(ws: Workspace, client: LLMClient, choice: ModelChoice, initiator: str, *,
          options: DreamOptions | None = None, cancel: threading.Event | None = None,
          progress: Callable[[dict], None] | None = None) -> OpResult[DreamResult]:
    """One run with `options` (a review first with force_review; a dry run writes nothing but its
    preview). A run that fails or is cancelled returns its result too: its outcome says why."""
    options = options or DreamOptions()

    def work() -> DreamResult:
        return dream_run.run_dream(ws, client, options, cancel=cancel, progress=progress,
                                   model_label=choice.describe(), choice=choice)

    return perform(ws, "dry run" if options.dry_run else "dream", initiator, work, lambda r: r.outcome)
