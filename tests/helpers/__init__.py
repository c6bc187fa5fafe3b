"""Helpers the tests share: builders of homes and repositories, scripted servers, waits, screenshots."""
