"""The read-only web view of the judge's games and its JSON API (``/api/v1/``).

:mod:`.views` reads what may be shown from the store, :mod:`.passes` lets the holders of a
private game's privacy password in, :mod:`.app` serves pages and JSON with aiohttp from the
daemon's event loop (``[web] listen``).  Nothing here writes to the store except the count of
wrong privacy passwords.
"""
