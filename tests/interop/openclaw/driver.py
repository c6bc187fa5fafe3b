"""The real `openclaw` CLI (the pinned one .ci/run installs, found through DREAMDESK_OPENCLAW),
run against a home of its own: HOME, the temp folder (OpenClaw logs under it) and every
OPENCLAW_* setting private to that home, the model a scripted server on 127.0.0.1."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import socket
import struct
import subprocess
import termios
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ENV_VAR = "DREAMDESK_OPENCLAW"
VERIFIED = ("2026.9.6",)         # the OpenClaw versions these homes and oracles come from
MODEL_ID = "scripted-model"
PROVIDER_ID = "scripted"


class OpenClawError(AssertionError):
    pass


# what a terminal UI writes besides its text: CSI and OSC sequences, and other ESC pairs
TERMINAL_CODES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def first_json(text: str):
    """The first JSON value in a command's output (some print log lines after it, and
    `memory promote --apply --json` prints several objects one after another)."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ValueError(f"no JSON in: {text[:400]!r}")
    return json.JSONDecoder().raw_decode(text[start:])[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Step:
    args: tuple[str, ...]
    seconds: float


@dataclass
class OpenClawHome:
    """One user's folder for OpenClaw: HOME is `user`, OpenClaw's home `user/.openclaw`."""
    launcher: str
    user: Path
    steps: list[Step] = field(default_factory=list)
    port: int = field(default_factory=free_port)    # its Gateway's (OPENCLAW_GATEWAY_PORT for every command)

    @property
    def home(self) -> Path:
        return self.user / ".openclaw"

    @property
    def workspace(self) -> Path:
        return self.home / "workspace"

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "NODE_", "npm_"))}
        tmp = self.user / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        env.update(HOME=str(self.user), TMPDIR=str(tmp), TZ="UTC", NO_COLOR="1", FORCE_COLOR="0",
                   NO_PROXY="*", no_proxy="*", OPENCLAW_GATEWAY_PORT=str(self.port))
        return env

    def run(self, *args: str, timeout: float = 180, check: bool = True) -> subprocess.CompletedProcess:
        """One openclaw command; a non-zero exit fails with its output."""
        started = time.monotonic()
        proc = subprocess.run([self.launcher, *args], env=self.env(), cwd=str(self.user), text=True,
                              capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        self.steps.append(Step(args, time.monotonic() - started))
        if check and proc.returncode != 0:
            raise OpenClawError(f"openclaw {' '.join(args)} exited {proc.returncode}:\n"
                                f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return proc

    def json(self, *args: str, timeout: float = 180):
        return first_json(self.run(*args, timeout=timeout).stdout)

    def start(self, *args: str) -> subprocess.Popen:
        """One openclaw command started and left running (the caller waits for it)."""
        return subprocess.Popen([self.launcher, *args], env=self.env(), cwd=str(self.user), text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)

    # -- the steps, by name ----------------------------------------------------------------
    def version(self) -> str:
        return self.run("--version").stdout.split()[1]

    def setup(self) -> None:
        self.run("setup", "--baseline")

    def onboard(self, model_url: str) -> dict:
        return self.json("onboard", "--non-interactive", "--accept-risk", "--mode", "local", "--flow", "quickstart",
                         "--auth-choice", "custom-api-key", "--custom-base-url", model_url,
                         "--custom-model-id", MODEL_ID, "--custom-api-key", "sk-loopback",
                         "--custom-provider-id", PROVIDER_ID, "--custom-compatibility", "openai",
                         "--custom-text-input", "--skip-channels", "--skip-daemon", "--no-install-daemon",
                         "--skip-health", "--skip-skills", "--skip-search", "--skip-ui", "--skip-hooks", "--json")

    def config_set(self, key: str, value: str) -> None:
        self.run("config", "set", key, value)

    def index(self) -> None:
        self.run("memory", "index", "--force")

    def search(self, query: str) -> dict:
        return self.json("memory", "search", query, "--json")

    def promote(self, apply: bool = False) -> dict:
        return self.json("memory", "promote", *(["--apply"] if apply else []), "--json")

    def status(self) -> object:
        return self.json("memory", "status", "--json")

    def agent_turn(self, message: str) -> dict:
        """One real turn of the main agent, embedded (no Gateway may be running)."""
        return self.json("agent", "--local", "--agent", "main", "--message", message, "--json")

    def write(self, rel: str, text: str) -> Path:
        """A file of the workspace, as a user or the agent would write it."""
        path = self.workspace / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    @contextmanager
    def gateway(self, ready_within: float = 120):
        """`openclaw gateway run` on this home's loopback port, until the block ends."""
        port = self.port
        log = self.user / f"gateway-{port}.log"
        with open(log, "w") as out:
            proc = subprocess.Popen([self.launcher, "gateway", "run", "--bind", "loopback", "--port", str(port)],
                                    env=self.env(), cwd=str(self.user), stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
        try:
            gw = Gateway(self, port, proc, log)
            gw.wait_ready(ready_within)
            yield gw
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@dataclass
class Gateway:
    home: OpenClawHome
    port: int
    proc: subprocess.Popen
    log: Path

    def wait_ready(self, within: float) -> None:
        started = time.monotonic()
        deadline = started + within
        while time.monotonic() < deadline:
            if "[gateway] ready" in self.log.read_text(errors="replace"):
                self.home.steps.append(Step(("gateway", "run"), time.monotonic() - started))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)       # polling the log for the line that says it is up
        raise OpenClawError(f"the gateway did not come up:\n{self.log.read_text(errors='replace')[-3000:]}")

    def cron_jobs(self) -> list[dict]:
        return self.home.json("cron", "list", "--json")["jobs"]

    def dreaming_job(self) -> dict:
        jobs = [j for j in self.cron_jobs() if j.get("declarationKey") == "memory-core:memory-dreaming-promotion"]
        if len(jobs) != 1:
            raise OpenClawError(f"expected one managed dreaming job, found {len(jobs)}")
        return jobs[0]

    def run_job(self, job_id: str) -> dict:
        out = self.home.json("cron", "run", job_id, "--wait", timeout=600)
        if not out.get("completed") or out.get("status") != "ok":
            raise OpenClawError(f"cron run {job_id} did not finish well: {out}")
        return out

    def agent_turn(self, message: str) -> dict:
        """A turn through the Gateway (the reply pipeline that handles /new)."""
        return self.home.json("agent", "--agent", "main", "--message", message, "--json")

    def tui_message(self, message: str, until: Callable[[str], bool], within: float = 180) -> str:
        """`openclaw tui --message` on a pseudo-terminal, until `until(screen text)` holds: the
        terminal UI sends its first message through the Gateway's chat.send as a client with the
        operator.admin scope, which OpenClaw's reset commands require of a Gateway caller
        (`gateway call chat.send` asks for operator.write only and its /reset is ignored)."""
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
        env = {**self.home.env(), "TERM": "xterm-256color"}
        started = time.monotonic()
        proc = subprocess.Popen([self.home.launcher, "tui", "--session", "main", "--message", message],
                                env=env, cwd=str(self.home.user), stdin=slave, stdout=slave, stderr=slave,
                                start_new_session=True)
        os.close(slave)
        out, screen = b"", ""
        try:
            while not until(screen):
                if time.monotonic() - started > within or proc.poll() is not None:
                    raise OpenClawError(f"openclaw tui --message {message!r} did not get there:\n{screen[-3000:]}")
                if select.select([master], [], [], 0.5)[0]:    # waits for the UI's next output
                    try:
                        out += os.read(master, 65536)
                    except OSError:             # the UI closed its terminal: it has exited
                        continue
                    screen = TERMINAL_CODES.sub("", out.decode("utf-8", "replace"))
            self.home.steps.append(Step(("tui", "--message", message), time.monotonic() - started))
            return screen
        finally:
            os.killpg(proc.pid, signal.SIGTERM)     # its own process group, started above
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            os.close(master)
