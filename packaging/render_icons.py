"""Render the PNG sizes of Dreamdesk's icon from its SVG, once, by hand after the SVG changes:

    QT_QPA_PLATFORM=offscreen python packaging/render_icons.py

Writes resources/icons/NxN/dreamdesk.png for each size `dreamdesk install-desktop` installs into
the hicolor theme, and resources/icons/dreamdesk.png (256 px, the window's icon). The output is
committed: installing must not need Qt's SVG renderer."""

import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from dreamdesk.engine.desktop.desktop_files import ICON_SIZES

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"


def render(svg: QSvgRenderer, size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    svg.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def main() -> int:
    svg = QSvgRenderer(str(ICONS / "dreamdesk.svg"))
    if not svg.isValid():
        print(f"render_icons: {ICONS / 'dreamdesk.svg'} is not an SVG Qt can draw", file=sys.stderr)
        return 1
    targets = [(n, ICONS / f"{n}x{n}" / "dreamdesk.png") for n in ICON_SIZES] + [(256, ICONS / "dreamdesk.png")]
    for size, path in targets:
        path.parent.mkdir(exist_ok=True)
        if not render(svg, size).save(str(path), "PNG"):
            print(f"render_icons: could not write {path}", file=sys.stderr)
            return 1
        print(f"wrote {path.relative_to(ICONS.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
