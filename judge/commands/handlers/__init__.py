"""Command handlers, one module per group of commands; importing them registers them."""

from judge.commands.handlers import (draws, formal, games, information,  # noqa: F401
                                     map_pictures, master, player, press, timing,
                                     tournaments)
