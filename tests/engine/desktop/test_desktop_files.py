"""`dreamdesk install-desktop` (issue 16): the menu entry, the AppStream metainfo and the icons in
the user's data folder; the entry starts this Dreamdesk from a desktop session; --uninstall
takes exactly those files away, and a hand-written entry is never touched."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from helpers.desktop_checks import png_size, valid

from dreamdesk.engine.desktop import desktop_files
from dreamdesk.engine.cli import main

SIZES = desktop_files.ICON_SIZES


@pytest.fixture
def share(tmp_path, monkeypatch) -> Path:
    """A data folder of the test's own, not there yet (install makes it)."""
    home = tmp_path / "share"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def tree(root: Path) -> dict[str, bytes | None]:
    """Every folder (None) and file (its bytes) below root."""
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None) for p in root.rglob("*")}


def entry(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if "=" in line)


def exec_args(value: str) -> list[str]:
    """An Exec value back into its arguments, as the Desktop Entry spec reads it: the string
    escapes first, then the arguments (a quoted one in double quotes, where a backslash escapes
    the next character), then %% -> %."""
    unescaped = re.sub(r"\\(.)", lambda m: {"s": " ", "n": "\n", "t": "\t", "r": "\r"}.get(m[1], m[1]), value)
    args = re.findall(r'"((?:[^"\\]|\\.)*)"(?= |$)|(\S+)', unescaped)
    return [(re.sub(r"\\(.)", r"\1", quoted) if quoted or not plain else plain).replace("%%", "%")
            for quoted, plain in args]


INSTALLED = ["applications/dreamdesk.desktop", "metainfo/io.github.dreamdesk.Dreamdesk.metainfo.xml",
             "icons/hicolor/scalable/apps/dreamdesk.svg"] + [f"icons/hicolor/{n}x{n}/apps/dreamdesk.png" for n in SIZES]


def test_install_puts_each_file_in_place_and_says_so_one_line_each(share, capsys):
    code, out, err = cli(capsys, "install-desktop")
    assert code == 0 and not err
    lines = out.splitlines()
    assert lines[:len(INSTALLED)] == [f"installed {share / rel}" for rel in INSTALLED]
    assert lines[len(INSTALLED)].startswith("The menu entry runs: ")
    for n in SIZES:
        assert png_size(share / f"icons/hicolor/{n}x{n}/apps/dreamdesk.png") == (n, n)
    assert (share / "icons/hicolor/scalable/apps/dreamdesk.svg").read_bytes() == \
        (REPO / "resources/icons/dreamdesk.svg").read_bytes()
    assert entry(share / "applications/dreamdesk.desktop")["Icon"] == "dreamdesk"


def test_the_installed_files_pass_the_freedesktop_validators(share, capsys):
    assert cli(capsys, "install-desktop")[0] == 0
    assert valid("desktop-file-validate", share / "applications/dreamdesk.desktop") == ""
    assert valid("appstreamcli", share / "metainfo/io.github.dreamdesk.Dreamdesk.metainfo.xml") == ""


