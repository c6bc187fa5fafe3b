"""memory/.cursor and memory/.dream_cursor: a bare integer, no newline (spec section 1)."""

from __future__ import annotations

import os

import pytest

from dreamdesk.engine.home.cursors import read_cursor, write_cursor
from dreamdesk.engine.core.problems import INFO, WARNING

DISPLAY = "memory/.cursor"


def test_missing_cursor_reads_zero_with_info(tmp_path):
    value, problem = read_cursor(tmp_path / ".cursor", DISPLAY)
    assert value == 0
    assert problem is not None
    assert problem.severity == INFO
    assert problem.file == DISPLAY
    assert "missing" in problem.message


@pytest.mark.parametrize("raw", [b"abc", b"-3", b"", b"\n", b"4 2", b"+4", b"4.0", b"0x10",
                                 "\u0664\u0662".encode(), b"\xff\xfe", b"true"])
def test_unparsable_cursor_reads_zero_with_warning(tmp_path, raw):
    path = tmp_path / ".cursor"
    path.write_bytes(raw)

    value, problem = read_cursor(path, DISPLAY)

    assert value == 0
    assert problem is not None
    assert problem.severity == WARNING
    assert problem.file == DISPLAY
    assert path.read_bytes() == raw  # reported, never silently fixed


@pytest.mark.parametrize("raw, expected", [(b"42", 42), (b"42\n", 42), (b"42\r\n", 42),
                                           (b" 7 ", 7), (b"0", 0), (b"007", 7),
                                           (b"123456789012345678901234567890", 123456789012345678901234567890)])
def test_valid_cursor_reads_its_value(tmp_path, raw, expected):
    path = tmp_path / ".cursor"
    path.write_bytes(raw)
    assert read_cursor(path, DISPLAY) == (expected, None)


def test_cursor_that_is_a_folder_reads_zero_with_warning(tmp_path):
    (tmp_path / ".cursor").mkdir()
    value, problem = read_cursor(tmp_path / ".cursor", DISPLAY)
    assert value == 0
    assert problem is not None and problem.severity == WARNING


def test_cursor_with_too_many_digits_reads_zero_with_warning(tmp_path):
    # int() refuses strings over 4300 digits with ValueError; a damaged cursor file must be
    # reported like any other unreadable value, not crash every reader of the workspace.
    path = tmp_path / ".cursor"
    path.write_bytes(b"9" * 5000)

    value, problem = read_cursor(path, DISPLAY)

    assert value == 0
    assert problem is not None and problem.severity == WARNING


def test_write_cursor_writes_bare_integer_without_newline(tmp_path):
    path = tmp_path / "memory" / ".cursor"
    write_cursor(path, 42)
    assert path.read_bytes() == b"42"
    write_cursor(path, 0)
    assert path.read_bytes() == b"0"
    assert read_cursor(path, DISPLAY) == (0, None)
    assert os.listdir(path.parent) == [".cursor"]  # no temp files left behind


@pytest.mark.parametrize("bad", [True, False, -1, 1.0, "3", None])
def test_write_cursor_refuses_non_cursor_values(tmp_path, bad):
    path = tmp_path / ".cursor"
    path.write_bytes(b"5")
    with pytest.raises(ValueError):
        write_cursor(path, bad)
    assert path.read_bytes() == b"5"
    assert os.listdir(tmp_path) == [".cursor"]
