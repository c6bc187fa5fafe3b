"""The loopback model OpenClaw talks to while the homes are built: tests/helpers/llm_server.py's scripted
server, answering by what OpenClaw asks. It records every chat request, so the system prompt a
real turn received can be read back (the prompt oracle), and answers dreaming's two kinds of
call: a diary entry, and the consolidation JSON deciding per candidate added / merged /
superseded (the rules a home's recipe sets for the next sweep)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass

from helpers.llm_server import ScriptedLLMServer, turn

DIARY_SYSTEM = "You are keeping a dream diary."
CONSOLIDATE_SYSTEM = "Choose how to incorporate each supplied candidate into MEMORY.md."
PROJECT_CONTEXT = "# Project Context"


@dataclass(frozen=True)
class Rule:
    """A candidate whose text contains `candidate` is `action` ("merged" or "superseded") over
    the entry of MEMORY.md (as OpenClaw sends it) that contains `prior`."""
    candidate: str
    action: str
    prior: str


def text_of(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def system_prompt(body: dict) -> str:
    return "".join(text_of(m) for m in body.get("messages", []) if m.get("role") == "system")


def kind_of(body: dict) -> str:
    """What OpenClaw asked: 'diary', 'consolidation', 'turn' (an agent turn with the workspace
    files in its system prompt) or 'other'."""
    system = system_prompt(body)
    if system.startswith(DIARY_SYSTEM):
        return "diary"
    if system.startswith(CONSOLIDATE_SYSTEM):
        return "consolidation"
    return "turn" if PROJECT_CONTEXT in system else "other"


def operations(payload: dict, rules: list[Rule]) -> list[dict]:
    """One operation per candidate: the first rule whose candidate text matches, else added."""
    entries = [line for line in payload.get("currentMemory", "").splitlines() if line.startswith("- ")]
    ops = []
    for cand in payload.get("candidates", []):
        op = {"candidateKey": cand["key"], "action": "added", "priorEntries": []}
        for rule in rules:
            prior = [e for e in entries if rule.prior in e]
            if rule.candidate in cand.get("text", "") and prior:
                op = {"candidateKey": cand["key"], "action": rule.action, "priorEntries": prior[:1]}
                break
        ops.append(op)
    return ops


class OpenClawModel:
    """The scripted server with OpenClaw's calls answered; `requests` holds (kind, body) of each
    chat call in order."""

    def __init__(self, reply: str = "Noted.", model_id: str = "scripted-model"):
        self.reply = reply
        self.rules: list[Rule] = []
        self.requests: list[tuple[str, dict]] = []
        self.diaries = 0
        self._lock = threading.Lock()
        self.server = ScriptedLLMServer(default=self._answer)
        self.server.model_id = model_id

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> "OpenClawModel":
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def _answer(self, body: dict) -> dict:
        kind = kind_of(body)
        with self._lock:
            self.requests.append((kind, body))
            if kind == "diary":
                self.diaries += 1
                return turn(content=f"Diary entry {self.diaries}: the notes settled like dust in lamplight.")
            if kind == "consolidation":
                payload = json.loads(text_of([m for m in body["messages"] if m.get("role") == "user"][-1]))
                return turn(content=json.dumps({"operations": operations(payload, self.rules)}))
            return turn(content=self.reply)

    def prompts(self, kind: str = "turn") -> list[str]:
        """The system prompts of the recorded calls of one kind, oldest first."""
        with self._lock:
            return [system_prompt(body) for k, body in self.requests if k == kind]

    def bodies(self, kind: str = "turn") -> list[dict]:
        """The recorded chat requests of one kind, oldest first."""
        with self._lock:
            return [body for k, body in self.requests if k == kind]
