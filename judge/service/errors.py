"""The error the service layer raises to refuse a request; its message is fit for a reply."""


class GameError(Exception):
    pass
