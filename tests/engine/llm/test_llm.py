"""The LLM clients, through a real HTTP server on 127.0.0.1."""

import json
import threading
from contextlib import closing

import pytest

from dreamdesk.engine.home.config import load
from dreamdesk.engine.llm import Cancelled, LLMError, choose_model, make_client
from dreamdesk.engine.llm.anthropic import AnthropicClient
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.llm.replay import ReplayClient
from helpers.llm_server import client_threads, turn

TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "read",
                                           "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]
MSGS = [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]


def test_openai_tool_calls_and_usage(llm_server):
    srv = llm_server([turn(("read_file", {"path": "USER.md"}), usage=(1234, 56))])
    with closing(OpenAIClient(srv.url, "m-1", "sk-test-key-123", backoff=0.01)) as c:
        comp = c.complete(MSGS, TOOLS)
    assert [(t.name, json.loads(t.arguments)) for t in comp.tool_calls] == [("read_file", {"path": "USER.md"})]
    assert comp.usage.prompt_tokens == 1234 and comp.usage.completion_tokens == 56
    body = srv.requests[0]
    assert body["model"] == "m-1" and body["tools"] == TOOLS and body["messages"] == MSGS
    assert srv.headers[0]["authorization"] == "Bearer sk-test-key-123"
    assert "sk-test-key-123" not in repr(c)


def test_retry_on_429_and_5xx_then_success(llm_server):
    srv = llm_server([{"status": 429, "headers": {"Retry-After": "0"}}, {"status": 503}, turn(content="ok")])
    with closing(OpenAIClient(srv.url, "m", backoff=0.01)) as c:
        comp = c.complete(MSGS, [])
    assert comp.content == "ok" and len(srv.requests) == 3


def test_gives_up_after_retries_with_clear_error(llm_server):
    srv = llm_server(default={"status": 500, "error": "boom"})
    with closing(OpenAIClient(srv.url, "m", max_retries=2, backoff=0.01)) as c, \
            pytest.raises(LLMError, match=r"had an error \(HTTP 500: boom\)\. Gave up after 3 attempts\.$"):
        c.complete(MSGS, [])
    assert len(srv.requests) == 3


def test_no_retry_on_401_and_key_not_echoed(llm_server):
    srv = llm_server([{"status": 401, "error": "invalid key sk-secret-999"}])
    with closing(OpenAIClient(srv.url, "m", "sk-secret-999", backoff=0.01)) as c, pytest.raises(LLMError) as info:
        c.complete(MSGS, [])
    assert "HTTP 401" in str(info.value) and "sk-secret-999" not in str(info.value)
    assert len(srv.requests) == 1


def test_one_connection_for_all_of_a_clients_requests_and_nothing_left_after_close(llm_server):
    srv = llm_server(default=turn(content="ok"))
    before = client_threads()
    c = OpenAIClient(srv.url, "m", backoff=0.01)
    assert [c.complete(MSGS, []).content for _ in range(3)] == ["ok"] * 3
    assert (len(srv.requests), srv.connections) == (3, 1)      # keep-alive: one TCP connection
    c.close()
    assert client_threads() == before and srv.all_closed()     # its thread ended, its connection closed
    assert c.complete(MSGS, []).content == "ok"                # used again: a new connection
    assert srv.connections == 2
    c.close()


def test_cancel_returns_without_waiting_for_the_model(llm_server):
    cancel = threading.Event()

    def held(_body):                       # the request is in flight: the person cancels now
        cancel.set()
        return {"delay": 30, **turn(content="late")}
    srv = llm_server([held, turn(content="fresh")])
    before = client_threads()
    c = OpenAIClient(srv.url, "m", timeout=60)
    with pytest.raises(Cancelled):
        c.complete(MSGS, [], cancel)
    assert srv.answered == 0               # the server still holds the answer: the call did not wait for it
    assert client_threads() == before      # the request was aborted, not abandoned on a thread
    assert c.complete(MSGS, []).content == "fresh"     # never the late answer of the aborted request
    assert srv.connections == 2                        # on a new connection: the aborted one is gone
    c.close()


