"""Dreamdesk's log file: what a bug report attaches. One rotating file in the user's log folder
($DREAMDESK_LOG_DIR when set: tests, portable installs), size-capped so it never grows without
end, and a filter that masks every known secret (engine.redact) in the message, its arguments,
the exception text and the traceback before any handler writes the record."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from . import redact
from .state import user_dir

ENV = "DREAMDESK_LOG_DIR"
FILE_NAME = "dreamdesk.log"
MAX_BYTES = 1_000_000
BACKUPS = 3
OURS = ("dreamdesk",)            # our loggers (logging.getLogger(__name__)) log at `level`
FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s]: %(message)s"

_handler: logging.Handler | None = None


class SecretFilter(logging.Filter):
    """Masks known secrets in a record, whichever way they got in: %-args, an f-string, an
    exception's message or a traceback. The record is rewritten in place, so every handler
    (file, stderr, pytest's capture) sees only the masked text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):   # args that do not fit the format: keep both, masked
            message = f"{record.msg} {record.args!r}"
        record.msg = redact.scrub(message)
        record.args = None
        if record.exc_info:
            # format the traceback once, masked; formatters use exc_text when it is set
            text = record.exc_text or logging.Formatter().formatException(record.exc_info)
            record.exc_text = redact.scrub(text)
        elif record.exc_text:
            record.exc_text = redact.scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = redact.scrub(record.stack_info)
        return True


def log_path() -> Path:
    return user_dir(ENV, "user_log_dir") / FILE_NAME


def setup(level: int = logging.INFO) -> Path | None:
    """Send our loggers (at `level`) and everyone's warnings to the rotating log file. Idempotent;
    None when the folder cannot be made (logging then falls back to stderr)."""
    global _handler
    path = log_path()
    if _handler is None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handler = logging.handlers.RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS,
                                                           encoding="utf-8", delay=True)
        except OSError:
            return None
        handler.setFormatter(logging.Formatter(FORMAT))
        handler.addFilter(SecretFilter())
        logging.getLogger().addHandler(handler)
        _handler = handler
    root = logging.getLogger()
    if root.level == logging.NOTSET or root.level > logging.WARNING:
        root.setLevel(logging.WARNING)      # libraries: warnings only, not httpx's every request
    for name in OURS:
        logging.getLogger(name).setLevel(level)
    return path


def teardown() -> None:
    """Detach and close the file handler (tests; a second setup then starts afresh)."""
    global _handler
    if _handler is not None:
        logging.getLogger().removeHandler(_handler)
        _handler.close()
        _handler = None


def current_path() -> Path | None:
    """The file being written, or None before setup (or when it failed)."""
    return Path(_handler.baseFilename) if isinstance(_handler, logging.FileHandler) else None


def log_tail(lines: int = 60, max_bytes: int = 64_000) -> str:
    """The last `lines` lines of the log file ("" when there is none): what a crash report attaches."""
    path = current_path() or log_path()
    if _handler is not None:
        _handler.flush()
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read()
    except OSError:
        return ""
    text = data.decode("utf-8", "replace").splitlines()
    return "\n".join(text[-lines:])
