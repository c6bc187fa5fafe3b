"""OpenClaw's own code as the oracle: the real `openclaw` CLI (DREAMDESK_OPENCLAW, which .ci/run
sets) builds the homes of homes.py once a session, against the loopback model of model.py.
Without it these tests are skipped with one line; under CI (CI set) they fail instead."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .driver import ENV_VAR, VERIFIED, OpenClawHome
from .model import OpenClawModel

SKIP_PREFIX = "OpenClaw interop tests skipped"


def launcher_or_reason() -> tuple[str | None, str]:
    path = os.environ.get(ENV_VAR)
    if not path:
        return None, (f"{SKIP_PREFIX}: set {ENV_VAR} to an openclaw {'/'.join(VERIFIED)} launcher "
                      "(.ci/run makes one)")
    if not (shutil.which(path) or Path(path).is_file()):
        return None, f"{SKIP_PREFIX}: {ENV_VAR}={path} is not an executable"
    return path, ""


@pytest.fixture(scope="session")
def openclaw_launcher(tmp_path_factory) -> str:
    path, reason = launcher_or_reason()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(reason + " — in CI the OpenClaw interop suite must run", pytrace=False)
        pytest.skip(reason)
    version = OpenClawHome(path, tmp_path_factory.mktemp("openclaw-version")).version()
    if version not in VERIFIED:
        pytest.fail(f"{ENV_VAR} runs openclaw {version}; this suite verifies {', '.join(VERIFIED)}", pytrace=False)
    return path


@pytest.fixture(scope="session")
def openclaw_model():
    model = OpenClawModel().start()
    yield model
    model.stop()


@pytest.fixture(scope="session")
def rebuilt(openclaw_launcher, openclaw_model, tmp_path_factory):
    """Every fixture home built again by the real OpenClaw and stored as build_fixtures.py
    stores it: {name: folder with home/, oracle/, manifest.json}. Built once a session, on
    first use; tests only read them."""
    from .build_fixtures import store, versions_of
    from .homes import RECIPES

    work = tmp_path_factory.mktemp("openclaw-homes")
    out = tmp_path_factory.mktemp("openclaw-bundles")
    versions = versions_of(openclaw_launcher, work)
    bundles = {}
    for name, recipe in RECIPES.items():
        store(recipe(openclaw_launcher, work / name, openclaw_model), out / name, versions)
        bundles[name] = out / name
    return bundles
