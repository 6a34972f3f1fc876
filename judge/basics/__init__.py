"""Basics every layer may use: configuration, logs, time, zones, mail addresses, where files are."""
