"""The main window: a shell of menus, tabs, docks and the status bar over the application context,
its geometry, the questions it asks and its keys."""
