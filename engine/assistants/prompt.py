"""What a new chat sees: the parts of the system prompt built from memory, as the assistant
that owns the home builds it (engine/assistants: a Jenny-style home as spec section 7 says, a
nanobot 0.3.x home as nanobot's ContextBuilder does, an OpenClaw home's
Project Context as OpenClaw 2026.9.x sends it). The pieces are engine/assistants/prompt_parts.py."""

from __future__ import annotations

from . import Assistant, assistant_of
from ..home.history import History
from .prompt_parts import (PENDING_MAX_ENTRIES, PENDING_MAX_TOKENS, PromptPart, PromptPreview,  # noqa: F401
                           has_real_content, render_entry, select_pending, wikis_block)
from ..home.workspace import Workspace


def build_prompt(ws: Workspace, history: History, dream_cursor: int,
                 assistant: Assistant | None = None, new_session: bool = False) -> PromptPreview:
    """The preview for the assistant that owns the home (detected when not given); `new_session`:
    a chat opened with /new (OpenClaw leads its first message with recent daily notes)."""
    assistant = assistant or assistant_of(ws)
    pv = assistant.build_prompt(ws, history, dream_cursor, new_session=new_session)
    pv.assistant = assistant
    return pv


def in_prompt_cursors(ws: Workspace, history: History, dream_cursor: int) -> set[int]:
    """The pending history cursors the next chat's prompt carries (none for nanobot)."""
    return {e.cursor for e in build_prompt(ws, history, dream_cursor).pending_shown}
