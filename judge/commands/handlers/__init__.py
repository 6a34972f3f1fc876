"""Command handlers, one module per group of commands; importing them registers them."""

from judge.commands.handlers import (draws, games, general, master, player,  # noqa: F401
                                     press, tournaments)
