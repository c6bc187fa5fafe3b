"""The desktop entry and AppStream metadata (resources/desktop/, installed by `dreamdesk
install-desktop`) pass the freedesktop validators and name things that exist: the console script
the entry starts, the desktop id the metadata launches, the icon in every size it is installed at."""

import tomllib
import xml.etree.ElementTree as ET

import pytest
from conftest import REPO

from dreamdesk.engine.desktop.desktop_files import ICON_SIZES
from helpers.desktop_checks import png_size, valid

DESKTOP_FILES = REPO / "resources" / "desktop"
DESKTOP = DESKTOP_FILES / "dreamdesk.desktop"
METAINFO = DESKTOP_FILES / "io.github.dreamdesk.Dreamdesk.metainfo.xml"
ICONS = REPO / "resources" / "icons"


def desktop_entry() -> dict[str, str]:
    lines = DESKTOP.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if "=" in line)


def test_desktop_entry_starts_the_installed_console_script():
    entry = desktop_entry()
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert entry["Exec"].split()[0] in scripts
    assert entry["Type"] == "Application" and entry["Terminal"] == "false"
    assert (ICONS / f"{entry['Icon']}.svg").is_file() and (ICONS / f"{entry['Icon']}.png").is_file()


def test_metainfo_launches_the_desktop_entry_and_matches_the_project():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("launchable") == DESKTOP.name
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert root.findtext("project_license") == project["license"]
    assert root.find("releases/release").get("version") == project["version"]


def test_desktop_entry_validates():
    assert valid("desktop-file-validate", DESKTOP) == ""


def test_metainfo_validates():
    assert valid("appstreamcli", METAINFO) == ""


@pytest.mark.parametrize("size", ICON_SIZES)
def test_each_icon_png_has_its_stated_size(size):
    assert png_size(ICONS / f"{size}x{size}" / "dreamdesk.png") == (size, size)


def test_the_window_icon_is_the_largest_rendering_and_the_svg_is_square():
    assert (ICONS / "dreamdesk.png").read_bytes() == (ICONS / "256x256" / "dreamdesk.png").read_bytes()
    svg = ET.parse(ICONS / "dreamdesk.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg" and svg.get("viewBox") == "0 0 256 256"


def test_the_floors_ci_installs_are_the_lowest_versions_pyproject_allows():
    """packaging/floors.txt pins, for every requirement of Dreamdesk and its tests, the floor that
    pyproject.toml states (or its first release that exists: 77.0.0 of setuptools never did)."""
    from packaging.requirements import Requirement
    from packaging.version import Version
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    floors = {}
    for line in (REPO / "packaging" / "floors.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            floors[name.strip().lower()] = Version(version.strip())
    required = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]
    assert sorted(floors) == sorted(r.name.lower() for r in required)
    for req in required:
        (lowest,) = [Version(s.version) for s in req.specifier if s.operator == ">="]
        pinned = floors[req.name.lower()]
        assert pinned in req.specifier and pinned.release[:len(lowest.release)] == lowest.release, (req, pinned)
        assert pinned.release[len(lowest.release):] in ((), (0,), (0, 0)) or req.name == "setuptools", (req, pinned)


def test_the_readme_installs_into_a_virtual_environment():
    """The README's first command block makes and activates a virtual environment before its
    pip install: a system Python under PEP 668 (Debian's) refuses `pip install` outside one
    (issue 25 item 15). Run by hand: these lines, then `python3 -m pytest`, in a fresh clone."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    blocks = [b for b in section.split("\n\n") if b.startswith("    ")]
    install = [line.strip() for line in blocks[0].splitlines()]
    assert install == ["python3 -m venv .venv && . .venv/bin/activate", "pip install -e '.[test]' && dreamdesk"]
    assert "QT_QPA_PLATFORM=offscreen python3 -m pytest" in blocks[1]
