"""Figure 15 against the original's own tiled Gustavson pipeline (tests/data/original-fig15.json:
its cycles, matrices and tiles on the smallest dimensions of the paper's sweep), without the
original tools: the matrices are rebuilt by our generator (or, past nnz=5000, read from the
record's stored positions) and checked against the record's digests, then our model runs on
them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from custard.reproduce import fig15

RECORD = json.loads((Path(__file__).parent / "data" / "original-fig15.json").read_text())
POINTS = RECORD["points"]
#: ours with the original's PE (C's rows merged, ``coiterate``) against the original's cycles
TOLERANCE = 0.05


STORED = np.load(Path(__file__).parent / "data" / "original-fig15-positions.npz")


def stored_positions(nnz: int, dim: int) -> np.ndarray | None:
    """B's positions (sorted) as the record stores them, or ``None`` when drawn instead."""
    key = f"{nnz}-{dim}"
    return np.cumsum(STORED[key].astype(np.int64)) if key in STORED.files else None


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The record's matrices in a fresh cache: drawn by our generator (in the original's order,
    from the seed) at nnz=5000; the later ones (whose draw replays the whole nnz=5000 sweep,
    minutes) from the record's stored positions, checked against their digest."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))
    fig15._positions.cache_clear()
    drawn = [p for p in POINTS if stored_positions(p["nnz"], p["dim"]) is None]
    fig15.prepare(sorted({p["dim"] for p in drawn}), sorted({p["nnz"] for p in drawn}),
                  progress=False)
    for p in POINTS:
        pos = stored_positions(p["nnz"], p["dim"])
        if pos is not None:
            digest = hashlib.sha256(pos.astype("<i8").tobytes()).hexdigest()
            assert digest == p["b_sorted_positions_sha256"]
            fig15.positions_file(p["nnz"], p["dim"]).parent.mkdir(parents=True, exist_ok=True)
            np.save(fig15.positions_file(p["nnz"], p["dim"]), pos)
    yield
    fig15._positions.cache_clear()
    mp.undo()


def test_record_is_the_original_configuration() -> None:
    """The record's memory configuration is the one ``extensor()`` ships, and every point
    is one of the paper's sweep, recorded in fig15.ORIGINAL."""
    from sam.memory_model import extensor

    cfg, hier = RECORD["memory_config"], extensor()
    llb, pe = hier.level("LLB"), hier.level("PE")
    assert (llb.capacity_bytes, llb.bandwidth, llb.latency) == (
        cfg["Glb_memory"], cfg["Glb_tile_bandwidth"], cfg["Global_Glb_latency"])
    assert (pe.capacity_bytes, pe.bandwidth, pe.latency) == (
        cfg["Mem_memory"], cfg["Mem_tile_bandwidth"], cfg["Glb_Mem_latency"])
    assert pe.tile[0] == cfg["Mem_tile_size"]
    assert llb.tile[0] == cfg["Glb_tile_size"] * cfg["Mem_tile_size"]
    assert hier.bytes_per_element == cfg["Bytes_per_element"]
    assert fig15.ORIGINAL == {(p["nnz"], p["dim"]): p["cycles"] for p in POINTS}
    assert all((p["nnz"], p["dim"]) in fig15.SEQUENCE for p in POINTS)
    assert len(POINTS) >= 6


def test_matrices_and_tiles_are_the_originals(drawn: None) -> None:
    """Our generator draws the original's matrices (the digest of B's positions in the order
    drawn), and tiles them as its tile.py does: as many LLB and PE tiles, as many elements."""
    for p in POINTS:
        nnz, dim = p["nnz"], p["dim"]
        br, bc, cr, cc = fig15.matrices(dim, nnz)
        pos = bc.astype("<i8") * dim + br.astype("<i8")
        if stored_positions(nnz, dim) is None:  # drawn by our generator, in its order
            assert hashlib.sha256(pos.tobytes()).hexdigest() == p["b_positions_sha256"], (
                nnz, dim)
        sort = hashlib.sha256(np.sort(pos).tobytes()).hexdigest()
        assert sort == p["b_sorted_positions_sha256"], (nnz, dim)
        for name, (r, c) in {"B": (br, bc), "C": (cr, cc)}.items():
            for level, size in (("llb", 2048), ("pe", 128)):
                g = -(-dim // size)
                z = np.zeros(g * g, np.int64)
                np.add.at(z, (r // size) * g + c // size, 1)
                rows = fig15._row_counts(r, c, size, g).ravel()
                assert int((z > 0).sum()) == p[f"{level}_tiles"][name], (nnz, dim, level)
                elements = int((2 * z + 2 * rows + 3)[z > 0].sum())
                assert elements == p[f"{level}_tile_elements"][name], (nnz, dim, level)


def test_cycles_with_the_originals_pe(drawn: None) -> None:
    """With the original's PE (``coiterate``: C's rows merged with B's coordinates, as its
    ``Intersect2``), our tiled model is below the original's cycles by its tile handoff: with
    ``ORIGINAL_HANDOFF`` (2) cycles per PE tuple added, within ``ORIGINAL_TOLERANCE`` (1%) at
    every recorded point. The default PE (C's rows located) is far below the original where
    the PE tiles are dense (docs/timing-model.md, "Figure 15's PE")."""
    for p in POINTS:
        point = {"nnz": p["nnz"], "dim": p["dim"], "engine": "fast", "max_dense": 0}
        r = fig15.point({**point, "pe": fig15.ORIGINAL_PE})
        assert r["skip+nbuf"] < p["cycles"], p["dim"]
        with_handoff = r["skip+nbuf"] + fig15.ORIGINAL_HANDOFF * r["tuples"]
        assert abs(with_handoff / p["cycles"] - 1) <= fig15.ORIGINAL_TOLERANCE, (
            p["dim"], with_handoff, p["cycles"])
    first = POINTS[0]
    located = fig15.point({"nnz": first["nnz"], "dim": first["dim"], "engine": "fast",
                           "max_dense": 0})["skip+nbuf"]
    assert located < 0.1 * first["cycles"]


def test_no_nbuffering_against_the_original(drawn: None) -> None:
    """Without n-buffering (the original run without ``--nbuffer``), ours with its PE and its
    handoff is within 0.4% of the original at dims 1024 and 3696 and 9.2% below it at 2360,
    where the original's unbuffered run costs 160k cycles more than its buffered one (51k at
    3696; not explained): asserted as within 10%, the documented spread."""
    assert RECORD["variants"]
    for v in RECORD["variants"]:
        assert v["variant"] == "no nbuf"
        r = fig15.point({"nnz": v["nnz"], "dim": v["dim"], "engine": "fast",
                         "pe": fig15.ORIGINAL_PE, "max_dense": 0})
        ours = r["no nbuf"] + fig15.ORIGINAL_HANDOFF * r["tuples"]
        assert abs(ours / v["cycles"] - 1) <= 0.10, (v["dim"], ours, v["cycles"])
