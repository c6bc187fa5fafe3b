"""The tabs after the Dashboard, built when first shown: until then a tab holds an empty
placeholder, and its view's module (with what it imports: pygments, QtCharts, …) is not loaded.
Most sessions open few tabs, so the window paints sooner and idles smaller."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Callable

from ..qt import QTabWidget, QWidget

if TYPE_CHECKING:
    from ..context.worker import JobLanes

# in tab order: (name, title, module in gui.views, class, built with the engine)
TABS = (("history", "History", "history_view", "HistoryView", False),
        ("files", "Files", "files_view", "FilesView", True),
        ("settings", "Settings → Memory", "settings_view", "SettingsView", True),
        ("snapshots", "Snapshots", "snapshots_view", "SnapshotsView", True),
        ("archive", "Archive", "archive_view", "ArchiveView", True),
        ("runs", "Dream runs", "runs_view", "RunsView", True),
        ("lint", "Lint", "lint_view", "LintView", True),
        ("prompt", "Prompt", "prompt_view", "PromptView", False),
        ("charts", "Charts", "charts_view", "ChartsView", True))
# View menu keys of the Dashboard and these tabs, in tab order: the digit row from left to right,
# so the tenth tab (Charts) is Ctrl+0 (issue 25.12: "Ctrl+10" is no key)
TAB_KEYS = tuple(f"Ctrl+{digit}" for digit in "1234567890")


class TabViews:
    """Placeholders in `tabs` for every view of TABS; `get(name)` builds one and swaps it in at
    its place, then calls on_built(name, view) (the window wires its signals and hands it data).
    `engine` may come later (the window's frame paints first): no view is built before it does."""

    def __init__(self, tabs: QTabWidget, engine: JobLanes | None, on_built: Callable[[str, QWidget], None]):
        self.tabs, self.engine, self.on_built = tabs, engine, on_built
        self._views: dict[str, QWidget] = {}
        self._holders: dict[str, QWidget] = {}
        for name, title, *_ in TABS:
            holder = self._holders[name] = QWidget()
            holder.setObjectName(f"unbuilt:{name}")
            tabs.addTab(holder, title)
        # connected before anyone else's slot: they see the real view at the shown index
        tabs.currentChanged.connect(self._shown)

    def built(self, name: str) -> bool:
        return name in self._views

    def view(self, name: str) -> QWidget | None:
        """The view if it is built (None: not yet), without building it."""
        return self._views.get(name)

    def get(self, name: str) -> QWidget:
        view = self._views.get(name)
        return view if view is not None else self._build(name)

    def _shown(self, index: int) -> None:
        name = next((n for n, h in self._holders.items() if self.tabs.widget(index) is h), None)
        if name is not None:
            self._build(name)

    def _build(self, name: str) -> QWidget:
        _name, _title, module, cls, with_engine = next(t for t in TABS if t[0] == name)
        kind = getattr(import_module(f"..views.{module}", __package__), cls)
        view = kind(self.engine) if with_engine else kind()
        self._views[name] = view
        swap_tab(self.tabs, self._holders.pop(name), view)
        self.on_built(name, view)
        return view


def swap_tab(tabs: QTabWidget, holder: QWidget, view: QWidget) -> None:
    """`view` in the place (and under the title) of the placeholder `holder`, which goes."""
    index, current = tabs.indexOf(holder), tabs.currentIndex()
    view.resize(holder.size())     # the tab's size from the start: a splitter restored now keeps its panes
    blocked = tabs.blockSignals(True)     # the same tab stays current: nothing to announce
    try:
        title = tabs.tabText(index)
        tabs.removeTab(index)
        tabs.insertTab(index, view, title)
        tabs.setCurrentIndex(current)
    finally:
        tabs.blockSignals(blocked)
    holder.deleteLater()


class LazyTab:
    """`window.history` and the like: the view, built on first access."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, window, owner=None):
        return self if window is None else window.views.get(self.name)
