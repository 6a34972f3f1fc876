"""The service layer: game lifecycle, orders, phase processing and the deadline scheduler.

It works on the store (SQLAlchemy sessions the caller opens: one transaction per mail or per
scheduler tick), uses the pure core for everything Diplomacy, and returns domain events
(:mod:`judge.service.events`) that the mail layer turns into mail.  It never formats mail,
and it refuses with a code and facts (:class:`judge.service.errors.GameError`), never words.
"""
