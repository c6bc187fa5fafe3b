"""Helpers for tests (from test_packaging.py): png_size, valid."""

from __future__ import annotations

from pathlib import Path
import os
import pytest
import shutil
import struct
import subprocess


# the validators' commands, and the Debian package each comes in (.ci/run installs them)
VALIDATORS = {"desktop-file-validate": ([], "desktop-file-utils"), "appstreamcli": (["validate", "--no-net"], "appstream")}


def validator(tool: str, path: Path) -> subprocess.CompletedProcess:
    """Run a freedesktop validator on path. Without it: a skip here, a failure in CI (which
    installs it), so CI never passes these silently."""
    args, package = VALIDATORS[tool]
    if not shutil.which(tool):
        reason = f"{tool} not installed (apt-get install {package})"
        if os.environ.get("CI"):
            pytest.fail(reason + " — in CI the validators must run", pytrace=False)
        pytest.skip(reason)
    return subprocess.run([tool, *args, str(path)], capture_output=True, text=True, timeout=60)


def valid(tool: str, path: Path) -> str:
    """"" when the validator takes path, else what it said (desktop-file-validate's warnings too)."""
    proc = validator(tool, path)
    ok = proc.returncode == 0 and (tool != "desktop-file-validate" or not proc.stdout.strip())
    return "" if ok else proc.stdout + proc.stderr


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header (its IHDR chunk comes first)."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])
