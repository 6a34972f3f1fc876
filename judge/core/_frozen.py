"""Fast construction of frozen slots dataclasses that are built on every phase.

A frozen dataclass's generated ``__init__`` stores each field with ``object.__setattr__``
(its own ``__setattr__`` raises).  Two cheaper ways to the same frozen instance:

* ``slot_setters``: calling the slot descriptors' setters does the same store in about half
  the time.  Classes that use this declare ``init=False`` and write a plain ``__init__`` with
  the dataclass's own signature; equality, hashing, ``repr`` and immutability stay the
  dataclass's.
* ``draft_builder``: for the values made by the dozen in each phase (orders of the fast
  parser, per-unit results, the next phase and position), a builder fills a *draft* — an
  instance of a plain class with the same slots — with ordinary attribute stores, which the
  interpreter turns into direct slot writes, then makes it an instance of the frozen class
  by assigning its ``__class__`` (allowed because the slot layouts are identical).  That
  costs about a third of ``cls(...)``, and what it returns is an ordinary frozen instance.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of the slots ``names`` of ``cls``, in that order."""
    return tuple(cls.__dict__[n].__set__ for n in names)


def draft_builder(cls: type) -> Callable[..., Any]:
    """A function taking every field of the frozen slots dataclass ``cls`` (``init=False``
    fields included, declaration order, the fields' defaults) and returning the instance.

    The function is generated, as dataclasses generate ``__init__``: the attribute names must
    be written out in its code for the interpreter to specialise the stores.
    """
    fields = dataclasses.fields(cls)
    names = [f.name for f in fields]
    if tuple(names) != tuple(getattr(cls, "__slots__", ())):
        raise TypeError(f"{cls.__name__} must be a slots dataclass without extra slots")
    draft = type(f"_{cls.__name__}Draft", (), {"__slots__": tuple(names)})
    params = [n if f.default is dataclasses.MISSING else f"{n}=_default_{n}"
              for n, f in zip(names, fields)]
    source = "\n".join([f"def build_{cls.__name__}({', '.join(params)}):",
                        "    o = _draft()",
                        *(f"    o.{n} = {n}" for n in names),
                        "    o.__class__ = _cls",
                        "    return o"])
    namespace: dict[str, Any] = {"_draft": draft, "_cls": cls}
    namespace.update((f"_default_{f.name}", f.default) for f in fields
                     if f.default is not dataclasses.MISSING)
    exec(source, namespace)  # noqa: S102 - source built above from field names only
    build = namespace[f"build_{cls.__name__}"]
    build.__doc__ = f"``{cls.__name__}(...)`` from every field, built from a draft (see _frozen)."
    return build  # type: ignore[no-any-return]
