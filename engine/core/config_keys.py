"""config.json's keys as the assistant's loader takes them: each dotted part in camelCase or in
snake_case. A leaf module (no imports of its own) so that the clock, the config model and the
model resolver read a key the same way without importing each other."""

from __future__ import annotations

import re
from typing import Any


def snake(name: str) -> str:
    """camelCase -> snake_case ("maxTokens" -> "max_tokens")."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def lookup(raw: Any, path: str) -> tuple[bool, Any, str]:
    """(found, value, the path as spelled in `raw`), walking camelCase or snake_case spellings."""
    node = raw
    spelled: list[str] = []
    for part in path.split("."):
        if not isinstance(node, dict):
            return False, None, ".".join(spelled + [part])
        for cand in (part, snake(part)):
            if cand in node:
                node = node[cand]
                spelled.append(cand)
                break
        else:
            return False, None, ".".join(spelled + [part])
    return True, node, ".".join(spelled)
