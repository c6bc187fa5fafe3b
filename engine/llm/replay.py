"""A provider that plays a recorded transcript: one JSON object a line, each the assistant's
next turn: {"content": "...", "tool_calls": [{"name": "...", "arguments": {...}}],
"usage": {"prompt_tokens": N, "completion_tokens": M}}. Lines starting with // are comments.
A turn may carry "pass": "<name>" to mark where a pass starts. When the transcript runs out, the model answers with no tool calls (the pass ends)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from .base import Cancelled, Completion, LLMError, ToolCall, Usage


class ReplayClient:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.model = f"replay:{self.path.name}"
        self.turns: list[dict] = []
        try:
            lines = self.path.read_text(encoding="utf-8").split("\n")
        except OSError as exc:
            raise LLMError(f"cannot read the replay transcript {self.path}: {exc.strerror}") from None
        for n, line in enumerate(lines, 1):
            if not line.strip() or line.lstrip().startswith("//"):
                continue
            try:
                turn = json.loads(line)
            except ValueError as exc:
                raise LLMError(f"{self.path.name}:{n}: not valid JSON ({exc})") from None
            if not isinstance(turn, dict):
                raise LLMError(f"{self.path.name}:{n}: a turn must be a JSON object")
            self.turns.append(turn)
        self.position = 0

    def begin_pass(self, name: str) -> None:
        """Skip ahead to the first remaining turn labelled {"pass": name}, if the transcript
        labels its turns (so a pass that does not run this time does not shift the others)."""
        for i in range(self.position, len(self.turns)):
            if self.turns[i].get("pass") == name:
                self.position = i
                return

    def close(self) -> None:
        pass                    # nothing held open

    def complete(self, messages: list[dict], tools: list[dict], cancel: threading.Event | None = None) -> Completion:
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        if self.position >= len(self.turns):
            return Completion("(end of transcript)", [], Usage(), "stop")
        turn = self.turns[self.position]
        self.position += 1
        if turn.get("error"):
            raise LLMError(str(turn["error"]))
        calls = []
        for i, tc in enumerate(turn.get("tool_calls") or []):
            args = tc.get("arguments", {})
            calls.append(ToolCall(f"replay_{self.position}_{i}", str(tc.get("name", "")),
                                  args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)))
        usage = turn.get("usage") or {}
        return Completion(turn.get("content"), calls,
                          Usage(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))),
                          "tool_calls" if calls else "stop")


def starts_with_review(path: str | Path) -> bool:
    """Whether a recorded run's first turn is the review pass's (the run then starts with it);
    an unreadable transcript says no, and the run itself reports why it cannot be played."""
    try:
        turns = ReplayClient(path).turns
    except LLMError:
        return False
    return bool(turns) and turns[0].get("pass") == "review"


def forces_review(choice) -> bool:
    """A replayed run recorded with the review pass first replays it first."""
    return choice.kind == "replay" and starts_with_review(choice.base_url or "")
