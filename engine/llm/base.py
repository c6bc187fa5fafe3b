"""The LLM protocol's types: errors, a completion and its tool calls and usage, the client
protocol. A leaf of engine/llm (the providers import it; engine/llm/__init__ re-exports it)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol


class LLMError(Exception):
    """The model call failed (after retries). The message never holds an API key."""


class Cancelled(LLMError):
    """The caller cancelled; returned within about a second of the request."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str            # raw JSON text as the model sent it (may be malformed)


@dataclass(slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Usage") -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens

    def to_json(self) -> dict:
        return {"prompt": self.prompt_tokens, "completion": self.completion_tokens, "total": self.total}


@dataclass(slots=True)
class Completion:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None

    def as_message(self) -> dict:
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [{"id": t.id, "type": "function",
                                  "function": {"name": t.name, "arguments": t.arguments}} for t in self.tool_calls]
        return msg


class LLMClient(Protocol):
    model: str

    def complete(self, messages: list[dict], tools: list[dict], cancel: threading.Event | None = None) -> Completion:
        ...

    def close(self) -> None:
        """Release what the calls held open (a connection, its thread); called when a run ends."""

    def begin_pass(self, name: str) -> None:
        """A Dream pass named `name` starts: a recorded transcript skips to that pass's turns;
        a live model needs nothing (its clients do nothing here)."""
