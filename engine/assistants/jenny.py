"""A Jenny-style home: the contract's own (../shared/spec/). Every answer is base.Assistant's
default; this adapter only names it and says why a home is read this way."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Assistant


@dataclass(frozen=True, slots=True)
class Jenny(Assistant):
    kind = "jenny"
    label = "Jenny-style (Dreamdesk's contract)"
    name = "Jenny"
