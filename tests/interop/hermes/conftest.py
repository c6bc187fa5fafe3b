"""Hermes Agent's own code as the oracle: its MemoryStore, memory tool, config loader and
system prompt, run by the pinned hermes-agent's Python (DREAMDESK_HERMES_PYTHON, which .ci/run
sets) through driver.py. Without it these tests are skipped with one line; under CI (CI set)
they fail instead, as the nanobot suite does."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.toolchain import python_or_skip, require_version

from .hermes import ENV_VAR, VERIFIED, Hermes

SKIP_PREFIX = "Hermes interop tests skipped"


def start(tmp_path_factory, name: str = "hermes-user") -> Hermes:
    py = python_or_skip(ENV_VAR, "hermes-agent", VERIFIED, SKIP_PREFIX, "Hermes interop suite")
    hermes = Hermes(py, tmp_path_factory.mktemp(name))
    require_version(hermes, ENV_VAR, "hermes-agent", VERIFIED)
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
