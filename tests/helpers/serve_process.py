"""Helpers for tests (from test_watch_serve.py): Serve."""

from __future__ import annotations

from conftest import REPO
from pathlib import Path
import os
import signal
import subprocess
import sys
import threading


class Serve:
    def __init__(self, root: Path, *flags: str):
        self.lines: list[str] = []
        self._said = threading.Condition()                  # a line came
        self.proc = subprocess.Popen([sys.executable, "-m", "dreamdesk.engine.cli", "serve", str(root), "--tick", "0.05",
                                      "--compact-every", "3600", *flags], cwd=REPO,
                                     env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self._said:
                self.lines.append(line.rstrip("\n"))
                self._said.notify_all()

    def said(self, text: str, times: int = 1, timeout: float = 20) -> str | None:
        """The `times`-th line that holds `text` once serve has said it, or None after `timeout`."""
        def hits():
            return [line for line in self.lines if text in line]
        with self._said:
            return hits()[times - 1] if self._said.wait_for(lambda: len(hits()) >= times, timeout) else None

    def wait_for(self, text: str, times: int = 1, timeout: float = 20) -> str:
        line = self.said(text, times, timeout)
        if line is None:
            raise AssertionError(f"serve never said {text!r} {times} time(s): {self.lines}")
        return line

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=30)
        self.reader.join(10)
        self.proc.stdout.close()
        return code
