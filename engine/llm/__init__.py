"""LLM access for Dream and the Consolidator: one small protocol, three providers
(OpenAI-compatible chat completions, Anthropic messages, replay of a recorded transcript).

Messages use the chat-completions shape throughout ({"role", "content", "tool_calls",
"tool_call_id"}); the Anthropic client converts at its edge.
"""

from __future__ import annotations

from .base import Cancelled, Completion, LLMClient, LLMError, ToolCall, Usage  # noqa: F401  (the package's names)
from .providers import SDK_DEFAULT_BASES
from .resolve import ModelChoice, Overrides, resolve_model


def choose_model(cfg, *, base_url: str | None = None, model: str | None = None,
                 api_key_env: str | None = None, provider: str | None = None,
                 replay: str | None = None, workspace=None) -> tuple["ModelChoice", str]:
    """(the choice, the API key): resolve_model with the command line's overrides."""
    return resolve_model(cfg, Overrides(provider=provider, model=model, base_url=base_url,
                                        api_key_env=api_key_env, replay=replay), workspace)


def make_client(choice: ModelChoice, api_key: str, **kw) -> LLMClient:
    from ..core import redact
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

