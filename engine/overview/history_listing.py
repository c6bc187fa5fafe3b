"""history.jsonl as `dreamdesk history` lists it: in file order, read block by block, each
entry with whether the next chat's prompt carries it; memory stays flat in the file's size."""

from __future__ import annotations

from collections import deque

from ..home.history import BadLine, History, HistoryEntry, iter_history
from ..core.problems import Problem
from ..assistants.prompt import PENDING_MAX_ENTRIES, in_prompt_cursors
from ..home.workspace import Workspace


class Listing:
    """Iterate for (entry or unreadable line, in the prompt?); `problems` fills as it goes.

    Only the newest PENDING_MAX_ENTRIES pending entries can be in the prompt (select_pending
    looks no further back), so only those, and what lies between them, wait for the end of the
    file, where the prompt is built from them as from the whole history."""

    def __init__(self, ws: Workspace, dream_cursor: int):
        self.ws = ws
        self.dream = dream_cursor
        self.problems: list[Problem] = []

    def __iter__(self):
        window: deque[HistoryEntry | BadLine] = deque()
        waiting = 0                                       # pending entries in the window
        for item in iter_history(self.ws.history_path):
            kind = type(item)
            if kind is Problem:
                self.problems.append(item)
                continue
            if kind is HistoryEntry and item.cursor > self.dream:
                waiting += 1
            elif not window:
                yield item, False
                continue
            window.append(item)
            while waiting > PENDING_MAX_ENTRIES:
                early = window.popleft()
                waiting -= type(early) is HistoryEntry and early.cursor > self.dream
                yield early, False
        last = History([x for x in window if type(x) is HistoryEntry])
        shown = in_prompt_cursors(self.ws, last, self.dream)
        for item in window:
            yield item, type(item) is HistoryEntry and item.cursor in shown
