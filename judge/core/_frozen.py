"""Fast construction of frozen slots dataclasses that are built on every phase.

A frozen dataclass's generated ``__init__`` stores each field with ``object.__setattr__``
(its own ``__setattr__`` raises).  Calling the slot descriptors' setters does the same store
in about half the time, which counts for the values made once per order and per unit in each
phase (orders, units, results).  Classes that use this declare ``init=False`` and write a
plain ``__init__`` with the dataclass's own signature; equality, hashing, ``repr`` and
immutability stay the dataclass's.
"""

from __future__ import annotations

from typing import Any, Callable


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of the slots ``names`` of ``cls``, in that order."""
    return tuple(cls.__dict__[n].__set__ for n in names)
