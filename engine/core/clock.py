"""One clock for every time Dreamdesk shows: the user's local time (this machine's zone).

Times reach us in three shapes, each with its own zone:
- history.jsonl stamps, naive "YYYY-MM-DD HH:MM": nanobot 0.3.5 writes `datetime.now()` of the
  assistant's process, so they are in the zone of the machine the assistant runs on. Its
  config.json records that zone as `agents.defaults.timezone` (in "auto" mode it is the zone
  nanobot detected there; "manual" is the zone its user set): that is the home's zone. Without
  it the stamps are taken as this machine's time (the assistant runs here).
- ISO 8601 with an offset (run records, the archive, state.json): written wherever Dreamdesk ran.
- git commit times (snapshots): seconds since the epoch.

Everything is shown converted to one display zone, `None` meaning this machine's (what the
person at the screen reads on their clock); tests pass a zone instead.
"""

from __future__ import annotations

import functools
import os
import re
import time
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .config_keys import lookup

HISTORY_FORMAT = "%Y-%m-%d %H:%M"
_STAMP_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}")   # HISTORY_FORMAT zero-padded
NONE = "—"


# -- zones ---------------------------------------------------------------------------------
def zone_named(name: Any) -> tzinfo | None:
    """The IANA zone `name` ("Europe/Berlin"), or None when it is no zone this machine knows."""
    if not isinstance(name, str) or not name.strip():
        return None
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        return None


def home_zone(cfg) -> tzinfo | None:
    """The zone the assistant stamps history.jsonl in: config.json's agents.defaults.timezone
    (camelCase or snake_case spelling), None when it names none (then: this machine's)."""
    found, value, _ = lookup(getattr(cfg, "raw", None) or {}, "agents.defaults.timezone")
    return zone_named(value) if found else None


def local_zone_name() -> str:
    """This machine's zone by name: $TZ, else /etc/localtime's link into zoneinfo, else the
    abbreviation the C library reports."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz:
        return tz.split("zoneinfo/", 1)[-1]
    try:
        target = str(Path("/etc/localtime").resolve())
        if "zoneinfo/" in target:
            return target.split("zoneinfo/", 1)[1]
    except OSError:
        pass
    return time.tzname[0]


def _offset(delta: timedelta | None) -> str:
    minutes = round((delta or timedelta()).total_seconds() / 60)
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def zone_label(zone: tzinfo | None = None, name: str | None = None) -> str:
    """'Times in Europe/Berlin (UTC+01:00)': the display zone and its offset now."""
    now = datetime.now(timezone.utc).astimezone(zone)
    shown = name or (str(zone) if zone is not None else local_zone_name())
    return f"Times in {shown} ({_offset(now.utcoffset())})"


# -- today -----------------------------------------------------------------------------------
TODAY_ENV = "DREAMDESK_TODAY"     # YYYY-MM-DD: what "today" is for date checks (tests pin it)


def today() -> date:
    """This machine's date, or the one $DREAMDESK_TODAY names (so a date check can be run, and
    tested, as of a given day). A value that is no date is ignored."""
    pinned = os.environ.get(TODAY_ENV, "").strip()
    if pinned:
        try:
            return date.fromisoformat(pinned)
        except ValueError:
            pass
    return date.today()


# -- reading the three shapes --------------------------------------------------------------
def from_history(stamp: Any, home: tzinfo | None = None) -> datetime | None:
    """A history.jsonl stamp as an instant: the wall-clock reading in the home's zone."""
    if not isinstance(stamp, str):
        return None
    stamp = stamp.strip()
    try:
        if _STAMP_RE.fullmatch(stamp):     # the usual shape: fromisoformat reads it as strptime, 10x faster
            naive = datetime.fromisoformat(stamp)
        else:
            naive = datetime.strptime(stamp, HISTORY_FORMAT)
    except ValueError:
        return None
    return from_wall(naive, home)


def from_wall(naive: datetime, home: tzinfo | None = None) -> datetime:
    """A naive wall-clock reading of the assistant's process (history stamps, its Dream
    session keys) as an instant: in the home's zone, else this machine's."""
    return naive.replace(tzinfo=home) if home is not None else naive.astimezone()


def from_iso(text: Any) -> datetime | None:
    """An ISO 8601 time; one without an offset is this machine's time."""
    if not isinstance(text, str) or not text:
        return None
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.astimezone()


def from_epoch(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


# -- showing -------------------------------------------------------------------------------
def show(t: datetime | None, seconds: bool = False, zone: tzinfo | None = None) -> str:
    """'2026-04-03 01:02' in the display zone ('—' for no time)."""
    if t is None:
        return NONE
    return t.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S" if seconds else HISTORY_FORMAT)


def show_iso(text: Any, seconds: bool = False, zone: tzinfo | None = None) -> str:
    """An ISO time for display; text that is no time is shown as it is."""
    if not isinstance(text, str):
        return NONE
    # the machine's zone is part of the key: $TZ may change (tests change it)
    return _show_iso(text, seconds, zone, time.tzname, time.timezone)


@functools.lru_cache(maxsize=1 << 16)
def _show_iso(text: str, seconds: bool, zone: tzinfo | None, *_machine_zone) -> str:
    """Cached: an archive of 20,000 entries asks for every day and month on each filter."""
    t = from_iso(text)
    if t is None:
        return str(text) if isinstance(text, str) and text else NONE
    return show(t, seconds, zone)


def show_history(stamp: Any, home: tzinfo | None = None, zone: tzinfo | None = None) -> str:
    """A history stamp for display; a stamp that is no time is shown as it is."""
    t = from_history(stamp, home)
    if t is None:
        return str(stamp) if isinstance(stamp, str) and stamp else NONE
    return show(t, False, zone)


def show_epoch(seconds: float, with_seconds: bool = False, zone: tzinfo | None = None) -> str:
    return show(from_epoch(seconds), with_seconds, zone)


def history_stamp(t: datetime, home: tzinfo | None = None) -> str:
    """`t` as a history.jsonl stamp: the wall clock in the home's zone, as the assistant writes it."""
    return t.astimezone(home).strftime(HISTORY_FORMAT)


def iso_history(stamp: Any, home: tzinfo | None = None) -> str | None:
    """iso(from_history(stamp, home)) for the hot loop of `dreamdesk history --json`: a stamp
    has no seconds, so isoformat's default stops at them without parsing a timespec."""
    t = from_history(stamp, home)
    return t.astimezone().isoformat() if t is not None else None


def iso(t: datetime | None) -> str | None:
    """For --json: ISO 8601 with the offset of the display zone."""
    return t.astimezone().isoformat(timespec="seconds") if t is not None else None
