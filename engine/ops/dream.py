"""A Dream run now (the Engine panel's Dream, Review and Dry run, the scheduler's trigger,
`dreamdesk dream`): the front end chooses the model (the window from this machine's setting, the
CLI from its options); the run's outcome is what the person is told."""

from __future__ import annotations

import threading
from typing import Callable

from typing import Any

from ..assistants import refuse_jobs
from ..core.problems import WorkspaceError
from ..dream import run as dream_run
from ..dream.run import DreamOptions, DreamResult
from ..home.workspace import Workspace
from ..llm import LLMError, make_client
from ..llm.base import LLMClient
from ..llm.resolve import ModelChoice
from .result import OpResult, perform


def model(choose: Callable[[], tuple[ModelChoice, str]], **client_options: Any) -> tuple[ModelChoice, LLMClient]:
    """The model a front end chose (`choose`: its choice and key) and a client for it; no model to
    be had is the person's to fix, said in words (WorkspaceError), never a crash."""
    try:
        choice, key = choose()
        return choice, make_client(choice, key, **client_options)
    except LLMError as exc:
        raise WorkspaceError(str(exc)) from None


def dream(ws: Workspace, client: LLMClient, choice: ModelChoice, initiator: str, *,
          options: DreamOptions | None = None, cancel: threading.Event | None = None,
          progress: Callable[[dict], None] | None = None) -> OpResult[DreamResult]:
    """One run with `options` (a review first with force_review; a dry run writes nothing but its
    preview). A run that fails or is cancelled returns its result too: its outcome says why.
    Refused, in words, on a home whose assistant dreams itself (OpenClaw)."""
    refuse_jobs(ws)
    options = options or DreamOptions()

    def work() -> DreamResult:
        return dream_run.run_dream(ws, client, options, cancel=cancel, progress=progress,
                                   model_label=choice.describe(), choice=choice)

    return perform(ws, "dry run" if options.dry_run else "dream", initiator, work, lambda r: r.outcome)
