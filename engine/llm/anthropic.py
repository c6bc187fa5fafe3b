"""Anthropic /v1/messages natively, converting from the chat-completions message shape."""

from __future__ import annotations

import json
import threading

from .base import Completion, LLMError, ToolCall, Usage
from .http import HttpPoster, endpoint

API_VERSION = "2023-06-01"


class AnthropicClient:
    def __init__(self, base_url: str, model: str, api_key: str = "", *, timeout: float = 120.0,
                 max_retries: int = 3, backoff: float = 0.5, max_tokens: int = 4096,
                 temperature: float | None = 0.1):
        path = base_url.split("?", 1)[0].rstrip("/")
        self.url = endpoint(base_url, "/messages" if path.endswith("/v1") else "/v1/messages")
        self.model = model.split("/", 1)[1] if model.startswith("anthropic/") else model
        self._key = api_key
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.http = HttpPoster(timeout, max_retries, backoff)

    def __repr__(self) -> str:
        return f"AnthropicClient({self.url!r}, {self.model!r})"

    def close(self) -> None:
        """End the run's connection (a later call opens a new one)."""
        self.http.close()

    def begin_pass(self, name: str) -> None:
        pass                    # a live model has no recorded turns to skip to

    def complete(self, messages: list[dict], tools: list[dict], cancel: threading.Event | None = None) -> Completion:
        system, converted = to_anthropic(messages)
        body: dict = {"model": self.model, "max_tokens": self.max_tokens, "messages": converted}
        if system:
            body["system"] = system
        if tools:
            body["tools"] = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
                              "input_schema": t["function"].get("parameters", {"type": "object"})} for t in tools]
        if self.temperature is not None:
            body["temperature"] = self.temperature
        headers = {"Content-Type": "application/json", "anthropic-version": API_VERSION}
        if self._key:
            headers["x-api-key"] = self._key
        data = self.http.post_json(self.url, headers, body, cancel)
        return parse_message(data)


def to_anthropic(messages: list[dict]) -> tuple[str, list[dict]]:
    system_parts: list[str] = []
    out: list[dict] = []

    def push(role: str, block: dict) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"].append(block)
        else:
            out.append({"role": role, "content": [block]})

    for m in messages:
        role = m.get("role")
        if role == "system":
            system_parts.append(m.get("content") or "")
        elif role == "user":
            push("user", {"type": "text", "text": m.get("content") or ""})
        elif role == "assistant":
            if m.get("content"):
                push("assistant", {"type": "text", "text": m["content"]})
            for tc in m.get("tool_calls") or []:
                try:
                    args = json.loads(tc["function"]["arguments"] or "{}")
                except (ValueError, RecursionError):
                    args = {"_unparsed": tc["function"]["arguments"]}
                push("assistant", {"type": "tool_use", "id": tc["id"], "name": tc["function"]["name"],
                                   "input": args if isinstance(args, dict) else {"value": args}})
        elif role == "tool":
            push("user", {"type": "tool_result", "tool_use_id": m.get("tool_call_id"),
                          "content": m.get("content") or ""})
    return "\n\n".join(system_parts), out


def parse_message(data: dict) -> Completion:
    """The answer as a Completion; anything malformed is an LLMError, never a crash."""
    try:
        return _parse(data)
    except LLMError:
        raise
    except (TypeError, AttributeError, ValueError, KeyError) as exc:
        raise LLMError(f"the Anthropic answer is malformed ({type(exc).__name__}: {str(exc)[:120]})") from None


def _parse(data: dict) -> Completion:
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        raise LLMError(f"the Anthropic answer has no content: {str(data)[:200]}")
    texts, calls = [], []
    for block in data["content"]:
        if block.get("type") == "text":
            texts.append(block.get("text", ""))
        elif block.get("type") == "tool_use":
            calls.append(ToolCall(str(block.get("id")), str(block.get("name")), json.dumps(block.get("input", {}))))
    usage = data.get("usage") or {}
    return Completion("".join(texts) or None, calls,
                      Usage(int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)),
                      data.get("stop_reason"))
