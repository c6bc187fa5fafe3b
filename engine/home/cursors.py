"""memory/.cursor and memory/.dream_cursor: a bare integer, no newline (nanobot's format)."""

from __future__ import annotations

from pathlib import Path

from ..disk.files import atomic_write_text, read_bytes
from ..core.problems import INFO, WARNING, Problem
from ..core.rules import cursor_value


def read_cursor(path: Path, display: str) -> tuple[int, Problem | None]:
    """The cursor value; missing or unreadable reads as 0 and says so."""
    try:
        data = read_bytes(path, limit=4096)
    except FileNotFoundError:
        return 0, Problem(display, "missing; reading it as 0", severity=INFO)
    except OSError as exc:
        return 0, Problem(display, f"cannot be read ({exc.strerror or exc}); reading it as 0", severity=WARNING)
    return parse_cursor(data, display)


def parse_cursor(data: bytes, display: str) -> tuple[int, Problem | None]:
    """A cursor file's bytes (from disk or a snapshot) as its value; not a number reads as 0."""
    text = data.decode("utf-8", errors="replace").strip()
    value = cursor_value(text)
    if value is not None:
        return value, None
    shown = text if len(text) <= 40 else text[:40] + "…"
    return 0, Problem(display, f"does not hold a whole number ≥ 0 (holds {shown!r}); reading it as 0", severity=WARNING)


def write_cursor(path: Path, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"a cursor is a whole number ≥ 0, not {value!r}")
    atomic_write_text(path, str(value))
