"""judge: an email-driven judge for the board game Diplomacy.

The package is a functional core (``judge.core``: rules, no I/O) inside an imperative shell
(``judge.mail``, ``judge.store``, ``judge.commands``, ``judge.cli.main``); see docs/architecture.md.
"""

__version__ = "0.1.0"
