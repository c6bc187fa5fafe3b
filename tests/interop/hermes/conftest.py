"""Hermes Agent's own code as the oracle: its MemoryStore, memory tool, config loader and
system prompt, run by the pinned hermes-agent's Python (DREAMDESK_HERMES_PYTHON, which .ci/run
sets) through driver.py. Without it these tests are skipped with one line; under CI (CI set)
they fail instead, as the nanobot suite does."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .hermes import ENV_VAR, VERIFIED, Hermes

SKIP_PREFIX = "Hermes interop tests skipped"


def python_or_reason() -> tuple[str | None, str]:
    py = os.environ.get(ENV_VAR)
    if not py:
        return None, (f"{SKIP_PREFIX}: set {ENV_VAR} to a Python with hermes-agent "
                      f"{'/'.join(VERIFIED)} installed (.ci/run makes one)")
    if not (shutil.which(py) or Path(py).is_file()):
        return None, f"{SKIP_PREFIX}: {ENV_VAR}={py} is not an executable"
    return py, ""


def start(tmp_path_factory, name: str = "hermes-user") -> Hermes:
    py, reason = python_or_reason()
    if py is None:
        if os.environ.get("CI"):
            pytest.fail(reason + " — in CI the Hermes interop suite must run", pytrace=False)
        pytest.skip(reason)
    hermes = Hermes(py, tmp_path_factory.mktemp(name))
    if hermes.version not in VERIFIED:
        hermes.close()
        pytest.fail(f"{ENV_VAR} has hermes-agent {hermes.version}; this suite verifies {', '.join(VERIFIED)}",
                    pytrace=False)
    return hermes


@pytest.fixture(scope="session")
def hermes(tmp_path_factory):
    """Hermes's own code, one driver process for the session."""
    h = start(tmp_path_factory)
    yield h
    h.close()


@pytest.fixture
def second_hermes(tmp_path_factory):
    """Another driver process: a second Hermes session on the same home (its writes race ours)."""
    h = start(tmp_path_factory, "hermes-second")
    yield h
    h.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Every test skipped for want of Hermes reports the same place, so `-ra` folds them into
    one line instead of one per test file."""
    rep = yield
    lr = rep.longrepr
    if rep.skipped and isinstance(lr, tuple) and len(lr) == 3 and SKIP_PREFIX in str(lr[2]):
        rep.longrepr = (str(Path(__file__)), 1, lr[2])
    return rep
