"""Command handlers, one module per group of commands; importing them registers them."""

from judge.commands.handlers import (draws, formal, games, general, maps,  # noqa: F401
                                     master, player, press, timing,
                                     tournaments)
