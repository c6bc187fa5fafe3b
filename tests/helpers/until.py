"""Waiting on a condition another process makes true (no Qt event loop to wait in): asked again
and again until it holds, failing in words after `within` seconds."""

from __future__ import annotations

import time
from typing import Callable


def until(condition: Callable[[], bool], within: float = 20.0, what: str = "the condition never came",
          every: float = 0.005) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(every)
