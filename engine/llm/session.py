"""One model client's HTTP session: one keep-alive httpx.Client and the one thread its requests
run on, both made at the first request and reused until close(). A run's calls then share one
TCP connection (and one TLS context load) instead of paying for a new client each.

Cancel: the caller waits on the request's thread, and when its cancel event is set it shuts
down the sockets under the request (a recv blocked in another thread wakes on shutdown, not on
close), waits for the request to fail, then closes the session, so no thread is left running
and no half-read connection is reused. Only a connect that has not finished yet cannot be
woken; its thread ends at the connect timeout, after the caller has returned."""

from __future__ import annotations

import concurrent.futures
import socket
import ssl
import threading

import httpx

from .base import Cancelled

POLL_S = 0.05             # how often a waiting caller looks at its cancel event
ABORT_WAIT_S = 1.0        # how long a cancel waits for the aborted request to unwind

_tls_lock = threading.Lock()
_tls_context: ssl.SSLContext | None = None


def tls_context() -> ssl.SSLContext:
    """httpx loads the CA bundle for every client it makes (~70 ms here): one verifying
    context for the process, shared by every session (an SSLContext is thread-safe)."""
    global _tls_context
    with _tls_lock:
        if _tls_context is None:
            _tls_context = httpx.create_ssl_context()
        return _tls_context


class Session:
    def __init__(self, timeout: float):
        self.timeout = timeout
        self._lock = threading.Lock()
        self._client: httpx.Client | None = None
        self._lane: concurrent.futures.ThreadPoolExecutor | None = None
        self._sockets: list[socket.socket] = []     # the connections opened, for a cancel to shut down

    def post(self, url: str, headers: dict, body: dict, cancel: threading.Event) -> httpx.Response:
        """The whole response (body read), or Cancelled once `cancel` is set."""
        client, lane = self._open()
        fut = lane.submit(client.post, url, headers=headers, json=body, extensions={"trace": self._trace})
        while True:
            try:
                return fut.result(timeout=POLL_S)
            except concurrent.futures.TimeoutError:
                if cancel.is_set():
                    self._abort(fut)
                    raise Cancelled("cancelled") from None

    def close(self) -> None:
        """Close the connections and end the request thread; the next post opens them anew."""
        with self._lock:
            client, lane = self._client, self._lane
            self._client, self._lane, self._sockets = None, None, []
        if client is not None:
            client.close()
        if lane is not None:
            lane.shutdown(wait=True)

    def _open(self) -> tuple[httpx.Client, concurrent.futures.ThreadPoolExecutor]:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 15.0)),
                                            verify=tls_context())
                self._lane = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="llm-http")
            return self._client, self._lane

    def _trace(self, event: str, info: dict) -> None:
        """httpcore's trace hook, on the request thread: remember each socket it connects."""
        if event.endswith(("connect_tcp.complete", "start_tls.complete")):
            sock = info["return_value"].get_extra_info("socket")
            if sock is None:
                return
            with self._lock:
                self._sockets = [s for s in self._sockets if s.fileno() >= 0] + [sock]

    def _abort(self, fut: concurrent.futures.Future) -> None:
        with self._lock:
            sockets, lane = list(self._sockets), self._lane
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass               # already closed (or a TLS socket's detached plain one)
        try:
            fut.exception(timeout=ABORT_WAIT_S)
        except concurrent.futures.TimeoutError:
            # still connecting: close without waiting; the thread ends at the connect timeout
            with self._lock:
                if self._lane is lane:
                    self._lane = None
            if lane is not None:
                lane.shutdown(wait=False)
        self.close()
