"""The API key this machine's model setting uses, kept in the OS keyring (the keyring library:
macOS Keychain, Windows Credential Locker, the Secret Service on Linux), never in a plain file.

Where no keyring backend exists (a bare server, CI: keyring's fail backend), the key is kept in
this process only and `Kept.note` says so in words: the safe default, since writing it to a
plain settings file is what the keyring replaces. Every key read or written here is registered
with engine.redact, so no log line, record or message shows it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ..core import redact

SERVICE = "dreamdesk"
ACCOUNT = "model-api-key"
SESSION_ONLY = ("No system keyring is available here, so the API key is kept for this session only: "
                "enter it again after restarting Dreamdesk.")

log = logging.getLogger(__name__)
# what this process knows per account: read once (a keyring read may ask the OS, even the user),
# and the only copy when the keyring refused the key
_known: dict[str, str] = {}


@dataclass(frozen=True)
class Kept:
    """Where a key ended up: in the keyring, or (note says why) for this session only."""

    in_keyring: bool
    note: str = ""


def load(account: str = ACCOUNT) -> str:
    """The stored key ("" when none), read from the keyring once per process."""
    if account in _known:
        return _known[account]
    import keyring
    import keyring.errors
    try:
        key = keyring.get_password(SERVICE, account) or ""
    except keyring.errors.KeyringError as exc:
        log.info("no keyring to read the API key from: %s", exc)
        key = ""
    redact.register(key)
    _known[account] = key
    return key


def store(key: str, account: str = ACCOUNT) -> Kept:
    """Keep `key` (an empty key deletes it) in the keyring, else for this session only."""
    import keyring
    import keyring.errors
    redact.register(key)
    _known[account] = key
    try:
        if key:
            keyring.set_password(SERVICE, account, key)
        else:
            _delete(account)
    except keyring.errors.KeyringError as exc:
        log.warning("the API key could not go to the keyring (%s); kept for this session only", exc)
        return Kept(False, SESSION_ONLY)
    return Kept(True)


def _delete(account: str) -> None:
    import keyring
    import keyring.errors
    try:
        keyring.delete_password(SERVICE, account)
    except keyring.errors.PasswordDeleteError:
        pass    # there was none


def forget_session() -> None:
    """Tests only: forget what this process read or was given."""
    _known.clear()
