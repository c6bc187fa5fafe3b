"""The wheel a user installs (issue 16): one import namespace, dreamdesk, with the resources in it,
and a first start from it that copies the demo and shows the window (not the editable install of
the checkout: the wheel is built, installed into a folder of its own and started from there)."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

from dreamdesk.engine.desktop.desktop_files import DESKTOP_ID

# what the build reads (packaging/: MANIFEST.in grafts it into the sdist)
BUILD_INPUTS = ("pyproject.toml", "README.md", "MANIFEST.in", "dreamdesk", "engine", "gui", "resources", "packaging")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built offline from a copy of the checkout (a build writes build/ and
    *.egg-info next to the sources)."""
    out = tmp_path_factory.mktemp("wheel")
    src = out / "src"
    src.mkdir()
    for name in BUILD_INPUTS:
        copy = shutil.copytree if (REPO / name).is_dir() else shutil.copy2
        copy(REPO / name, src / name, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                         if (REPO / name).is_dir() else {}))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "-q", "-w", str(out), str(src)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (built,) = out.glob("dreamdesk-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The wheel installed into a folder of its own (its dependencies are the test venv's)."""
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target",
                           str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target


def test_the_wheel_holds_one_namespace_with_its_resources(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"dreamdesk", wheel.name.split("-py3")[0] + ".dist-info"}, tops   # no top-level engine/ or gui/
    for needed in ("dreamdesk/__main__.py", "dreamdesk/engine/cli.py", "dreamdesk/gui/app/launcher.py",
                   "dreamdesk/resources/demo/workspace/memory/.cursor",            # dotfiles too
                   "dreamdesk/resources/demo/workspace/memory/.dream_cursor",
                   "dreamdesk/resources/demo-history/manifest.json", "dreamdesk/resources/icons/dreamdesk.png",
                   # what `dreamdesk install-desktop` installs
                   "dreamdesk/resources/desktop/dreamdesk.desktop", "dreamdesk/resources/icons/dreamdesk.svg",
                   "dreamdesk/resources/desktop/io.github.dreamdesk.Dreamdesk.metainfo.xml",
                   "dreamdesk/resources/icons/16x16/dreamdesk.png", "dreamdesk/resources/icons/256x256/dreamdesk.png"):
        assert needed in names
    # every module of the checkout is in it (a package missing from pyproject.toml's list would not be)
    for folder in ("engine", "gui"):
        for py in (REPO / folder).rglob("*.py"):
            assert f"dreamdesk/{py.relative_to(REPO).as_posix()}" in names, py
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "dreamdesk = dreamdesk.gui.app.launcher:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


# `python -m dreamdesk` from the installed wheel, watched until the demo it copied has been read
FIRST_START = """
import json, os, runpy, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])

def check():
    wins = [w for w in app.topLevelWidgets() if w.objectName() == "DreamdeskMainWindow"]
    if not wins or wins[0].state is None:
        QTimer.singleShot(20, check)
        return
    win = wins[0]
    import dreamdesk.engine, dreamdesk.gui
    print(json.dumps({"engine": dreamdesk.engine.__file__, "gui": dreamdesk.gui.__file__,
                      "workspace": str(win.ws.root), "shown": win.isVisible(),
                      "gauges": len(win.dashboard.gauges), "icon": not app.windowIcon().isNull(),
                      "desktop_file": app.desktopFileName()}), flush=True)
    os._exit(0)

QTimer.singleShot(0, check)
sys.argv = ["dreamdesk"]
runpy.run_module("dreamdesk", run_name="__main__")
"""


def _env(installed: Path, home: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(installed), QT_QPA_PLATFORM="offscreen",
                XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"))


def test_a_first_start_from_the_wheel_copies_the_demo_and_shows_it(installed, tmp_path):
    proc = subprocess.run([sys.executable, "-c", FIRST_START], capture_output=True, text=True, timeout=120,
                          env=_env(installed, tmp_path), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["engine"].startswith(str(installed)) and seen["gui"].startswith(str(installed))
    demo = tmp_path / "data" / "dreamdesk" / "demo"
    assert seen["workspace"] == str(demo / "workspace") and seen["shown"] and seen["gauges"] >= 3
    assert seen["icon"]                                     # found in the installed resources
    assert f"{seen['desktop_file']}.desktop" == DESKTOP_ID  # the entry install-desktop installs
    assert (demo / "workspace" / "memory" / ".cursor").is_file() and (demo / "workspace" / ".git").is_dir()
    # and the command line, from the same install, on the copy it made
    status = subprocess.run([sys.executable, "-m", "dreamdesk", "status", str(demo), "--json"], capture_output=True,
                            text=True, timeout=120, env=_env(installed, tmp_path), cwd=str(tmp_path))
    assert status.returncode == 0, status.stderr
    assert {f["path"] for f in json.loads(status.stdout)["files"]} >= {"USER.md", "memory/MEMORY.md"}


def test_the_menu_entry_installed_from_the_wheel_starts_that_install(installed, tmp_path):
    """A folder install nobody put on sys.path: the entry must say where it is, since a desktop
    session has no PYTHONPATH."""
    proc = subprocess.run([sys.executable, "-m", "dreamdesk", "install-desktop", "--json"], capture_output=True,
                          text=True, timeout=120, env=_env(installed, tmp_path), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    entry = Path(json.loads(proc.stdout)["installed"][0])
    assert entry == tmp_path / "data" / "applications" / "dreamdesk.desktop"
    exec_line = next(line for line in entry.read_text().splitlines() if line.startswith("Exec="))
    assert exec_line == f"Exec=env PYTHONPATH={installed} {sys.executable} -P -m dreamdesk"
    session = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run(exec_line[5:].split()[:-2] + ["-c", "import dreamdesk; print(dreamdesk.__file__)"],
                           capture_output=True, text=True, timeout=120, env=session, cwd=str(tmp_path))
    assert where.stdout.strip() == str(installed / "dreamdesk" / "__init__.py"), where.stderr
