"""The shape of the code, read from its imports (issue 27): the engine never imports Qt or the
GUI; no import cycle; no private name imported from another module; nothing outside
engine/assistants names an assistant's kind. The lists of allowed exceptions are empty; an
entry added to one must say why and how it goes, and removing it again fails until it is gone."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {"engine": "dreamdesk.engine", "gui": "dreamdesk.gui"}

# Each allowed cycle, as its modules; why it is there and how it goes. (None today.)
KNOWN_CYCLES: set[frozenset[str]] = set()
# (importing module, imported module, name): none today
KNOWN_PRIVATE: set[tuple[str, str, str]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for folder, dotted in PACKAGES.items():
        for p in (REPO / folder).rglob("*.py"):
            parts = p.relative_to(REPO / folder).with_suffix("").parts
            name = ".".join((folder, *parts))
            out[name.removesuffix(".__init__")] = p
    return out


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(tree: ast.AST):
    """Every import statement, at any depth, but those under `if TYPE_CHECKING:`."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if _type_checking(node):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _target(mods: dict[str, Path], here: str, node: ast.ImportFrom) -> str:
    if not node.level:
        module = node.module or ""
        for folder, dotted in PACKAGES.items():
            if module == dotted or module.startswith(dotted + "."):
                return folder + module[len(dotted):]
        return module
    base = here.split(".") if mods[here].name == "__init__.py" else here.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@cache          # (read once for all the tests here)
def _graph() -> tuple[dict[str, set[str]], list[tuple[str, str, str]], dict[str, set[str]]]:
    """(module -> modules it imports, private names imported across modules, module -> other imports)."""
    mods = _modules()
    edges: dict[str, set[str]] = defaultdict(set)
    private, outside = [], defaultdict(set)
    for here, path in mods.items():
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for a in node.names:
                    outside[here].add(a.name)
                    hit = _target(mods, here, ast.ImportFrom(module=a.name, names=[], level=0))
                    if hit in mods and hit != here:
                        edges[here].add(hit)
                continue
            module = _target(mods, here, node)
            outside[here].add(module)
            for a in node.names:
                sub = f"{module}.{a.name}"
                hit = sub if sub in mods else module if module in mods else None
                if hit and hit != here:
                    edges[here].add(hit)
                if hit == module and a.name.startswith("_") and not a.name.startswith("__"):
                    private.append((here, module, a.name))
    return edges, private, outside


def _cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    for root in sorted(set(edges) | {t for ts in edges.values() for t in ts}):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def test_no_import_cycle_but_the_known_ones():
    edges, _private, _outside = _graph()
    assert set(_cycles(edges)) == KNOWN_CYCLES


def test_the_engine_never_imports_qt_or_the_gui():
    edges, _private, outside = _graph()
    bad = {m: sorted(t for t in outside[m] if t.split(".")[0] in ("PySide6", "shiboken6") or t.startswith("gui"))
           for m in outside if m.startswith("engine")}
    assert {m: t for m, t in bad.items() if t} == {}


def test_no_private_name_is_imported_from_another_module_but_the_known_ones():
    _edges, private, _outside = _graph()
    assert set(private) == KNOWN_PRIVATE


def test_the_cycle_finder_finds_a_cycle():
    """(the test above could not fail if it could not)"""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]


ASSISTANT_KINDS = {"jenny", "nanobot-0.3", "openclaw"}         # engine/assistants' kinds, as strings
KIND_NAMES = {"JENNY", "NANOBOT", "OPENCLAW", "LABELS", "NAMES", "is_nanobot"}


def _kind_branches() -> list[str]:
    """Places outside engine/assistants that ask which assistant it is instead of asking the
    Assistant what it does: its kind constants, an is_<kind> flag, a kind spelled as a string."""
    out = []
    for name, path in _modules().items():
        if name == "engine.assistants" or name.startswith("engine.assistants."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            hit = (isinstance(node, ast.Attribute) and node.attr in KIND_NAMES
                   or isinstance(node, ast.alias) and node.name in KIND_NAMES
                   or isinstance(node, ast.Constant) and node.value in ASSISTANT_KINDS)
            if hit:
                out.append(f"{name}:{getattr(node, 'lineno', '?')}")
    return out


def test_nothing_outside_the_assistants_package_branches_on_the_assistants_kind():
    """What an assistant does with its home is asked of engine/assistants (Assistant's methods:
    build_prompt, history_in_prompt, uses_model_presets, repository_files, is_placeholder…)."""
    assert _kind_branches() == []


# The engine's layers, lowest first: a module may import its own layer and those below it, never
# one above (docs/architecture.md draws them). engine/__init__ and engine/cli sit on top of all.
ENGINE_LAYERS = ["core", "text", "disk", "home", "assistants", "llm", "versions", "recovery", "dream", "lint",
                 "jobs", "desktop", "overview", "ops", "cli"]


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "engine" and len(parts) > 1 else None


def _upward_edges(edges: dict[str, set[str]]) -> list[str]:
    rank = {name: i for i, name in enumerate(ENGINE_LAYERS)}
    out = []
    for here, targets in edges.items():
        for there in targets:
            a, b = _layer(here), _layer(there)
            if a in rank and b in rank and rank[b] > rank[a]:
                out.append(f"{here} -> {there}")
    return sorted(out)


def test_each_engine_layer_imports_only_its_own_and_those_below():
    edges, _private, _outside = _graph()
    assert _upward_edges(edges) == []
    assert sorted(p.name for p in (REPO / "engine").iterdir()
                  if p.is_dir() and (p / "__init__.py").exists()) == sorted(set(ENGINE_LAYERS) - {"cli"})


def test_the_layer_check_finds_an_upward_import():
    """(the test above could not fail if it could not)"""
    assert _upward_edges({"engine.core.clock": {"engine.dream.run", "engine.core.rules"}}) == [
        "engine.core.clock -> engine.dream.run"]


# The GUI's direction: the window is the shell on top; the context, the operations and the views
# never reach up into it (nor into the app's start-up), so each can be built and tested alone.
GUI_BELOW_THE_WINDOW = ("gui.context", "gui.operations", "gui.views", "gui.models", "gui.widgets")


def _into_the_shell(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{here} -> {there}" for here, targets in edges.items() for there in targets
                  if here.startswith(GUI_BELOW_THE_WINDOW)
                  and (there.startswith("gui.window") or there in ("gui.app.app", "gui.app.launcher")))


def test_no_gui_module_below_the_window_imports_the_window():
    edges, _private, _outside = _graph()
    assert _into_the_shell(edges) == []
    assert _into_the_shell({"gui.views.lint_view": {"gui.window.main_window"}}) == [
        "gui.views.lint_view -> gui.window.main_window"]
