"""The HTTP part both providers share: timeouts, retries with backoff on 429/5xx and
connection errors, and a cancel that returns within about a second (engine/llm/session.py keeps
the connection alive between requests and aborts it on cancel)."""

from __future__ import annotations

import threading
import time

import httpx

from ..core import redact
from .base import Cancelled, LLMError
from .failure_words import connection_failure, status_failure
from .session import Session

RETRY_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504, 529}


class HttpPoster:
    def __init__(self, timeout: float = 120.0, max_retries: int = 3, backoff: float = 0.5,
                 max_backoff: float = 20.0):
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.session = Session(timeout)     # one keep-alive connection for all of a run's requests

    def post_json(self, url: str, headers: dict, body: dict, cancel: threading.Event | None) -> dict:
        cancel = cancel or threading.Event()
        redact.register_url(url)
        redact.register_headers(headers)
        last_error = "no attempt"
        for attempt in range(self.max_retries + 1):
            if cancel.is_set():
                raise Cancelled("cancelled")
            try:
                resp = self.session.post(url, headers, body, cancel)
            except Cancelled:
                raise
            except httpx.HTTPError as exc:       # (timeouts included) said in words, the detail logged
                last_error = connection_failure(exc, url, self.timeout)
                resp = None
            except (UnicodeEncodeError, ValueError) as exc:
                # e.g. an API key with a character HTTP headers cannot carry; never retried
                raise LLMError(f"the request could not be sent ({type(exc).__name__}; check the API key and "
                               "base URL for unusual characters)") from None
            if resp is not None:
                if resp.status_code < 400:
                    try:
                        return resp.json()
                    except (ValueError, RecursionError):
                        raise LLMError(f"the model server answered {resp.status_code} with a body that is not JSON") from None
                last_error = status_failure(resp.status_code, redact.scrub(_error_text(resp)), url)
                if resp.status_code not in RETRY_STATUSES:
                    raise LLMError(last_error)
                delay = _retry_after(resp)
            else:
                delay = None
            if attempt == self.max_retries:
                break
            wait = delay if delay is not None else min(self.max_backoff, self.backoff * (2 ** attempt))
            if cancel.wait(min(wait, self.max_backoff)):
                raise Cancelled("cancelled")
        tries = self.max_retries + 1
        raise LLMError(last_error if tries == 1 else f"{last_error} Gave up after {tries} attempts.")

    def close(self) -> None:
        self.session.close()


def endpoint(base_url: str, path: str) -> str:
    """base URL + API path, keeping a query the base URL carries (some gateways take the key
    as `?key=...`) after the path, where it belongs."""
    base, sep, query = base_url.partition("?")
    return base.rstrip("/") + path + (sep + query if query else "")


def _retry_after(resp: httpx.Response) -> float | None:
    value = resp.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _error_text(resp: httpx.Response) -> str:
    try:
        data = resp.json()
    except (ValueError, RecursionError):
        return resp.text[:300]
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return err["message"][:300]
        if isinstance(err, str):
            return err[:300]
    return str(data)[:300]


def now() -> float:
    return time.monotonic()
