"""The desktop entry and AppStream metadata pass the freedesktop validators, and name things that
exist: the console script the entry starts and the desktop id the metadata launches."""

import shutil
import subprocess
import tomllib
import xml.etree.ElementTree as ET

import pytest
from conftest import REPO

PACKAGING = REPO / "packaging"
DESKTOP = PACKAGING / "dreamdesk.desktop"
METAINFO = PACKAGING / "io.github.dreamdesk.Dreamdesk.metainfo.xml"


def desktop_entry() -> dict[str, str]:
    lines = DESKTOP.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if "=" in line)


def test_desktop_entry_starts_the_installed_console_script():
    entry = desktop_entry()
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert entry["Exec"].split()[0] in scripts
    assert entry["Type"] == "Application" and entry["Terminal"] == "false"
    assert (REPO / "resources" / "icons" / f"{entry['Icon']}.png").is_file()


def test_metainfo_launches_the_desktop_entry_and_matches_the_project():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("launchable") == DESKTOP.name
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert root.findtext("project_license") == project["license"]
    assert root.find("releases/release").get("version") == project["version"]


@pytest.mark.skipif(not shutil.which("desktop-file-validate"), reason="desktop-file-utils not installed")
def test_desktop_entry_validates():
    proc = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


@pytest.mark.skipif(not shutil.which("appstreamcli"), reason="appstream not installed")
def test_metainfo_validates():
    proc = subprocess.run(["appstreamcli", "validate", "--no-net", str(METAINFO)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_floors_ci_installs_are_the_lowest_versions_pyproject_allows():
    """packaging/floors.txt pins, for every requirement of Dreamdesk and its tests, the floor that
    pyproject.toml states (or its first release that exists: 77.0.0 of setuptools never did)."""
    from packaging.requirements import Requirement
    from packaging.version import Version
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    floors = {}
    for line in (PACKAGING / "floors.txt").read_text(encoding="utf-8").splitlines():
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
