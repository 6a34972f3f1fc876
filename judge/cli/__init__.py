"""The `judge` command line: its entry point, the click commands, `judge adjudicate` and `judge inject`."""
