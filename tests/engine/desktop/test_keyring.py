"""The model API key lives in the OS keyring (engine/desktop/keychain.py, gui/app/settings_store.py): never
in Dreamdesk's plain settings file; for this session only, said in words, where no keyring
exists; a key an older Dreamdesk kept in plain text moves there once."""

from __future__ import annotations

import logging

import pytest

from dreamdesk.engine.desktop import keychain
from dreamdesk.engine.core import logs

KEY = "sk-keyring-TEST-5555aaaa"
OLD = "sk-plaintext-OLD-7777bbbb"


def _settings_file_text(gui_env) -> str:
    """Dreamdesk's settings file as it is on disk."""
    from pathlib import Path

    from dreamdesk.gui.app import settings_store
    s = settings_store.settings()
    s.sync()
    path = Path(s.fileName())     # (a private one: gui_env; cleared after each test)
    return path.read_text(errors="replace") if path.is_file() else ""


def _restart() -> None:
    """What a new process would know: nothing but what is stored."""
    keychain.forget_session()


def test_the_key_goes_to_the_keyring_not_the_settings_file(gui_env, memory_keyring):
    from dreamdesk.gui.app import settings_store
    kept = settings_store.set_model_override(settings_store.ModelOverride(True, "http://127.0.0.1:9/v1", "m", KEY))
    assert kept.in_keyring and kept.note == ""
    assert memory_keyring == {(keychain.SERVICE, keychain.ACCOUNT): KEY}
    text = _settings_file_text(gui_env)
    assert "http://127.0.0.1:9/v1" in text and KEY not in text
    _restart()
    o = settings_store.model_override()
    assert (o.enabled, o.model, o.api_key) == (True, "m", KEY)


def test_an_empty_key_deletes_it_from_the_keyring(gui_env, memory_keyring):
    from dreamdesk.gui.app import settings_store
    settings_store.set_model_override(settings_store.ModelOverride(True, "http://x/v1", "m", KEY))
    settings_store.set_model_override(settings_store.ModelOverride(True, "http://x/v1", "m", ""))
    assert memory_keyring == {}
    _restart()
    assert settings_store.model_override().api_key == ""


def test_without_a_keyring_the_key_is_kept_for_this_session_only_and_said_so(gui_env):
    from dreamdesk.gui.app import settings_store
    kept = settings_store.set_model_override(settings_store.ModelOverride(True, "http://x/v1", "m", KEY))
    assert not kept.in_keyring and "for this session only" in kept.note
    assert settings_store.model_override().api_key == KEY          # usable now
    assert KEY not in _settings_file_text(gui_env)                   # never written in plain text
    _restart()
    assert settings_store.model_override().api_key == ""


def test_the_settings_view_says_where_the_key_went(gui_env, qtbot, gui_engine):
    from dreamdesk.gui.views.settings_view import SettingsView
    view = SettingsView(gui_engine)
    qtbot.addWidget(view)
    view.resize(900, 900)
    view.show()
    messages: list[str] = []
    view.status.connect(messages.append)
    view.override.setChecked(True)
    view.o_base.setText("http://127.0.0.1:9/v1")
    view.o_model.setText("m")
    view.o_key.setText(KEY)
    view.o_save.click()
    assert view.o_key_note.isVisible() and "kept for this session only" in view.o_key_note.text()
    assert "for this session only" in messages[-1] and KEY not in messages[-1]
    view.grab().save(str(gui_env / "settings-no-keyring.png"))


def test_the_settings_view_with_a_keyring_shows_no_warning(gui_env, qtbot, gui_engine, memory_keyring):
    from dreamdesk.gui.views.settings_view import SettingsView
    view = SettingsView(gui_engine)
    qtbot.addWidget(view)
    view.show()
    messages: list[str] = []
    view.status.connect(messages.append)
    view.o_key.setText(KEY)
    view.o_save.click()
    assert not view.o_key_note.isVisible()
    assert "in the system keyring" in messages[-1]
    assert memory_keyring[(keychain.SERVICE, keychain.ACCOUNT)] == KEY


def _old_settings(value: str) -> None:
    from dreamdesk.gui.app import settings_store
    settings_store.settings().setValue(settings_store.OLD_KEY, value)
    settings_store.settings().sync()


def test_an_old_plain_text_key_moves_to_the_keyring_once(gui_env, memory_keyring):
    from dreamdesk.gui.app import settings_store
    _old_settings(OLD)
    assert settings_store.move_key_to_keyring()
    assert memory_keyring == {(keychain.SERVICE, keychain.ACCOUNT): OLD}
    assert OLD not in _settings_file_text(gui_env)
    _restart()
    assert settings_store.model_override().api_key == OLD
    assert not settings_store.move_key_to_keyring()       # nothing left to move
    assert memory_keyring == {(keychain.SERVICE, keychain.ACCOUNT): OLD}


def test_an_old_key_stays_where_it_was_when_no_keyring_takes_it(gui_env):
    from dreamdesk.gui.app import settings_store
    _old_settings(OLD)
    assert not settings_store.move_key_to_keyring()
    assert OLD in _settings_file_text(gui_env)            # not lost: the keyring write failed
    _restart()
    assert settings_store.model_override().api_key == OLD


def test_a_key_from_the_keyring_never_reaches_the_log(gui_env, memory_keyring, log_file):
    from dreamdesk.gui.app import settings_store
    memory_keyring[(keychain.SERVICE, keychain.ACCOUNT)] = KEY      # stored by an earlier run
    settings_store.settings().setValue(settings_store.KEY_GIVEN, True)
    key = settings_store.model_override().api_key
    logging.getLogger("dreamdesk.engine.llm").warning(f"401 from the server for key {key}")
    logs.log_tail()
    text = log_file.read_text(encoding="utf-8")
    assert "401 from the server for key •••" in text and KEY not in text


@pytest.mark.parametrize("value", ["", OLD])
def test_opening_the_app_moves_nothing_it_should_not(gui_env, memory_keyring, value):
    from dreamdesk.gui.app import settings_store
    if value:
        _old_settings(value)
    settings_store.move_key_to_keyring()
    assert bool(memory_keyring) == bool(value)


def test_the_keyring_is_asked_only_once_a_key_was_given(gui_env, memory_keyring, monkeypatch):
    """Finding keyring's backend costs ~12 MiB and may wake the OS's key store: a machine where no
    key was ever given never asks it; one where a key was given asks it only when the key is used."""
    from dreamdesk.gui.app import settings_store
    from dreamdesk.gui.views.engine_panel import machine_model
    asked = []
    real = keychain.load
    monkeypatch.setattr(keychain, "load", lambda *a: asked.append(1) or real(*a))
    assert settings_store.model_override().api_key == "" and machine_model().api_key == ""
    assert asked == []
    settings_store.set_model_override(settings_store.ModelOverride(False, "http://x/v1", "m", KEY))
    assert machine_model().api_key == "" and asked == []          # not in use: not asked
    settings_store.set_model_override(settings_store.ModelOverride(True, "http://x/v1", "m", KEY))
    assert machine_model().api_key == KEY and asked
