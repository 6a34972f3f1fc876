"""Fast construction of frozen slots dataclasses that are built on every phase.

A frozen dataclass's generated ``__init__`` stores each field with ``object.__setattr__``
(its own ``__setattr__`` raises).  Two cheaper ways to the same frozen instance:

* ``slot_setters``: calling the slot descriptors' setters does the same store in about half
  the time.  Classes that use this declare ``init=False`` and write a plain ``__init__`` with
  the dataclass's own signature; equality, hashing, ``repr`` and immutability stay the
  dataclass's.
* ``draft_class``: for the few values made by the dozen in each phase (orders of the fast
  parser, per-unit results), a builder function fills a *draft* — an instance of a plain
  class with the same slots — with ordinary attribute stores, which the interpreter turns
  into direct slot writes, then makes it an instance of the frozen class by assigning its
  ``__class__`` (allowed because the slot layouts are identical).  That costs about a third
  of ``cls(...)``.  What the builder returns is an ordinary frozen instance; a builder must
  set every field, which tests check by comparing it with the constructor's value.
"""

from __future__ import annotations

from typing import Any, Callable


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of the slots ``names`` of ``cls``, in that order."""
    return tuple(cls.__dict__[n].__set__ for n in names)


def draft_class(cls: type) -> type:
    """A mutable class with exactly the slots of the frozen slots dataclass ``cls``."""
    return type(f"_{cls.__name__}Draft", (), {"__slots__": cls.__slots__})
