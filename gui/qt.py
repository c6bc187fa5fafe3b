"""The one place Qt is imported from (so a binding change touches one file)."""

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

# PySide6 6.12.0 on CPython 3.11 (measured; history view, tests/test_gui_history.py): every call
# from Python to a Qt method returning void (label.setText, timer.stop, ...) or an invalid
# QVariant (index.data() of an unset role, combo.currentData() of None) drops one reference to
# None. None is immortal from Python 3.12 on, but on 3.11 its count reaches zero after a few
# thousand such calls and the interpreter aborts ("Fatal Python error: none_dealloc"), which also
# makes every pytest run that touches Qt exit 134 after its tests pass. Give None the effectively
# infinite count 3.12 gives it. Remove when PySide6 is fixed or Python >= 3.12 is required.
import sys as _sys  # noqa: E402

if _sys.version_info < (3, 12) and _sys.implementation.name == "cpython":
    import ctypes as _ctypes  # noqa: E402

    _ctypes.c_ssize_t.from_address(id(None)).value += 1 << 40
