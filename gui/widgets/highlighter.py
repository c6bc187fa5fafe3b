"""Markdown highlighting with pygments' lexer, mapped onto QTextCharFormats per block."""

from __future__ import annotations

from pygments.token import Token

from ..qt import QColor, QFont, QPalette, QSyntaxHighlighter, QTextCharFormat


def _formats(dark: bool) -> dict:
    def fmt(colour: str, bold=False, italic=False) -> QTextCharFormat:
        f = QTextCharFormat()
        f.setForeground(QColor(colour))
        if bold:
            f.setFontWeight(QFont.Weight.Bold)
        if italic:
            f.setFontItalic(True)
        return f
    if dark:
        return {Token.Generic.Heading: fmt("#7fb7ff", bold=True), Token.Generic.Subheading: fmt("#7fb7ff", bold=True),
                Token.Keyword: fmt("#e6a85c"), Token.Generic.Strong: fmt("#f0f0f0", bold=True),
                Token.Generic.Emph: fmt("#d0d0d0", italic=True), Token.Literal.String.Backtick: fmt("#9ad58a"),
                Token.Name.Tag: fmt("#c39ae8"), Token.Comment: fmt("#8a8a8a", italic=True)}
    return {Token.Generic.Heading: fmt("#1f4e9c", bold=True), Token.Generic.Subheading: fmt("#1f4e9c", bold=True),
            Token.Keyword: fmt("#a0521e"), Token.Generic.Strong: fmt("#000000", bold=True),
            Token.Generic.Emph: fmt("#333333", italic=True), Token.Literal.String.Backtick: fmt("#2e7d32"),
            Token.Name.Tag: fmt("#6a1b9a"), Token.Comment: fmt("#777777", italic=True)}


class MarkdownHighlighter(QSyntaxHighlighter):
    def __init__(self, document, palette: QPalette | None = None):
        super().__init__(document)
        from pygments.lexers.markup import MarkdownLexer   # here: importing it costs ~60 ms and some MiB
        self.lexer = MarkdownLexer()
        dark = palette is not None and palette.color(QPalette.ColorRole.Base).lightness() < 128
        self.formats = _formats(dark)
        self.tag = QTextCharFormat()
        self.tag.setForeground(QColor("#b8860b" if not dark else "#ffcc66"))
        self.tag.setFontWeight(QFont.Weight.Bold)

    def _format_for(self, ttype):
        while ttype is not None:
            if ttype in self.formats:
                return self.formats[ttype]
            ttype = ttype.parent
        return None

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt name)
        if text:
            for index, ttype, value in self.lexer.get_tokens_unprocessed(text + "\n"):
                fmt = self._format_for(ttype)
                if fmt is not None and value and index < len(text):
                    self.setFormat(index, min(len(value), len(text) - index), fmt)
        # retention tags from the Consolidator stand out
        for tag in ("[permanent]", "[durable]", "[ephemeral]", "[correction]"):
            i = text.find(tag)
            while i >= 0:
                self.setFormat(i, len(tag), self.tag)
                i = text.find(tag, i + 1)
