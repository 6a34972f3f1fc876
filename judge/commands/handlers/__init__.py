"""Command handlers, one module per group of commands; importing them registers them."""

from judge.commands.handlers import (draws, formal, games, general, master,  # noqa: F401
                                     player, press, tournaments)
