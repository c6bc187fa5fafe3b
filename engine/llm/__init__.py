"""LLM access for Dream and the Consolidator: one small protocol, three providers
(OpenAI-compatible chat completions, Anthropic messages, replay of a recorded transcript).

Messages use the chat-completions shape throughout ({"role", "content", "tool_calls",
"tool_call_id"}); the Anthropic client converts at its edge.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..config import redact_url


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


DEFAULT_BASES = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "anthropic": "https://api.anthropic.com",
    "deepseek": "https://api.deepseek.com/v1",
    "groq": "https://api.groq.com/openai/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "vllm": "http://127.0.0.1:8000/v1",
}


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """Where Dream's model comes from (the seed: Dream uses the main agent's model)."""

    kind: str                 # openai | anthropic | replay
    model: str
    base_url: str | None
    provider: str | None
    source: str               # "config.json" | "override" | "replay"
    api_key_env: str | None = None

    def describe(self) -> str:
        """For people and run records: never a key (a user:key@ in the URL is dropped)."""
        if self.kind == "replay":
            return f"replay of the recorded run {os.path.basename(self.base_url or '')}"
        return f"{self.model} via {self.provider or self.kind} ({redact_url(self.base_url)}) from {self.source}"


def choose_model(cfg, *, base_url: str | None = None, model: str | None = None,
                 api_key_env: str | None = None, provider: str | None = None,
                 replay: str | None = None) -> tuple[ModelChoice, str]:
    """(the choice, the API key). Overrides win over config.json; the key is returned apart so
    it travels no further than the client that needs it."""
    if replay:
        return ModelChoice("replay", "replay", replay, None, "replay"), ""
    raw = cfg.raw or {}
    prov = provider or cfg.get("provider") or None
    mdl = model or cfg.get("model") or ""
    providers = raw.get("providers") if isinstance(raw.get("providers"), dict) else {}
    if not prov and mdl and "/" in mdl and mdl.split("/", 1)[0] in providers:
        prov = mdl.split("/", 1)[0]
    if not prov and len(providers) == 1:
        prov = next(iter(providers))
    block = providers.get(prov, {}) if prov else {}
    block = block if isinstance(block, dict) else {}
    key = ""
    if api_key_env:
        key = os.environ.get(api_key_env, "")
        if not key:
            raise LLMError(f"environment variable {api_key_env} is empty or not set")
    else:
        k = block.get("apiKey", block.get("api_key", ""))
        key = k if isinstance(k, str) else ""
    base = base_url or block.get("apiBase") or block.get("api_base") or DEFAULT_BASES.get(prov or "", None)
    if not mdl:
        raise LLMError("no model configured: set agents.defaults.model in config.json, or give one for this "
                       "run (--model on the command line)")
    if not base:
        raise LLMError(f"no API base for provider {prov!r}: set providers.{prov}.apiBase or pass --base-url")
    kind = "anthropic" if (prov == "anthropic" or "api.anthropic.com" in str(base)) else "openai"
    source = "override" if (base_url or model or api_key_env) else "config.json"
    return ModelChoice(kind, mdl, str(base), prov, source, api_key_env), key


def make_client(choice: ModelChoice, api_key: str, **kw) -> LLMClient:
    if choice.kind == "replay":
        from .replay import ReplayClient
        return ReplayClient(choice.base_url or "")
    if choice.kind == "anthropic":
        from .anthropic import AnthropicClient
        return AnthropicClient(choice.base_url or DEFAULT_BASES["anthropic"], choice.model, api_key, **kw)
    from .openai import OpenAIClient
    return OpenAIClient(choice.base_url or "", choice.model, api_key, **kw)
