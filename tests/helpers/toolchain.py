"""An assistant's own Python for the interop suites (nanobot's, Hermes's): named by an environment
variable that .ci/run sets. Without it a suite is skipped with one line; under CI (CI set) it
fails instead; a driver on another version than the one verified fails too."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


def python_or_reason(env_var: str, package: str, verified, skip_prefix: str) -> tuple[str | None, str]:
    py = os.environ.get(env_var)
    if not py:
        return None, (f"{skip_prefix}: set {env_var} to a Python with {package} "
                      f"{'/'.join(verified)} installed (.ci/run makes one)")
    if not (shutil.which(py) or Path(py).is_file()):
        return None, f"{skip_prefix}: {env_var}={py} is not an executable"
    return py, ""


def python_or_skip(env_var: str, package: str, verified, skip_prefix: str, suite: str) -> str:
    """The Python to drive, or the test skipped (failed under CI) in words."""
    py, reason = python_or_reason(env_var, package, verified, skip_prefix)
    if py is None:
        if os.environ.get("CI"):
            pytest.fail(f"{reason} — in CI the {suite} must run", pytrace=False)
        pytest.skip(reason)
    return py


def require_version(driver, env_var: str, package: str, verified) -> None:
    """Fail (closing the driver) when it runs another version than the suite verifies."""
    if driver.version not in verified:
        driver.close()
        pytest.fail(f"{env_var} has {package} {driver.version}; this suite verifies {', '.join(verified)}",
                    pytrace=False)
