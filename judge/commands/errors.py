"""The exception a command handler raises to refuse a line; its message becomes the answer."""


class CommandError(Exception):
    pass
