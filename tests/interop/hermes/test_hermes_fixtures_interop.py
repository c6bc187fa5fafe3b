"""The stored fixture homes against homes Hermes's own code builds now: every oracle (entries,
sizes, prompt blocks and the system prompt's memory part, the guard's refusals, the config as
loaded, each memory-tool reply) and every file's bytes must be the same, the seconds in a .bak's
name aside. A Hermes release that changes a format fails here rather than in a user's home.
Slow: the four homes take about 5 s (the inspection agent's first build most of it)."""

from __future__ import annotations

import pytest

from .build_fixtures import build
from .homes import RECIPES
from .oracles import comparable, load

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rebuilt(hermes, tmp_path_factory):
    out, work = tmp_path_factory.mktemp("hermes-bundles"), tmp_path_factory.mktemp("hermes-homes")
    for name in RECIPES:
        build(hermes, name, work, out)
    return out


@pytest.mark.parametrize("name", list(RECIPES))
def test_oracles_as_stored(rebuilt, name):
    new, old = load(name, rebuilt)["oracle"], load(name)["oracle"]
    assert sorted(new) == sorted(old)
    for key in old:
        if key != "files":
            assert comparable(new[key]) == comparable(old[key]), key


@pytest.mark.parametrize("name", list(RECIPES))
def test_same_files_same_bytes(rebuilt, name):
    new, old = load(name, rebuilt), load(name)
    assert comparable(new["oracle"]["files"]) == comparable(old["oracle"]["files"])
    assert new["manifest"]["empty_folders"] == old["manifest"]["empty_folders"]
    assert new["manifest"]["hand_edits"] == old["manifest"]["hand_edits"]
