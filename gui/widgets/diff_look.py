"""How a diff looks in one palette and font: its colours and the few dozen text formats every
document of a DiffView shares (thousands of pieces, a handful of formats, each built once)."""

from __future__ import annotations

from dataclasses import dataclass

from ..qt import QColor, QFont, QFontMetrics, QFontMetricsF, QPalette, QTextBlockFormat, QTextCharFormat, QTextOption
from .highlighter import kind_formats


@dataclass
class DiffColours:
    dark: bool
    text: QColor
    dim: QColor
    link: QColor
    add_bg: QColor
    del_bg: QColor
    add_mark: QColor
    del_mark: QColor
    add_sign: QColor
    del_sign: QColor
    hunk_bg: QColor
    file_bg: QColor
    filler: QColor

    @classmethod
    def from_palette(cls, pal: QPalette) -> "DiffColours":
        base = pal.color(QPalette.ColorRole.Base)
        text = pal.color(QPalette.ColorRole.Text)
        dark = base.lightness() < 128

        def mix(a: QColor, b: QColor, t: float) -> QColor:
            return QColor(round(a.red() + (b.red() - a.red()) * t), round(a.green() + (b.green() - a.green()) * t),
                          round(a.blue() + (b.blue() - a.blue()) * t))
        if dark:
            return cls(True, text, mix(text, base, 0.45), QColor("#8ab4f8"),
                       QColor("#1d3a27"), QColor("#45242a"), QColor("#2e6b40"), QColor("#7d3039"),
                       QColor("#7ee2a0"), QColor("#ff9b9b"), QColor("#1d2f47"), mix(base, text, 0.10),
                       mix(base, text, 0.05))
        return cls(False, text, mix(text, base, 0.5), pal.color(QPalette.ColorRole.Link),
                   QColor("#e6ffec"), QColor("#ffebe9"), QColor("#abf2bc"), QColor("#ffc0bb"),
                   QColor("#1a7f37"), QColor("#cf222e"), QColor("#ddf4ff"), mix(base, text, 0.07),
                   mix(base, text, 0.035))


class DiffLook:
    """The formats of a diff's pieces for one palette and font, each built on first use."""

    def __init__(self, palette: QPalette, font: QFont, metrics: QFontMetrics):
        self.colours = c = DiffColours.from_palette(palette)
        self.font = font
        self._metrics = metrics
        self._kindfmts = kind_formats(c.dark)
        self._cache: dict = {}
        self.base = QTextCharFormat()
        self.base.setForeground(c.text)
        # fractional: the advances of a half's columns add up
        self.advance = max(QFontMetricsF(font).horizontalAdvance("0" * 10) / 10, 1.0)

    def _char(self, key, build):
        fmt = self._cache.get(key)
        if fmt is None:
            fmt = self._cache[key] = build()
        return fmt

    def bg(self, kind: str) -> QColor | None:
        c = self.colours
        return c.add_bg if kind == "+" else c.del_bg if kind == "-" else None

    def dim(self, bg: QColor | None = None) -> QTextCharFormat:
        return self._char(("dim", None if bg is None else bg.rgba()),
                          lambda: _with_bg(self.with_fg(self.colours.dim), bg))

    def with_fg(self, colour: QColor) -> QTextCharFormat:
        f = QTextCharFormat(self.base)
        f.setForeground(colour)
        return f

    def bold(self) -> QTextCharFormat:
        f = QTextCharFormat(self.base)
        f.setFontWeight(QFont.Weight.Bold)
        return f

    def link(self, href: str) -> QTextCharFormat:
        f = QTextCharFormat(self.base)
        f.setAnchor(True)
        f.setAnchorHref(href)
        f.setForeground(self.colours.link)
        f.setFontUnderline(True)
        f.setFontWeight(QFont.Weight.Normal)
        return f

    def plain(self, bg: QColor | None) -> QTextCharFormat:
        return self._char(("plain", None if bg is None else bg.rgba()),
                          lambda: _with_bg(QTextCharFormat(self.base), bg))

    def sign(self, kind: str, bg: QColor | None = None) -> QTextCharFormat:
        def build():
            f = self.with_fg(self.colours.add_sign if kind == "+" else self.colours.del_sign)
            f.setFontWeight(QFont.Weight.Bold)
            return _with_bg(f, bg)
        return self._char(("sign", kind, bg is not None), build)

    def span(self, style: str | None, changed: bool, kind: str, bg: QColor | None) -> QTextCharFormat:
        key = ("span", style, changed, kind, bg is not None)
        fmt = self._cache.get(key)              # the hot path: looked up once per piece
        if fmt is not None:
            return fmt

        def build():
            f = _with_bg(QTextCharFormat(self.base), bg)
            if style in self._kindfmts:
                f.merge(self._kindfmts[style])
            if changed:
                f.setBackground(self.colours.add_mark if kind == "+" else self.colours.del_mark)
            return f
        return self._char(key, build)

    def hunk_block(self) -> QTextBlockFormat:
        return self._char("hunk-block", lambda: _block_fmt(self.colours.hunk_bg, top=2))

    def hanging(self, kind: str, prefix_chars: int) -> QTextBlockFormat:
        """A unified line's block: wrapped lines hang under its text, past the numbers and the sign."""
        return self._char(("line-block", kind, prefix_chars), lambda: _block_fmt(
            self.bg(kind), hang=self._metrics.horizontalAdvance("0" * prefix_chars)))

    def split_block(self, half_width: float) -> QTextBlockFormat:
        """A side-by-side row: the newer half at a tab stop mid-width, the second tab at the edge."""
        def build():
            bf = QTextBlockFormat()
            bf.setNonBreakableLines(True)           # each half wraps itself; Qt must not wrap the row
            bf.setTabPositions([QTextOption.Tab(half_width, QTextOption.TabType.LeftTab),
                                QTextOption.Tab(2 * half_width, QTextOption.TabType.LeftTab)])
            return bf
        return self._char(("split-block", half_width), build)

    def split_cols(self, half_width: float, digits: int) -> int:
        """Text columns in one half, after its number and sign."""
        return int(half_width / self.advance) - digits - 5


def _with_bg(f: QTextCharFormat, bg: QColor | None) -> QTextCharFormat:
    if bg is not None:
        f.setBackground(bg)
    return f


def _block_fmt(bg: QColor | None, top: int = 0, hang: int = 0) -> QTextBlockFormat:
    bf = QTextBlockFormat()
    if bg is not None:
        bf.setBackground(bg)
    if top:
        bf.setTopMargin(top)
    if hang:
        bf.setLeftMargin(hang)
        bf.setTextIndent(-hang)
    return bf
