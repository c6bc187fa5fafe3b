"""OpenAI-compatible /chat/completions with tools (OpenAI, OpenRouter, Ollama, LM Studio,
llama.cpp, vLLM...)."""

from __future__ import annotations

import threading

from .base import Completion, LLMError, ToolCall, Usage
from .http import HttpPoster, endpoint


class OpenAIClient:
    def __init__(self, base_url: str, model: str, api_key: str = "", *, timeout: float = 120.0,
                 max_retries: int = 3, backoff: float = 0.5, temperature: float | None = 0.1,
                 max_tokens: int | None = 4096):
        self.url = endpoint(base_url, "/chat/completions")
        self.model = model
        self._key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.http = HttpPoster(timeout, max_retries, backoff)

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIClient({self.url!r}, {self.model!r})"

    def close(self) -> None:
        """End the run's connection (a later call opens a new one)."""
        self.http.close()

    def begin_pass(self, name: str) -> None:
        pass                    # a live model has no recorded turns to skip to

    def complete(self, messages: list[dict], tools: list[dict], cancel: threading.Event | None = None) -> Completion:
        body: dict = {"model": self.model, "messages": messages}
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        data = self.http.post_json(self.url, headers, body, cancel)
        return parse_chat_completion(data)


def parse_chat_completion(data: dict) -> Completion:
    """The answer as a Completion; anything malformed is an LLMError, never a crash."""
    try:
        return _parse(data)
    except LLMError:
        raise
    except (TypeError, AttributeError, ValueError, KeyError, IndexError) as exc:
        raise LLMError(f"the model server's answer is malformed ({type(exc).__name__}: {str(exc)[:120]})") from None


def _parse(data: dict) -> Completion:
    try:
        choice = data["choices"][0]
        msg = choice.get("message") or {}
    except (KeyError, IndexError, TypeError):
        raise LLMError(f"the model server's answer has no choices: {str(data)[:200]}") from None
    calls = []
    for i, tc in enumerate(msg.get("tool_calls") or []):
        fn = (tc or {}).get("function") or {}
        args = fn.get("arguments", "")
        if not isinstance(args, str):
            import json
            args = json.dumps(args)
        calls.append(ToolCall(str(tc.get("id") or f"call_{i}"), str(fn.get("name") or ""), args))
    usage = data.get("usage") or {}
    content = msg.get("content")
    if isinstance(content, list):  # some servers send content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return Completion(content if isinstance(content, str) else None, calls,
                      Usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)),
                      choice.get("finish_reason"))
