"""Dreamdesk's own settings (QSettings): window state, recent workspaces, the per-workspace
scheduling and watch opt-ins, and this machine's model override, whose API key lives in the OS
keyring (engine/desktop/keychain.py), not here. Nothing here is ever written into a workspace, a snapshot
or a log."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from dreamdesk.engine.desktop import keychain

from ..qt import QSettings

OLD_KEY = "model/apiKey"      # where Dreamdesk kept the key in plain text before the keyring
KEY_GIVEN = "model/keyGiven"  # a key was given: only then is the keyring asked (importing keyring and
                              # finding its backend costs ~12 MiB and may wake the OS's key store)
log = logging.getLogger(__name__)

MAX_RECENT = 8


def settings() -> QSettings:
    return QSettings("Dreamdesk", "Dreamdesk")


def recent_workspaces() -> list[str]:
    v = settings().value("recent", [])
    if isinstance(v, str):
        v = [v]
    return [str(x) for x in (v or [])]


def add_recent(path: str) -> None:
    items = [p for p in recent_workspaces() if p != path]
    items.insert(0, path)
    s = settings()
    s.setValue("recent", items[:MAX_RECENT])
    s.setValue("last", path)


def last_workspace() -> str | None:
    v = settings().value("last")
    return str(v) if v else None


def _key(path: str) -> str:
    import hashlib
    return "workspaces/" + hashlib.sha1(path.encode()).hexdigest()[:16]


def _flag(path: str, name: str) -> bool:
    return settings().value(f"{_key(path)}/{name}", False) in (True, "true", "1", 1)


def schedules(path: str) -> bool:
    return _flag(path, "schedule")


def set_schedules(path: str, on: bool) -> None:
    settings().setValue(_key(path) + "/schedule", bool(on))


def watches(path: str) -> bool:
    """The watch (archive what other writers remove): opt-in per workspace, off by default."""
    return _flag(path, "watch")


def set_watches(path: str, on: bool) -> None:
    settings().setValue(_key(path) + "/watch", bool(on))


def agent(home: str) -> str | None:
    """The agent last chosen in the window for a home with several (None: never chosen)."""
    v = settings().value(_key(home) + "/agent")
    return str(v) if v else None


def set_agent(home: str, agent_id: str) -> None:
    settings().setValue(_key(home) + "/agent", agent_id)


@dataclass
class ModelOverride:
    enabled: bool = False
    base_url: str = ""
    model: str = ""
    api_key: str = ""

    def masked(self) -> str:
        from dreamdesk.engine.home.config import mask_key
        return mask_key(self.api_key)


def model_override(with_key: bool = True) -> ModelOverride:
    """The machine's model setting; `with_key=False`: without asking the keyring for its key."""
    s = settings()
    given = s.value(KEY_GIVEN, False) in (True, "true", "1", 1)
    return ModelOverride(s.value("model/enabled", False) in (True, "true", "1", 1),
                         str(s.value("model/baseUrl", "") or ""), str(s.value("model/model", "") or ""),
                         (keychain.load() if with_key and given else "") or _old_key())


def set_model_override(o: ModelOverride) -> keychain.Kept:
    """Save the override; the key goes to the keyring (Kept says if it could only be kept for
    this session). A plain-text key from before goes once the keyring holds the new one."""
    s = settings()
    s.setValue("model/enabled", o.enabled)
    s.setValue("model/baseUrl", o.base_url)
    s.setValue("model/model", o.model)
    kept = keychain.store(o.api_key)
    s.setValue(KEY_GIVEN, bool(o.api_key))
    if kept.in_keyring:
        s.remove(OLD_KEY)
    return kept


def _old_key() -> str:
    """The plain-text key an older Dreamdesk saved (still used while no keyring can take it)."""
    return str(settings().value(OLD_KEY, "") or "")


def move_key_to_keyring() -> bool:
    """Once, at start: a key kept in plain text moves to the keyring, and is deleted from the
    settings only after the keyring took it. True when it moved."""
    old = _old_key()
    if not old or not keychain.store(old).in_keyring:
        return False
    settings().setValue(KEY_GIVEN, True)
    settings().remove(OLD_KEY)
    log.info("the model API key moved from Dreamdesk's settings to the system keyring")
    return True


def demo_home() -> str | None:
    v = settings().value("demoHome")
    return str(v) if v else None


def set_demo_home(path: str) -> None:
    settings().setValue("demoHome", path)
