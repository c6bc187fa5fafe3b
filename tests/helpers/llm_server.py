"""A real HTTP server on 127.0.0.1 that speaks the chat-completions protocol (and Anthropic's
/v1/messages) and answers from a script of turns and tool calls. The engine is tested through
the network with it, never by monkeypatching the client. A script item {"raw": obj} is sent back
verbatim as the JSON body (bytes as they are), for malformed answers. GET /v1/models lists one
model and POST /v1/embeddings answers with vectors made from the text's hash (neither takes a
script item): clients that check the model list or embed their memory run against it too."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Turn = dict[str, Any]


def turn(*calls: tuple[str, dict | str], content: str | None = None, usage=(1000, 50), **extra) -> Turn:
    """A scripted assistant turn: turn(("read_file", {"path": "USER.md"}), ...) or turn(content="done")."""
    return {"content": content, "tool_calls": [{"name": n, "arguments": a} for n, a in calls],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}, **extra}


def _route(path: str) -> str:
    """The last part of a request's path: "models", "embeddings", "completions", "messages"."""
    return path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


def client_threads() -> set[str]:
    """The threads running besides the scripted servers' own: what a client leaves behind."""
    return {t.name for t in threading.enumerate()
            if t.name != "llm-server" and "process_request_thread" not in t.name}


