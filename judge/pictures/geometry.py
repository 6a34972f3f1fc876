"""The drawn map: province outlines and the spots for labels, units and centres.

Read once per map from ``judge/variants/<map>.geometry.json``, which
:mod:`judge.pictures.generate` writes from the map's layout.  The borders to draw are found here
from the outlines (each shared border once), with their kind: coast, land or sea.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any, Mapping

from judge.core.errors import InputError
from judge.core.maps import Map, province_of
from judge.pictures.topology import borders_of

XY = tuple[float, float]


@dataclass(frozen=True)
class ProvinceShape:
    code: str
    outline: tuple[XY, ...]
    unit: XY  # where a unit stands (an army, or a fleet of a province without split coasts)
    label: XY
    center: XY | None  # the supply-centre marker
    coasts: Mapping[str, XY]  # split coasts: coast → where a fleet on it stands


@dataclass(frozen=True)
class Border:
    kind: str  # "coast" (land and sea), "land", "sea", or "frame"
    points: tuple[XY, ...]


@dataclass(frozen=True, eq=False)
class Geometry:
    name: str
    width: int
    height: int
    provinces: Mapping[str, ProvinceShape]
    borders: tuple[Border, ...]
    colours: Mapping[str, str]  # power → colour

    def spot(self, location: str) -> XY:
        """Where a unit at ``location`` (``"STP/NC"``, ``"PAR"``) is drawn."""
        prov, _, coast = location.partition("/")
        shape = self.provinces[prov]
        return shape.coasts.get(coast, shape.unit) if coast else shape.unit


def _chains(segments: tuple[tuple[XY, XY], ...]) -> list[tuple[XY, ...]]:
    """Join segments end to end into polylines (fewer, longer strokes draw faster)."""
    at: dict[XY, list[int]] = {}
    for i, (a, b) in enumerate(segments):
        at.setdefault(a, []).append(i)
        at.setdefault(b, []).append(i)
    used: set[int] = set()
    out = []
    ends = [p for p, ids in at.items() if len(ids) == 1]
    for start in sorted(ends) + sorted(at):
        for i in at[start]:
            if i in used:
                continue
            line = [start]
            cur, j = start, i
            while True:
                used.add(j)
                a, b = segments[j]
                cur = b if a == cur else a
                line.append(cur)
                nxt = [k for k in at[cur] if k not in used]
                if len(at[cur]) != 2 or not nxt:
                    break
                j = nxt[0]
            out.append(tuple(line))
    return out


def build_geometry(m: Map, doc: dict[str, Any]) -> Geometry:
    provinces: dict[str, ProvinceShape] = {}
    for code, e in doc["provinces"].items():
        provinces[code] = ProvinceShape(
            code, tuple((float(x), float(y)) for x, y in e["outline"]),
            (float(e["unit"][0]), float(e["unit"][1])),
            (float(e["label"][0]), float(e["label"][1])),
            (float(e["center"][0]), float(e["center"][1])) if "center" in e else None,
            MappingProxyType({c: (float(p[0]), float(p[1]))
                              for c, p in e.get("coasts", {}).items()}))
    missing = sorted(set(m.provinces) - set(provinces))
    if missing:
        raise InputError(f"the drawing of map {m.name!r} lacks {', '.join(missing)}")
    found = borders_of({c: s.outline for c, s in provinces.items()})
    borders: list[Border] = []
    for pair, segments in sorted(found.shared.items(), key=lambda kv: sorted(kv[0])):
        kinds = {"sea" if m.provinces[c].kind == "sea" else "land" for c in pair}
        kind = "coast" if len(kinds) == 2 else kinds.pop()
        borders.extend(Border(kind, line) for line in _chains(segments))
    colours = dict(doc.get("colours", {}))
    return Geometry(m.name, int(doc["size"][0]), int(doc["size"][1]),
                    MappingProxyType(provinces), tuple(borders), MappingProxyType(colours))


@lru_cache(maxsize=None)
def load_geometry(m: Map) -> Geometry:
    """The drawing of map ``m`` (read once; raises :class:`InputError` if it has none)."""
    try:
        text = resources.files("judge.variants").joinpath(f"{m.name}.geometry.json") \
            .read_text("utf-8")
    except (FileNotFoundError, OSError):
        raise InputError(f"there is no drawing of map {m.name!r}") from None
    return build_geometry(m, json.loads(text))


def is_inside(p: XY, ring: tuple[XY, ...]) -> bool:
    x, y = p
    inside = False
    for i in range(len(ring)):
        (x0, y0), (x1, y1) = ring[i - 1], ring[i]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def province_at(geometry: Geometry, p: XY) -> str | None:
    for code, shape in geometry.provinces.items():
        if is_inside(p, shape.outline):
            return code
    return None


__all__ = ["Border", "Geometry", "ProvinceShape", "build_geometry", "load_geometry",
           "is_inside", "province_at", "province_of"]
