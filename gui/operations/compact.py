"""Compact the sessions now (the Engine panel's Compact now), through engine/ops/compact.py. Without
a model (none set, or a replay, which holds no summaries) messages are kept as [RAW] entries."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.llm import LLMError, make_client
from dreamdesk.engine.ops import compact as compact_op

from ..context.worker import Job
from .dream import Choose
from .run import Initiator, run_op


def compact(by: Initiator, ws: Workspace, choose: Choose, **on: Any) -> Job:
    def op(ctx, who):
        try:
            choice, key = choose()
            client = None if choice.kind == "replay" else make_client(choice, key)
        except LLMError:
            client = None
        return compact_op.compact(ws, client, who, cancel=ctx.cancel)

    return run_op(by, "compact", op, failure="Compact failed", **on)