class ScriptedLLMServer:
    def __init__(self, script: list[Turn | Callable[[dict], Turn]] | None = None, default: Turn | None = None):
        self.script = list(script or [])
        self.default = default or turn(content="done")
        self.requests: list[dict] = []
        self.paths: list[str] = []            # the request paths, query included
        self.headers: list[dict] = []
        self.connections = 0                  # TCP connections accepted (keep-alive reuses one)
        self.open_connections = 0             # of those, the ones the client has not closed yet
        self.answered = 0                     # answers sent back (a held "delay" one counts once it goes)
        self.embedded: list[dict] = []        # the /embeddings requests (answered apart from the script)
        self.model_id = "scripted-model"      # the one model GET /models lists
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)   # a request came in, or a connection closed
        self._release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in two writes: with Nagle the body waits for the
            # client's delayed ACK (~40 ms a call on Linux), which no model server makes you wait
            disable_nagle_algorithm = True

            def log_message(self, *args):  # keep test output clean
                pass

            def setup(self):               # once per connection, however many requests it carries
                super().setup()
                with server._lock:
                    server.connections += 1
                    server.open_connections += 1

            def finish(self):              # the client closed it (or the server is stopping)
                with server._lock:
                    server.open_connections -= 1
                    server._changed.notify_all()
                super().finish()

            def do_GET(self):
                status, payload = server._get(self.path)
                self._send(status, payload, {})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if _route(self.path) == "embeddings":
                    self._send(200, server._embed(body), {})
                    return
                with server._lock:
                    server.requests.append(body)
                    server.paths.append(self.path)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                    server._changed.notify_all()
                    item = server.script.pop(0) if server.script else server.default
                if callable(item):
                    item = item(body)
                server._release.wait(item.get("delay") or 0)     # a held answer ("delay") waits here
                if "raw" in item:   # a verbatim body (malformed answers): {"raw": {...}} or {"raw": b"..."}
                    raw = item["raw"]
                    self._send(200, raw if isinstance(raw, bytes) else json.dumps(raw).encode(), item.get("headers", {}))
                    return
                status = item.get("status", 200)
                if status != 200:
                    payload = json.dumps({"error": {"message": item.get("error", f"scripted {status}")}}).encode()
                    self._send(status, payload, item.get("headers", {}))
                    return
                if self.path.split("?", 1)[0].rstrip("/").endswith("/messages"):
                    payload = server._anthropic(item)
                elif body.get("stream"):     # nanobot's own provider always streams
                    self._send(200, server._openai_stream(item, body), item.get("headers", {}),
                               "text/event-stream")
                    return
                else:
                    payload = server._openai(item, body)
                self._send(200, json.dumps(payload).encode(), item.get("headers", {}))

            def _send(self, status, payload, headers, content_type="application/json"):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in headers.items():
                        self.send_header(k, str(v))
                    self.end_headers()
                    self.wfile.write(payload)
                    with server._lock:
                        server.answered += 1
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       name="llm-server", daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "ScriptedLLMServer":
        self.thread.start()
        return self

    def release(self) -> None:
        """Answers held by a "delay" go out now, and later ones are not held: for a test that
        holds the model call open until it has seen what it checks while the call is under way."""
        self._release.set()

    def stop(self) -> None:
        self._release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def all_closed(self, within: float = 2.0) -> bool:
        """Whether every connection a client opened is closed (as the server sees it) in time."""
        with self._changed:
            return self._changed.wait_for(lambda: self.open_connections == 0, timeout=within)

    def wait_for_requests(self, count: int = 1, within: float = 20.0) -> bool:
        """Whether `count` requests have come in (a run in another process or thread reached the model)."""
        with self._changed:
            return self._changed.wait_for(lambda: len(self.requests) >= count, timeout=within)

    def add(self, *turns: Turn) -> None:
        with self._lock:
            self.script.extend(turns)

    @staticmethod
    def _calls(item: Turn) -> list[tuple[str, str, str]]:
        out = []
        for i, c in enumerate(item.get("tool_calls") or []):
            args = c["arguments"] if isinstance(c["arguments"], str) else json.dumps(c["arguments"])
            out.append((f"call_{i}_{id(c) % 10000}", c["name"], args))
        return out

    def _openai(self, item: Turn, body: dict) -> dict:
        calls = self._calls(item)
        msg: dict = {"role": "assistant", "content": item.get("content")}
        if calls:
            msg["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                                 for i, n, a in calls]
        u = item.get("usage") or {}
        return {"id": "chatcmpl-test", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": u.get("prompt_tokens", 0), "completion_tokens": u.get("completion_tokens", 0)}}

    def _openai_stream(self, item: Turn, body: dict) -> bytes:
        """The same answer as server-sent events: one delta with the content and every tool
        call, a finish chunk, the usage chunk (stream_options.include_usage), [DONE]."""
        whole = self._openai(item, body)
        msg, choice = whole["choices"][0]["message"], whole["choices"][0]
        delta = {"role": "assistant", "content": msg.get("content")}
        if msg.get("tool_calls"):
            delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(msg["tool_calls"])]
        head = {"id": whole["id"], "object": "chat.completion.chunk", "model": whole["model"]}
        chunks = [{**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
                  {**head, "choices": [], "usage": whole["usage"]}]
        return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"

    def _get(self, path: str) -> tuple[int, bytes]:
        if _route(path) != "models":
            return 404, b'{"error": {"message": "not found"}}'
        models = [{"id": self.model_id, "object": "model", "owned_by": "scripted"}]
        return 200, json.dumps({"object": "list", "data": models}).encode()

    def _embed(self, body: dict) -> bytes:
        with self._lock:
            self.embedded.append(body)
        return json.dumps(self._embeddings(body)).encode()

    @staticmethod
    def _embeddings(body: dict, dims: int = 16) -> dict:
        """One unit vector per input, from its text's sha256: the same text, the same vector."""
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        data = []
        for i, text in enumerate(texts):
            raw = hashlib.sha256(str(text).encode()).digest()[:dims]
            vec = [b / 255 - 0.5 for b in raw]
            norm = sum(v * v for v in vec) ** 0.5 or 1.0
            data.append({"object": "embedding", "index": i, "embedding": [v / norm for v in vec]})
        return {"object": "list", "data": data, "model": body.get("model"),
                "usage": {"prompt_tokens": 0, "total_tokens": 0}}

    def _anthropic(self, item: Turn) -> dict:
        blocks: list[dict] = []
        if item.get("content"):
            blocks.append({"type": "text", "text": item["content"]})
        for i, n, a in self._calls(item):
            blocks.append({"type": "tool_use", "id": i, "name": n, "input": json.loads(a)})
        u = item.get("usage") or {}
        return {"id": "msg_test", "type": "message", "role": "assistant", "content": blocks,
                "stop_reason": "tool_use" if len(blocks) > (1 if item.get("content") else 0) else "end_turn",
                "usage": {"input_tokens": u.get("prompt_tokens", 0), "output_tokens": u.get("completion_tokens", 0)}}
