"""Variant data files (maps as JSON), loaded by :mod:`judge.core.maps`."""
