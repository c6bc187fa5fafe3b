"""Dreamdesk's desktop app (PySide6). Views never touch files: every read and write goes
through the engine on a worker thread (gui/context/worker.py)."""