class CancelledInTheWait(threading.Event):
    """A cancel the person presses while the client waits (its backoff): set as the wait begins."""

    def wait(self, timeout=None):
        self.set()
        return super().wait(timeout)


def test_cancel_during_backoff(llm_server):
    srv = llm_server([{"status": 503}], default=turn(content="too late"))
    with closing(OpenAIClient(srv.url, "m", max_retries=5, backoff=10)) as c, pytest.raises(Cancelled):
        c.complete(MSGS, [], CancelledInTheWait())
    assert len(srv.requests) == 1          # the 10 s backoff ended by the cancel, never retried


def test_timeout_is_reported(llm_server):
    srv = llm_server(default={"delay": 5, **turn(content="late")})
    with closing(OpenAIClient(srv.url, "m", timeout=0.3, max_retries=0)) as c, pytest.raises(LLMError, match=r"did not answer within 0\.3 s"):
        c.complete(MSGS, [])


def test_anthropic_messages_native(llm_server):
    srv = llm_server([turn(("read_file", {"path": "USER.md"}), content="let me look", usage=(10, 5))])
    history = MSGS + [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"SOUL.md\"}"}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "soul text"}]
    with closing(AnthropicClient(srv.url.rsplit("/v1", 1)[0], "anthropic/claude-x", "ak-123", backoff=0.01)) as c:
        comp = c.complete(history, TOOLS)
    assert comp.content == "let me look" and comp.tool_calls[0].name == "read_file"
    assert comp.usage.prompt_tokens == 10
    body = srv.requests[0]
    assert body["model"] == "claude-x" and body["system"] == "sys"
    assert body["tools"][0]["input_schema"]["properties"] == {"path": {"type": "string"}}
    assert body["messages"][1]["content"][0] == {"type": "tool_use", "id": "t1", "name": "read_file",
                                                  "input": {"path": "SOUL.md"}}
    assert body["messages"][2]["content"][0]["type"] == "tool_result"
    assert srv.headers[0]["x-api-key"] == "ak-123" and srv.headers[0]["anthropic-version"]


