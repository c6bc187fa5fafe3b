"""JSON written piece by piece, byte for byte what json.dumps(obj, indent=2, ensure_ascii=False)
gives for the whole: a long list is written item by item instead of being built first."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from json.encoder import encode_basestring      # what json.dumps uses with ensure_ascii=False
from typing import Any

_PAD = "  "
_SCALARS = {str: encode_basestring, int: int.__repr__, bool: lambda v: "true" if v else "false",
            type(None): lambda v: "null"}


def encode(value: Any, level: int = 0) -> str:
    """json.dumps(value, indent=2, ensure_ascii=False) as it reads nested `level` deep. A flat
    dict of strings, whole numbers, booleans and nulls (a history entry) takes a quick path:
    json's indented encoder is pure Python."""
    if type(value) is dict and value and all(type(k) is str and type(v) in _SCALARS for k, v in value.items()):
        pad = ",\n" + _PAD * (level + 1)
        body = pad.join(encode_basestring(k) + ": " + _SCALARS[type(v)](v) for k, v in value.items())
        return "{\n" + _PAD * (level + 1) + body + "\n" + _PAD * level + "}"
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + _PAD * level)


class Encoded:
    """A list for write_object whose items come already encoded, each as encode(item, 2) gives
    it: a caller with a faster encoder for its one shape of item (tested to be exact)."""

    def __init__(self, items: Iterable[str]):
        self.items = items


def write_object(write: Callable[[str], object], fields: Iterable[tuple[str, Any]]) -> None:
    """json.dumps(dict(fields), indent=2, ensure_ascii=False) + "\\n", written as it goes; a
    value that is an iterator (or Encoded) is written as a list, one item at a time. `fields`
    may be a generator: a value after a streamed list can be what that list's reading gathered."""
    opened = "{"
    for key, value in fields:
        write(opened + "\n" + _PAD + encode_basestring(key) + ": ")
        opened = ","
        if isinstance(value, Encoded):
            _write_list(write, value.items)
        elif isinstance(value, Iterator):
            _write_list(write, (encode(item, 2) for item in value))
        else:
            write(encode(value, 1))
    write("{}\n" if opened == "{" else "\n}\n")


def _write_list(write: Callable[[str], object], encoded: Iterable[str], batch: int = 256) -> None:
    """Items joined and written `batch` at a time: one write per item costs as much as a line."""
    sep = ",\n" + _PAD * 2
    start, pieces = "[\n" + _PAD * 2, []
    for text in encoded:
        pieces.append(text)
        if len(pieces) == batch:
            write(start + sep.join(pieces))
            start, pieces = sep, []
    if pieces:
        write(start + sep.join(pieces))
        start = sep
    write("[]" if start[0] == "[" else "\n" + _PAD + "]")
