"""Map pictures: the board of a phase drawn as SVG or PNG, from geometry the project proves.

* :mod:`.generate` draws each map's province shapes from a hand-written layout and checks,
  with :mod:`.topology`, that the shapes show exactly the map's adjacency;
* :mod:`.geometry` reads those shapes; :mod:`.picture` says what a picture shows and turns it
  into a :mod:`.scene`, with the symbols of :mod:`.symbols` and the key of :mod:`.legend`;
  :mod:`.svg` and :mod:`.raster` write the scene out;
* :mod:`.document` reads the JSON a picture is drawn from (``judge map``, the outbox).

Like :mod:`judge.core`, nothing here touches the store or the mail.  Pillow (for PNG) is
imported only when a PNG is drawn; :func:`png_available` says whether it can be.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from threading import Lock
from typing import Any

from judge.pictures.document import picture_from_document
from judge.pictures.geometry import load_geometry
from judge.pictures.picture import Picture, draw
from judge.pictures.scene import Scene


def scene_of(picture: Picture) -> Scene:
    return draw(picture, load_geometry(picture.map))


def svg_of(picture: Picture) -> str:
    from judge.pictures.svg import render_svg
    return render_svg(scene_of(picture))


def png_of(picture: Picture) -> bytes:
    from judge.pictures.raster import render_png
    return render_png(scene_of(picture))


def png_available() -> bool:
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True


_CACHE: "OrderedDict[str, bytes]" = OrderedDict()
_CACHE_LOCK = Lock()
_CACHE_SIZE = 16


def png_of_document(doc: dict[str, Any]) -> bytes:
    """The PNG of a map document, drawn once for equal documents (the results of a phase go
    to every player in a copy of their own: one drawing serves them all)."""
    key = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    png = png_of(picture_from_document(doc))
    with _CACHE_LOCK:
        _CACHE[key] = png
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return png


__all__ = ["Picture", "picture_from_document", "png_available", "png_of", "png_of_document",
           "scene_of", "svg_of"]
