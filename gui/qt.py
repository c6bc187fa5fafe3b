"""The one place Qt is imported from (so a binding change touches one file)."""

import sys

import PySide6

# A half-uninstalled PySide6 (its __init__.py is shared by several wheels) imports as a bare
# namespace package: Qt's plugin paths are never set up and failures come later and stranger.
if not hasattr(PySide6, "__version__"):
    raise ImportError("PySide6 is installed incompletely (PySide6/__init__.py is missing); "
                      "reinstall it: pip install --force-reinstall 'pyside6>=6.8,<6.12'")

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401
from PySide6.QtCore import (QAbstractTableModel, QByteArray, QModelIndex, QObject, QSettings,  # noqa: F401
                            QSortFilterProxyModel, Qt, QThread, QTimer, QUrl, Signal, Slot)
from PySide6.QtGui import (QAction, QColor, QFont, QFontDatabase, QKeySequence, QPainter, QPalette,  # noqa: F401
                           QSyntaxHighlighter, QTextCharFormat)
from PySide6.QtWidgets import (QApplication, QCheckBox, QComboBox, QDialog, QDialogButtonBox,  # noqa: F401
                               QDoubleSpinBox, QFileDialog, QFormLayout, QFrame, QGridLayout, QGroupBox,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QMainWindow, QMessageBox, QPlainTextEdit, QProgressBar, QPushButton,
                               QScrollArea, QSizePolicy, QSpinBox, QSplitter, QStatusBar, QTableView,
                               QTabWidget, QTextBrowser, QToolBar, QVBoxLayout, QWidget)
from PySide6.QtCore import QEvent  # noqa: E402,F401  (history view)
from PySide6.QtWidgets import QAbstractItemView  # noqa: E402,F401  (history view)
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem  # noqa: E402,F401
from PySide6.QtCore import QPoint, QRect, QSize  # noqa: E402,F401  (snapshots view)
from PySide6.QtGui import (QTextBlockFormat, QTextCursor, QTextLength,  # noqa: E402,F401
                           QTextOption, QTextTableCellFormat, QTextTableFormat)
from PySide6.QtWidgets import QSystemTrayIcon  # noqa: E402,F401  (the watch's notification)
from PySide6.QtWidgets import (QButtonGroup, QMenu, QStackedWidget, QStyle,  # noqa: E402,F401
                               QStyledItemDelegate, QStyleOptionViewItem, QToolButton)


def _no_source_scan() -> None:
    """PySide6 reads the whole source of every module imported after it (kept in linecache for
    the life of the process) only to learn whether it mentions "PySide6", for `from __feature__
    import …`, which Dreamdesk never uses: about 13 MiB and 50 ms at start. Answered by name
    instead; a PySide6 without this hook is left as it is."""
    feature = sys.modules.get("PySide6.support.feature")
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        feature._mod_uses_pyside = lambda module: getattr(module, "__name__", "").startswith(("PySide6", "gui"))


_no_source_scan()
