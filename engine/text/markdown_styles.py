"""Markdown lexed into a few style kinds ("heading", "code", …) that a view maps to colours.

pygments' lexer modules are imported on the first line lexed, not when this module is imported:
they cost tens of milliseconds that a start-up showing no diff and no editor should not pay.
"""

from __future__ import annotations

# pygments token type names (dotted, as in pygments.token) → the style kind a view colours
KINDS = {"Generic.Heading": "heading", "Generic.Subheading": "heading", "Keyword": "keyword",
         "Generic.Strong": "strong", "Generic.Emph": "emph", "Literal.String.Backtick": "code",
         "Name.Tag": "tag", "Comment": "comment"}

_lexer = None
_kind_of_type: dict = {}        # pygments token type → style kind or None (types are singletons)


def lexer():
    """The shared MarkdownLexer (stateless between calls), created on first use."""
    global _lexer
    if _lexer is None:
        from pygments.lexers.markup import MarkdownLexer
        _lexer = MarkdownLexer()
    return _lexer


def _kind(ttype) -> str | None:
    kind = _kind_of_type.get(ttype, "")
    if kind == "":
        t, kind = ttype, None
        while t is not None and kind is None:      # a subtype takes its nearest styled parent's kind
            kind = KINDS.get(".".join(t))
            t = t.parent
        _kind_of_type[ttype] = kind
    return kind


def styles(text: str) -> list[tuple[int, int, str | None]]:
    """(start, length, kind) runs covering one line without its newline; kind None is plain text.
    Neighbouring runs of one kind are merged, so a view inserts as few pieces as it can."""
    runs: list[tuple[int, int, str | None]] = []
    if not text:
        return runs
    end = len(text)
    for index, ttype, value in lexer().get_tokens_unprocessed(text + "\n"):
        if not value or index >= end:
            continue
        length = min(len(value), end - index)
        kind = _kind(ttype)
        if runs and runs[-1][2] == kind and runs[-1][0] + runs[-1][1] == index:
            start, n, _ = runs[-1]
            runs[-1] = (start, n + length, kind)
        else:
            runs.append((index, length, kind))
    return runs