def test_replay_plays_turns_and_pass_labels(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text("// comment\n"
                 + json.dumps({"pass": "review", "content": "r"}) + "\n"
                 + json.dumps({"pass": "consolidation", "tool_calls": [{"name": "read_file", "arguments": {"path": "USER.md"}}]}) + "\n"
                 + json.dumps({"content": "done", "usage": {"prompt_tokens": 3}}) + "\n")
    c = ReplayClient(p)
    c.begin_pass("consolidation")          # review did not run: its turn is skipped
    first = c.complete([], [])
    assert first.tool_calls[0].name == "read_file" and json.loads(first.tool_calls[0].arguments) == {"path": "USER.md"}
    assert c.complete([], []).content == "done"
    assert c.complete([], []).tool_calls == []   # exhausted: the pass ends


def test_replay_bad_file(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text("{nope\n")
    with pytest.raises(LLMError, match="t.jsonl:1: not valid JSON"):
        ReplayClient(p)


def test_choose_model_from_config_and_overrides(tmp_path, monkeypatch):
    cfgp = tmp_path / "config.json"
    cfgp.write_text(json.dumps({"agents": {"defaults": {"model": "anthropic/claude-sonnet-4.5", "provider": "openrouter"}},
                                "providers": {"openrouter": {"apiKey": "sk-or-1", "apiBase": "https://openrouter.ai/api/v1"}}}))
    cfg = load(cfgp)
    choice, key = choose_model(cfg)
    assert (choice.kind, choice.model, choice.base_url, choice.source) == (
        "openai", "anthropic/claude-sonnet-4.5", "https://openrouter.ai/api/v1", "config.json")
    assert key == "sk-or-1" and "sk-or-1" not in choice.describe()
    monkeypatch.setenv("MY_KEY", "sk-env-2")
    choice, key = choose_model(cfg, base_url="http://127.0.0.1:9/v1", model="local", api_key_env="MY_KEY")
    assert (choice.model, choice.base_url, choice.source, key) == ("local", "http://127.0.0.1:9/v1", "override", "sk-env-2")
    with pytest.raises(LLMError, match="NOPE_UNSET"):
        choose_model(cfg, api_key_env="NOPE_UNSET")
    anth = load(tmp_path / "missing.json")
    with pytest.raises(LLMError, match="no provider is configured for the model anthropic/claude-opus-4-5.*nanobot's default"):
        choose_model(anth)
    cfgp.write_text(json.dumps({"agents": {"defaults": {"model": "claude-x", "provider": "anthropic"}},
                                "providers": {"anthropic": {"apiKey": "ak"}}}))
    choice, _ = choose_model(load(cfgp))
    assert choice.kind == "anthropic" and isinstance(make_client(choice, "ak"), AnthropicClient)


def test_every_client_knows_a_pass_begins_and_a_live_model_is_sent_nothing(llm_server):
    srv = llm_server([turn(content="ok"), turn(content="ok")])
    for c in (OpenAIClient(srv.url, "m", backoff=0.01),
              AnthropicClient(srv.url.rsplit("/v1", 1)[0], "anthropic/claude-x", "ak-1", backoff=0.01)):
        with closing(c):
            c.begin_pass("review")
            assert c.complete(MSGS, []).content == "ok"
    assert len(srv.requests) == 2


# -- failures said in words (issue 25 item 7) ----------------------------------------------------
def _closed_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]        # closed again: nothing listens there


def test_a_refused_connection_is_said_in_words_with_the_detail_in_the_log(caplog):
    import logging
    port = _closed_port()
    with caplog.at_level(logging.INFO, logger="dreamdesk.engine.llm"), \
            closing(OpenAIClient(f"http://127.0.0.1:{port}/v1", "m", max_retries=0)) as c, \
            pytest.raises(LLMError) as info:
        c.complete(MSGS, [])
    said = str(info.value)
    assert said.startswith(f"Could not reach 127.0.0.1:{port}: nothing accepts connections there (connection refused)")
    assert "Check that the model server is running, or the model's base URL in config.json" in said
    assert "ConnectError" not in said and "Errno" not in said
    assert any("ConnectError" in r.getMessage() for r in caplog.records)      # the detail, for whoever debugs


@pytest.mark.parametrize("text", ["[Errno -2] Name or service not known",
                                  "[Errno -3] Temporary failure in name resolution",
                                  "[Errno 8] nodename nor servname provided, or not known",
                                  "[Errno 11001] getaddrinfo failed"])
def test_a_name_that_does_not_resolve_is_said_in_words(text):
    """The resolver's own texts (glibc, macOS, Windows), as httpx raises them: no test may look
    a name up on the network, so the exception is made here as httpx makes it."""
    import httpx

    from dreamdesk.engine.llm.failure_words import connection_failure
    said = connection_failure(httpx.ConnectError(text), "https://openrouter.ai/api/v1/chat/completions?key=s", 120)
    assert said == ("Could not reach openrouter.ai: the name does not resolve. Check the network, or the model's "
                    "base URL in config.json (or Settings → Memory → Model, when this machine uses its own).")


@pytest.mark.parametrize("status,words", [(401, "refused the API key (HTTP 401: nope). Check the key in"),
                                          (404, "has no such model or endpoint (HTTP 404: nope)"),
                                          (400, "refused the request (HTTP 400: nope)")])
def test_an_error_answer_says_what_it_means(llm_server, status, words):
    srv = llm_server([{"status": status, "error": "nope"}])
    with closing(OpenAIClient(srv.url, "m", backoff=0.01)) as c, pytest.raises(LLMError) as info:
        c.complete(MSGS, [])
    assert str(info.value).startswith(f"{srv.url.split('//')[1].split('/')[0]} {words}")
