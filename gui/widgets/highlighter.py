"""Markdown highlighting: engine.markdown_styles' style kinds mapped onto QTextCharFormats per block
(pygments' lexer is imported by the first block highlighted, not by importing this module)."""

from __future__ import annotations

from dreamdesk.engine.text.markdown_styles import styles

from ..qt import QColor, QFont, QPalette, QSyntaxHighlighter, QTextCharFormat


def kind_formats(dark: bool) -> dict[str, QTextCharFormat]:
    """The format of each markdown style kind, for a light or a dark palette."""
    def fmt(colour: str, bold=False, italic=False) -> QTextCharFormat:
        f = QTextCharFormat()
        f.setForeground(QColor(colour))
        if bold:
            f.setFontWeight(QFont.Weight.Bold)
        if italic:
            f.setFontItalic(True)
        return f
    if dark:
        return {"heading": fmt("#7fb7ff", bold=True), "keyword": fmt("#e6a85c"), "strong": fmt("#f0f0f0", bold=True),
                "emph": fmt("#d0d0d0", italic=True), "code": fmt("#9ad58a"), "tag": fmt("#c39ae8"),
                "comment": fmt("#8a8a8a", italic=True)}
    return {"heading": fmt("#1f4e9c", bold=True), "keyword": fmt("#a0521e"), "strong": fmt("#000000", bold=True),
            "emph": fmt("#333333", italic=True), "code": fmt("#2e7d32"), "tag": fmt("#6a1b9a"),
            "comment": fmt("#777777", italic=True)}


class MarkdownHighlighter(QSyntaxHighlighter):
    def __init__(self, document, palette: QPalette | None = None):
        super().__init__(document)
        dark = palette is not None and palette.color(QPalette.ColorRole.Base).lightness() < 128
        self.formats = kind_formats(dark)
        self.tag = QTextCharFormat()
        self.tag.setForeground(QColor("#b8860b" if not dark else "#ffcc66"))
        self.tag.setFontWeight(QFont.Weight.Bold)

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt name)
        for start, length, kind in styles(text):
            if kind is not None:
                self.setFormat(start, length, self.formats[kind])
        # retention tags from the Consolidator stand out
        for tag in ("[permanent]", "[durable]", "[ephemeral]", "[correction]"):
            i = text.find(tag)
            while i >= 0:
                self.setFormat(i, len(tag), self.tag)
                i = text.find(tag, i + 1)
