"""Starting Dreamdesk: the launcher and its command line, the QApplication, one instance per user,
the settings remembered between runs, error dialogs, lazy imports, Qt's messages in logging."""