def test_the_installed_exec_line_starts_this_dreamdesk_from_a_session(share, capsys, tmp_path):
    """Run as a desktop would: no PYTHONPATH, no PATH to a virtual environment, another folder."""
    assert cli(capsys, "install-desktop")[0] == 0
    fields = entry(share / "applications/dreamdesk.desktop")
    args = exec_args(fields["Exec"])
    assert Path(fields["TryExec"]).is_absolute() and os.access(fields["TryExec"], os.X_OK)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PATH": "/usr/bin:/bin"}
    proc = subprocess.run(args + ["--help"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "install-desktop" in proc.stdout        # this Dreamdesk's help, not some older one's
    import dreamdesk
    here = str(Path(dreamdesk.__file__).resolve().parent.parent)
    probe = subprocess.run(args[:-2] + ["-c", "import dreamdesk, pathlib; print(pathlib.Path(dreamdesk.__file__)"
                                                    ".resolve().parent.parent)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert probe.stdout.strip() == here


@pytest.mark.parametrize("found_by_python, prefixed", [("this", False), ("other", True), (None, True)])
def test_the_package_folder_is_named_only_where_the_interpreter_would_not_find_it(monkeypatch, found_by_python,
                                                                                  prefixed):
    import dreamdesk
    here = str(Path(dreamdesk.__file__).resolve().parent.parent)
    found = {"this": here, "other": "/elsewhere", None: None}[found_by_python]
    monkeypatch.setattr(desktop_files, "_package_root_found_by", lambda python: found)
    command = desktop_files.launch_command()
    assert command[-4:] == [sys.executable, "-P", "-m", "dreamdesk"]
    assert command[:-4] == (["env", f"PYTHONPATH={here}"] if prefixed else [])


def test_exec_quoting_survives_spaces_quotes_dollars_percents_and_backslashes(tmp_path):
    command = ["/opt/my apps/py$thon\"3", "-P", "-m", "dreamdesk", "100%", "back\\slash"]
    text = desktop_files.entry_text((REPO / "resources/desktop/dreamdesk.desktop").read_text(encoding="utf-8"),
                                    command)
    (tmp_path / "dreamdesk.desktop").write_text(text, encoding="utf-8")
    assert valid("desktop-file-validate", tmp_path / "dreamdesk.desktop") == ""
    fields = entry(tmp_path / "dreamdesk.desktop")
    assert exec_args(fields["Exec"]) == command
    assert fields["TryExec"] == command[0]


def test_running_install_twice_and_uninstall_twice_leaves_the_folders_as_they_were(share, capsys):
    (share / "applications").mkdir(parents=True)
    (share / "applications/other.desktop").write_text("[Desktop Entry]\nName=Other\n")
    (share / "icons/hicolor/48x48/apps").mkdir(parents=True)
    (share / "icons/hicolor/48x48/apps/other.png").write_bytes(b"not ours")
    before = tree(share)
    assert cli(capsys, "install-desktop")[0] == 0
    code, out, _ = cli(capsys, "install-desktop")
    assert code == 0 and out.count("installed ") == len(INSTALLED)
    assert entry(share / "applications/dreamdesk.desktop")["Exec"].count("-m dreamdesk") == 1   # (the venv's path may say dreamdesk)
    code, out, _ = cli(capsys, "install-desktop", "--uninstall")
    assert code == 0 and out.splitlines() == [f"removed   {share / rel}" for rel in INSTALLED]
    assert tree(share) == before
    code, out, _ = cli(capsys, "install-desktop", "--uninstall")
    assert code == 0 and out.splitlines() == [f"not there {share / rel}" for rel in INSTALLED]
    assert tree(share) == before


def test_a_desktop_entry_somebody_wrote_is_never_replaced_or_removed(share, capsys):
    mine = share / "applications/dreamdesk.desktop"
    mine.parent.mkdir(parents=True)
    mine.write_text("[Desktop Entry]\nType=Application\nName=My Dreamdesk\nExec=dreamdesk --my-flags\n")
    before = mine.read_bytes()
    code, out, _ = cli(capsys, "install-desktop")
    assert code == 0 and f"kept      {mine} (not one install-desktop wrote; move it away and run this again)" in out
    assert "The menu entry runs" not in out and mine.read_bytes() == before
    code, out, _ = cli(capsys, "install-desktop", "--uninstall")
    assert code == 0 and f"kept      {mine} (not one install-desktop wrote)" in out
    assert mine.read_bytes() == before and not (share / "icons").exists()


def test_json_names_what_was_done(share, capsys):
    code, out, _ = cli(capsys, "install-desktop", "--json")
    import json
    data = json.loads(out)
    assert code == 0 and data["data_home"] == str(share)
    assert data["installed"] == [str(share / rel) for rel in INSTALLED]
    assert exec_args(data["exec"]) == exec_args(entry(share / "applications/dreamdesk.desktop")["Exec"])
    data = json.loads(cli(capsys, "install-desktop", "--uninstall", "--json")[1])
    assert data["removed"] == [str(share / rel) for rel in INSTALLED] and data["exec"] is None


def test_the_caches_are_rebuilt_only_where_they_already_are(share, capsys, tmp_path, monkeypatch):
    """A cache made by install would be left behind by uninstall; one already there is kept current."""
    bin_dir, calls = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    for tool in ("update-desktop-database", "gtk-update-icon-cache"):
        (bin_dir / tool).write_text(f"#!/bin/sh\necho {tool} \"$@\" >> {calls}\n")
        (bin_dir / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert cli(capsys, "install-desktop")[0] == 0
    assert not calls.exists()
    (share / "icons/hicolor/icon-theme.cache").write_bytes(b"")
    code, out, _ = cli(capsys, "install-desktop", "--uninstall")
    assert code == 0 and out.splitlines()[-1] == "refreshed the cache of gtk-update-icon-cache"
    assert calls.read_text().splitlines() == [f"gtk-update-icon-cache -q -t -f {share / 'icons/hicolor'}"]


def test_a_data_folder_that_is_a_file_is_said_in_words(tmp_path, monkeypatch, capsys):
    (tmp_path / "share").write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    code, out, err = cli(capsys, "install-desktop")
    assert code == 2 and not out
    assert err == f"dreamdesk: {tmp_path / 'share'} is not a folder: set XDG_DATA_HOME to a folder (or unset it)\n"


def test_a_relative_xdg_data_home_is_ignored_as_the_spec_says(monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", "relative/share")
    assert desktop_files.data_home() == Path.home() / ".local" / "share"


def test_a_system_without_freedesktop_menus_is_told_so_and_nothing_is_written(share, monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "darwin")
    code, out, err = cli(capsys, "install-desktop")
    assert code == 2 and not out and "install-desktop is for Linux and BSD desktops" in err
    assert not share.exists()
