"""Helpers for tests (from test_consolidator.py): write_session."""

from __future__ import annotations

from datetime import datetime
from datetime import timedelta
import json


NOW = datetime(2026, 11, 29, 12, 0).astimezone()


def write_session(path, key, n, last_consolidated=0, minutes_ago=30, content=None, meta=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = NOW - timedelta(minutes=minutes_ago + n)
    lines = [json.dumps({"_type": "metadata", "key": key, "created_at": t0.isoformat(), "updated_at": NOW.isoformat(),
                         "metadata": meta or {}, "last_consolidated": last_consolidated})]
    for i in range(n):
        text = content(i) if content else f"message {i} from {'user' if i % 2 == 0 else 'assistant'}"
        lines.append(json.dumps({"role": "user" if i % 2 == 0 else "assistant", "content": text,
                                 "timestamp": (t0 + timedelta(minutes=i + 1)).isoformat()}, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
