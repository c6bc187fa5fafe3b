"""What a Hermes fixture home holds, and the parts of its oracles that differ between two builds
(paths, the seconds in a .bak's name), for the fixture tests and the rebuild comparison."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hermes"
HOME_PLACEHOLDER = "$HERMES_HOME"
_MEMORIES_PATH = re.compile(r"/[^\s\"']*/memories/")
_BAK_TIME = re.compile(r"\.bak\.\d+")


def files_of(root: Path) -> tuple[dict, list[str]]:
    """Every file under root (size, sha256) and every folder with nothing in it."""
    files, empty = {}, []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file():
            data = path.read_bytes()
            files[rel] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        elif path.is_dir() and not any(path.iterdir()):
            empty.append(rel)
    return files, empty


def with_home_placeholder(value, home: Path):
    """The oracle with the home's absolute path (and the scratch copies' paths Hermes names in
    its refusals) written as $HERMES_HOME."""
    text = json.dumps(value, ensure_ascii=False).replace(str(home) + "/memories/", HOME_PLACEHOLDER + "/memories/")
    return json.loads(_MEMORIES_PATH.sub(HOME_PLACEHOLDER + "/memories/", text))


def comparable(value):
    """An oracle as two builds must agree on it: a .bak's name without its second."""
    return json.loads(_BAK_TIME.sub(".bak.<time>", json.dumps(value, ensure_ascii=False)))


def load(name: str, root: Path = FIXTURES) -> dict:
    """A stored fixture: its manifest, its oracles (JSON, prompt.txt as text) and its home."""
    folder = root / name
    oracles = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (folder / "oracle").glob("*.json")}
    oracles["prompt"] = (folder / "oracle" / "prompt.txt").read_text(encoding="utf-8")
    return {"manifest": json.loads((folder / "manifest.json").read_text(encoding="utf-8")),
            "oracle": oracles, "home": folder / "home"}
