"""This machine: the installation, the demo workspace's copy and its recorded past, desktop
launcher files, the OS keyring."""
