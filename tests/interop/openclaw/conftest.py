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


class Rebuilt:
    """Fixture homes built again by the real OpenClaw, each on first use, and stored as
    build_fixtures.py stores them: rebuilt[name] is a folder with home/, oracle/, manifest.json."""

    def __init__(self, launcher: str, model: OpenClawModel, work: Path, out: Path):
        self.launcher, self.model, self.work, self.out = launcher, model, work, out
        self.versions: dict | None = None
        self.bundles: dict[str, Path] = {}

    def __getitem__(self, name: str) -> Path:
        from .build_fixtures import store, versions_of
        from .homes import RECIPES

        if name not in self.bundles:
            if self.versions is None:
                self.versions = versions_of(self.launcher, self.work)
            store(RECIPES[name](self.launcher, self.work / name, self.model), self.out / name, self.versions)
            self.bundles[name] = self.out / name
        return self.bundles[name]


@pytest.fixture(scope="session")
def rebuilt(openclaw_launcher, openclaw_model, tmp_path_factory) -> Rebuilt:
    """The fixture homes built again (each once a session, when a test first asks for it);
    tests only read them."""
    return Rebuilt(openclaw_launcher, openclaw_model, tmp_path_factory.mktemp("openclaw-homes"),
                   tmp_path_factory.mktemp("openclaw-bundles"))
