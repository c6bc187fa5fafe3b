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
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem  # noqa: E402,F401
from PySide6.QtCore import QPoint, QRect, QSize  # noqa: E402,F401  (snapshots view)
from PySide6.QtGui import (QTextBlockFormat, QTextCursor, QTextLength,  # noqa: E402,F401
                           QTextOption, QTextTableCellFormat, QTextTableFormat)
from PySide6.QtWidgets import (QButtonGroup, QMenu, QStackedWidget, QStyle,  # noqa: E402,F401
                               QStyledItemDelegate, QStyleOptionViewItem, QToolButton)
