"""What nanobot 0.3.5's own config loader accepts for the keys it shares with the contract
(pydantic, nanobot/config/schema.py: DreamConfig and AgentDefaults): its loader refuses to start on
anything else. Dreamdesk's own range for each (engine/home/config.py, the settings marked shared)
lies inside these, so nothing Dreamdesk writes stops nanobot from starting
(tests/engine/home/test_config.py holds it to that); the rules give the words when a
value in the file, or one typed, is one nanobot itself would refuse."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class AssistantRule:
    """What nanobot 0.3.5's own config schema (pydantic, nanobot/config/schema.py) accepts for a
    key: its loader refuses to start on anything else. Only the shapes the table needs."""

    kind: str                     # bool | int | str
    minimum: int | None = None

    def describe(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "str":
            return "a string"
        return "a whole number" + (f" ≥ {self.minimum}" if self.minimum is not None else "")

    def check(self, value: Any) -> str | None:
        """None when nanobot's loader takes `value`. pydantic's lax mode, as nanobot runs it:
        true/false also as 0/1 and words like "yes"; whole numbers also as 3.0, "3" or true."""
        if self.kind == "str":
            return None if isinstance(value, str) else "must be a string"
        if self.kind == "bool":
            if isinstance(value, bool) or (isinstance(value, (int, float)) and value in (0, 1)):
                return None
            if isinstance(value, str) and value.strip().lower() in _PYDANTIC_BOOL_WORDS:
                return None
            return "must be true or false"
        number = value
        if isinstance(value, str):
            try:
                number = float(value.strip()) if not value.strip().lstrip("+-").isdigit() else int(value.strip())
            except ValueError:
                return "must be " + self.describe()
        if not isinstance(number, (int, float)):
            return "must be " + self.describe()
        if isinstance(number, float) and not (math.isfinite(number) and number.is_integer()):
            return "must be " + self.describe()
        if self.minimum is not None and number < self.minimum:
            return "must be " + self.describe()
        return None


_PYDANTIC_BOOL_WORDS = {"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"}

_D = "agents.defaults"
_DREAM = f"{_D}.dream"
_BOOL, _STR = AssistantRule("bool"), AssistantRule("str")
_INT, _INT0, _INT1 = AssistantRule("int"), AssistantRule("int", 0), AssistantRule("int", 1)
RULES: dict[str, AssistantRule] = {
    f"{_DREAM}.enabled": _BOOL,
    f"{_DREAM}.intervalH": _INT1,                 # interval_h: int = Field(default=2, ge=1)
    f"{_D}.idleCompactAfterMinutes": _INT0,       # session_ttl_minutes (its alias), int ge=0
    f"{_D}.contextWindowTokens": _INT,
    f"{_D}.maxTokens": _INT,
    f"{_D}.model": _STR,
    f"{_D}.provider": _STR,
}


def refusal_note(path: str, value: Any) -> str | None:
    """The words when nanobot's own loader would refuse `value` for the key at `path`."""
    rule = RULES.get(path)
    if rule is None or rule.check(value) is None:
        return None
    return f"nanobot refuses to start on it: it takes {rule.describe()}"
