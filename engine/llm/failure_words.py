"""A failed model request said in words: what happened, to which host, and what to check. The
technical detail (the exception, errno, the server's own text) goes to the log, not the sentence
a person reads first (issue 25 item 7)."""

from __future__ import annotations

import logging
import ssl
from urllib.parse import urlsplit

import httpx

from ..core import redact

log = logging.getLogger(__name__)

WHERE = "config.json (or Settings → Memory → Model, when this machine uses its own)"

# Substrings of the resolver's and the socket's own texts (glibc, macOS, Windows), as httpx
# passes them through in ConnectError.
_NO_NAME = ("name or service not known", "nodename nor servname", "getaddrinfo failed",
            "temporary failure in name resolution", "no address associated", "name does not resolve",
            "errno -2", "errno -3", "errno -5", "errno 11001", "errno 8")
_REFUSED = ("connection refused", "errno 111", "errno 61", "errno 10061")
_UNREACHABLE = ("network is unreachable", "no route to host", "errno 101", "errno 113", "errno 65", "errno 51")


def host_of(url: str) -> str:
    """host[:port] of the request, never its path or query (a key may ride there)."""
    parts = urlsplit(url)
    host = parts.hostname or "the model server"
    return f"{host}:{parts.port}" if parts.port else host


def connection_failure(exc: BaseException, url: str, timeout: float) -> str:
    """Why a request never got an answer, in words; the detail is logged."""
    host = host_of(url)
    detail = f"{type(exc).__name__}: {redact.scrub(str(exc))}"
    log.info("model request to %s failed: %s", host, detail)
    text = detail.casefold()
    if isinstance(exc, httpx.TimeoutException):
        if isinstance(exc, httpx.ConnectTimeout):
            return f"Could not reach {host}: no answer to the connection within {timeout:g} s. Check the network."
        return (f"{host} did not answer within {timeout:g} s. A busy model may answer on a later try; "
                f"a slow one needs a longer timeout.")
    if any(s in text for s in _NO_NAME):
        return (f"Could not reach {host}: the name does not resolve. Check the network, or the model's "
                f"base URL in {WHERE}.")
    if any(s in text for s in _REFUSED):
        return (f"Could not reach {host}: nothing accepts connections there (connection refused). Check that "
                f"the model server is running, or the model's base URL in {WHERE}.")
    if any(s in text for s in _UNREACHABLE):
        return f"Could not reach {host}: the network has no way there. Check the network connection."
    if isinstance(exc.__cause__ or exc.__context__, ssl.SSLError) or "certificate" in text or "ssl" in text:
        return (f"Could not make a secure connection to {host} (its certificate, or http:// vs https:// in the "
                f"base URL). Check the model's base URL in {WHERE}.")
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
        return f"{host} closed the connection without an answer (it may be overloaded)."
    return f"Could not reach {host}: the connection failed. Check the network, or the model's base URL in {WHERE}."


def status_failure(status: int, server_text: str, url: str) -> str:
    """An HTTP error answer in words, the server's own text kept (scrubbed) after the code."""
    host = host_of(url)
    said = f"HTTP {status}: {server_text}" if server_text else f"HTTP {status}"
    log.info("model request to %s answered %s", host, said)
    if status in (401, 403):
        return f"{host} refused the API key ({said}). Check the key in {WHERE}."
    if status == 404:
        return f"{host} has no such model or endpoint ({said}). Check the model name and base URL in {WHERE}."
    if status == 429:
        return f"{host} is limiting requests ({said}). Wait a little, or check the plan's limits."
    if status >= 500:
        return f"The model server at {host} had an error ({said})."
    return f"{host} refused the request ({said})."
