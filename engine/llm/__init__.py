"""LLM access for Dream and the Consolidator: one small protocol, three providers
(OpenAI-compatible chat completions, Anthropic messages, replay of a recorded transcript).

Messages use the chat-completions shape throughout ({"role", "content", "tool_calls",
"tool_call_id"}); the Anthropic client converts at its edge.
"""

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


def choose_model(cfg, *, base_url: str | None = None, model: str | None = None,
                 api_key_env: str | None = None, provider: str | None = None,
                 replay: str | None = None, workspace=None) -> tuple["ModelChoice", str]:
    """(the choice, the API key): resolve_model with the command line's overrides."""
    return resolve_model(cfg, Overrides(provider=provider, model=model, base_url=base_url,
                                        api_key_env=api_key_env, replay=replay), workspace)


def make_client(choice: ModelChoice, api_key: str, **kw) -> LLMClient:
    from .. import redact
    redact.register(api_key)
    redact.register_url(choice.base_url)
    if choice.kind == "replay":
        from .replay import ReplayClient
        return ReplayClient(choice.base_url or "")
    if choice.kind == "anthropic":
        from .anthropic import AnthropicClient
        return AnthropicClient(choice.base_url or SDK_DEFAULT_BASES["anthropic"], choice.sent_model, api_key, **kw)
    from .openai import OpenAIClient
    return OpenAIClient(choice.base_url or "", choice.sent_model, api_key, **kw)


from .providers import SDK_DEFAULT_BASES  # noqa: E402  (after LLMError, which they import)
from .resolve import ModelChoice, Overrides, resolve_model  # noqa: E402
