"""Dreamdesk's data files (the demo home and its recorded history, icons, desktop files), read
through importlib.resources as dreamdesk.resources: the same from a wheel, an editable install,
a source checkout and the PyInstaller bundle (engine/core/resources.py)."""
