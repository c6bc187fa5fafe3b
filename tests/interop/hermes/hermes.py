"""Hermes Agent's own code, run by its own Python (DREAMDESK_HERMES_PYTHON, which .ci/run sets)
through driver.py: one long-lived process, one JSON request a line. Dreamdesk's Python never
imports Hermes."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "driver.py"
ENV_VAR = "DREAMDESK_HERMES_PYTHON"
VERIFIED = ("0.19.0",)          # the hermes-agent versions the fixtures and oracles come from
CLOSED_PORT = "http://127.0.0.1:9"     # a proxy nobody listens on: any outside request fails at once


class HermesError(AssertionError):
    pass


def driver_env(user: Path) -> dict:
    """None of our Python's or pytest's settings, a private HOME (Hermes's default home is
    ~/.hermes), no network, no administrator's managed scope, no package installs."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HERMES_", "PYTHON", "VIRTUAL_ENV", "PYTEST_"))
           and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    env.update(HOME=str(user), TZ="UTC", HERMES_DISABLE_LAZY_INSTALLS="1",
               HERMES_MANAGED_DIR=str(user / "no-managed-scope"),
               HTTP_PROXY=CLOSED_PORT, HTTPS_PROXY=CLOSED_PORT, http_proxy=CLOSED_PORT,
               https_proxy=CLOSED_PORT, NO_PROXY="", no_proxy="")
    return env


@dataclass
class Step:
    op: str
    args: tuple
    seconds: float


@dataclass
class Hermes:
    """One driver process. Every request names the home it acts on."""
    python: str
    user: Path
    steps: list[Step] = field(default_factory=list)

    def __post_init__(self):
        self.user.mkdir(parents=True, exist_ok=True)
        self.log = self.user / f"driver-{id(self)}.log"      # Hermes's own messages go there
        with open(self.log, "w", encoding="utf-8") as err:
            self.proc = subprocess.Popen([self.python, "-u", str(DRIVER), "serve"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=err, text=True, encoding="utf-8",
                                         env=driver_env(self.user), cwd=str(self.user))
        self._lock = threading.Lock()
        self.version = self._read()["version"]

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=10)
            raise HermesError("Hermes's driver died:\n" + self.log.read_text(encoding="utf-8")[-4000:])
        return json.loads(line)

    def send(self, op: str, *args) -> None:
        """The request only: the answer is read by answer() (a request may block, on a lock)."""
        self.proc.stdin.write(json.dumps([op, *[str(a) for a in args]]) + "\n")
        self.proc.stdin.flush()

    def answer(self, op: str = "") -> dict:
        out = self._read()
        if "error" in out:
            raise HermesError(f"Hermes's {op} raised:\n{out['error']}")
        return out

    def __call__(self, op: str, *args) -> dict:
        with self._lock:
            started = time.monotonic()
            self.send(op, *args)
            out = self.answer(op)
            self.steps.append(Step(op, args, time.monotonic() - started))
            return out

    # -- the ops, by name --------------------------------------------------------------------
    def memory(self, home: Path, *ops: dict) -> list[dict]:
        """Each op through Hermes's memory tool; Hermes's replies."""
        return self("memory", home, json.dumps(list(ops)))["replies"]

    def read(self, home: Path) -> dict:
        """What a session start reads, on a copy (Hermes's config loader creates its folders)."""
        with scratch_copy(home) as copy:
            return self("read", copy)

    def guard(self, home: Path) -> dict:
        with scratch_copy(home) as copy:
            return self("guard", copy)

    def config(self, home: Path) -> dict:
        with scratch_copy(home) as copy:
            return self("config", copy)["memory"]

    def system_prompt(self, home: Path) -> str:
        """The volatile tier of Hermes's system prompt for the home, on a copy."""
        with scratch_copy(home) as copy:
            return self("system-prompt", copy)["volatile"]

    def __enter__(self) -> "Hermes":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def probe(self, limit: int, files: list[bytes]) -> list[dict]:
        """Hermes's reading of each MEMORY.md (see driver.py, op probe)."""
        cases = json.dumps([base64.b64encode(f).decode() for f in files])
        return self("probe", limit, cases)["answers"]

    def close(self) -> None:
        """End of input ends the driver; one that hangs (on a lock) is killed."""
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


@contextmanager
def scratch_copy(home: Path):
    """A copy of the home in a temporary folder, removed afterwards: Hermes's loader may create
    folders and files in what it reads."""
    with tempfile.TemporaryDirectory(prefix="hermes-read-") as tmp:
        copy = Path(tmp) / "home"
        if Path(home).exists():
            shutil.copytree(home, copy, symlinks=True)
        else:
            copy.mkdir()
        yield copy


def memory_part(volatile: str) -> str:
    """The memory and user-profile blocks of the volatile tier: all before its last part, the
    "Conversation started: …" line (an external memory provider's block would come between;
    these homes configure none)."""
    head, sep, _ = volatile.rpartition("Conversation started: ")
    assert sep, f"no 'Conversation started:' line in {volatile[:200]!r}"
    return head.removesuffix("\n\n")
