"""Map pictures for the web view: each board drawn once, kept in a store bounded in bytes.

A map costs about a tenth of a second of CPU to draw.  Pictures are kept by a hash of what is
drawn (the map document, and the judge's version, whose drawing may differ), never by game or
address, so a picture kept is never stale: a board that changed is another picture.  At most
``[web] map_cache_bytes`` of them are kept, the least recently asked for going first; asked for
at once from several threads, a picture is drawn by one and waited for by the others.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from concurrent.futures import Future
from typing import Any

from cachetools import LRUCache

from judge import __version__

log = logging.getLogger("judge.web")


class MapStore:
    """Drawn maps by what they show."""

    def __init__(self, max_bytes: int) -> None:
        # cachetools: an LRU bounded by the size of its values, evicting as it takes one in
        self._kept: LRUCache[str, bytes] | None = (
            LRUCache(maxsize=max_bytes, getsizeof=len) if max_bytes > 0 else None)
        self._lock = threading.Lock()
        self._drawing: dict[str, Future[bytes]] = {}

    @staticmethod
    def key(doc: dict[str, Any]) -> str:
        return hashlib.sha256(f"{__version__}\n{json.dumps(doc, sort_keys=True)}".encode()
                              ).hexdigest()

    def png(self, doc: dict[str, Any]) -> bytes:
        """The PNG of ``doc``: kept, being drawn by another thread, or drawn now."""
        key = self.key(doc)
        with self._lock:
            kept = self._kept.get(key) if self._kept is not None else None
            if kept is not None:
                return kept
            pending = self._drawing.get(key)
            if pending is None:
                mine: Future[bytes] = Future()
                self._drawing[key] = mine
        if pending is not None:
            return pending.result()
        try:
            png = self._draw(doc)
        except BaseException as exc:
            mine.set_exception(exc)
            mine.exception()  # retrieved: nobody else may be waiting for it
            with self._lock:
                del self._drawing[key]
            raise
        with self._lock:
            del self._drawing[key]
            if self._kept is not None:
                try:
                    self._kept[key] = png
                except ValueError:
                    pass  # larger than the whole store: drawn each time it is asked for
        mine.set_result(png)
        return png

    @staticmethod
    def _draw(doc: dict[str, Any]) -> bytes:
        from judge.pictures import picture_from_document, png_of

        began = time.perf_counter()
        png = png_of(picture_from_document(doc))
        log.info("web view: drew the map of %s at %s (%d bytes, %.0f ms)", doc.get("game"),
                 doc.get("phase"), len(png), (time.perf_counter() - began) * 1000)
        return png
