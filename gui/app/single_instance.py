"""One running Dreamdesk per user and state folder: a second start hands its request over.

The running app listens on a local socket (QLocalServer) whose address is made from the user and
Dreamdesk's state folder, so test runs (each with its own DREAMDESK_STATE_DIR) never reach each
other or the user's app. `dreamdesk [open PATH] [--new-window]` first sends one line to it,
{"open": PATH or null, "new_window": bool}; the running app answers "ok", then opens PATH in its
window (or in a new one), brings that window to the front, and the second process exits 0.

The second start's side (hand_over) needs no Qt on POSIX, where a QLocalServer is a Unix socket
at the path given: it runs before Qt is imported and costs a few milliseconds. The server is
made after the first window's first paint (importing QtNetwork before it would slow the paint);
a start in between opens its own window, as before this existed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys

log = logging.getLogger(__name__)

ANSWER_S = 5.0              # how long a second start waits for the running app's answer
MAX_REQUEST = 64 * 1024     # a request is one short line; anything longer is no request
OK, BAD = b"ok\n", b"bad\n"


def address() -> str:
    """Where the running app listens: a socket path on POSIX (in the user's own runtime folder
    when there is one), a pipe name elsewhere."""
    from dreamdesk.engine.core.state import state_root
    real = os.path.realpath(state_root())
    key = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    if os.name != "posix":
        import getpass
        return f"dreamdesk-{getpass.getuser()}-{key}"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = runtime if runtime and os.path.isdir(runtime) else (os.environ.get("TMPDIR") or "/tmp")
    return os.path.join(folder, f"dreamdesk-{os.getuid()}-{key}.sock")


def request(path: str | None, new_window: bool) -> bytes:
    """The line a second start sends; a path is made absolute here (the two processes need not
    share a working folder)."""
    return (json.dumps({"open": os.path.abspath(path) if path else None, "new_window": new_window}) + "\n").encode()


def hand_over(path: str | None, new_window: bool = False, timeout: float = ANSWER_S) -> bool:
    """Give the request to a running Dreamdesk: True once it took it. False when none runs (no
    socket, or a stale one a crash left), or when one runs but does not answer in time (said on
    stderr: this start then opens its own window)."""
    message = request(path, new_window)
    try:
        answer = _send_posix(message, timeout) if os.name == "posix" else _send_qt(message, timeout)
    except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError):
        return False            # nobody listens there
    except OSError as exc:
        print(f"dreamdesk: a running Dreamdesk did not answer ({exc}); opening another window", file=sys.stderr)
        return False
    return answer == OK


def _send_posix(message: bytes, timeout: float) -> bytes:
    import socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(address())
        s.sendall(message)
        answer = b""
        while not answer.endswith(b"\n") and len(answer) < 16:
            chunk = s.recv(16)
            if not chunk:
                break
            answer += chunk
        return answer


def _send_qt(message: bytes, timeout: float) -> bytes:
    """The same through QLocalSocket, where the address is a pipe name (Windows)."""
    from PySide6.QtNetwork import QLocalSocket
    s = QLocalSocket()
    s.connectToServer(address())
    if not s.waitForConnected(int(timeout * 1000)):
        raise ConnectionRefusedError(s.errorString())
    s.write(message)
    s.waitForBytesWritten(int(timeout * 1000))
    answer = b""
    while not answer.endswith(b"\n") and s.waitForReadyRead(int(timeout * 1000)):
        answer += bytes(s.readAll().data())
    if not answer:
        raise TimeoutError("no answer")
    s.disconnectFromServer()
    return answer


def parse(line: bytes) -> tuple[str | None, bool] | None:
    """(the folder to open or None, in a new window?) from a request line; None: not a request."""
    try:
        obj = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("new_window", False), bool):
        return None
    path = obj.get("open")
    if path is not None and (not isinstance(path, str) or not os.path.isabs(path)):
        return None
    return path, obj.get("new_window", False)


def is_live(name: str) -> bool:
    """An app answers a connection at `name` (a socket a crashed app left does not)."""
    if os.name == "posix":
        import socket
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1.0)
            try:
                s.connect(name)
            except OSError:
                return False
            return True
    from PySide6.QtNetwork import QLocalSocket
    s = QLocalSocket()
    s.connectToServer(name)
    live = s.waitForConnected(1000)
    s.abort()
    return live
