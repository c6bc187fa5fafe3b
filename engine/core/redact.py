"""Secrets Dreamdesk was given never leave it: every API key, header value, URL credential and
URL query value it sends, and every key config.json holds, is masked in whatever it writes or
shows (error messages, run records, Dream's state file, CLI output, log lines), whatever the
text's source — a model server that echoes the key back in a 401 body included.

A process-wide set, filled where secrets are read (model resolution, the HTTP client) and
applied where text leaves (the sinks call scrub)."""

from __future__ import annotations

import threading
from urllib.parse import parse_qsl, unquote, urlsplit

MASK = "•••"
MIN_LEN = 4                     # shorter "secrets" (a user name "ai") would mask ordinary words
_lock = threading.Lock()
_secrets: set[str] = set()


def register(*values: str | None) -> None:
    """Remember secrets (None, empty and very short values are ignored)."""
    with _lock:
        for v in values:
            if isinstance(v, str) and len(v.strip()) >= MIN_LEN:
                _secrets.add(v.strip())
                if unquote(v.strip()) != v.strip():
                    _secrets.add(unquote(v.strip()))


def register_url(url: str | None) -> None:
    """The user name, password and every query value of a base URL."""
    if not url:
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    register(parts.username, parts.password)
    register(*(v for _k, v in parse_qsl(parts.query, keep_blank_values=True)))
    if parts.query and "=" not in parts.query:
        register(parts.query)           # a bare token: ?TOKEN


def register_headers(headers: dict) -> None:
    for name, value in headers.items():
        if name.lower() in ("authorization", "x-api-key", "api-key", "x-goog-api-key") and isinstance(value, str):
            register(value.split()[-1] if value.split() else value)


def scrub(text: str) -> str:
    """`text` with every known secret masked, longest first (so a key that contains another
    known secret is masked whole)."""
    if not text or not _secrets:
        return text
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)
    for s in known:
        if s in text:
            text = text.replace(s, MASK)
    return text


def scrub_obj(obj):
    """scrub over every string of a JSON-like value (keys too)."""
    if isinstance(obj, str):
        return scrub(obj)
    if isinstance(obj, dict):
        return {scrub_obj(k): scrub_obj(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [scrub_obj(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(scrub_obj(v) for v in obj)
    return obj


def forget_all() -> None:
    """Tests only: start from an empty set."""
    with _lock:
        _secrets.clear()
