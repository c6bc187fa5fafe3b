"""Token estimates without a tokenizer dependency.

UTF-8 bytes / 4, rounded up: about 4 characters a token for English prose (the usual figure for
cl100k-style BPE), and close to one token a character for CJK text, whose characters take 3
bytes. An estimate for showing proportions, never for enforcing anything.
"""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    return -(-len(text.encode("utf-8", errors="replace")) // 4)
