"""``sam-sim reproduce fig11`` (SAM paper Figure 11) and the unfused SDDMM program it runs."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from custard.reproduce import reproduce
from custard.reproduce.fig11 import SERIES, fused_graph, operands, unfused_program
from sam.program import Program
from sam.sim.engine import simulate


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_unfused_sddmm_is_a_program_of_two_graphs(engine):
    """T = C * D^T stored dense by the first graph, X = B .* T by the second; the program's
    cycles are the sum of its phases', and X equals numpy's."""
    program = unfused_program()
    assert isinstance(program, Program) and len(program.phases) == 2
    assert program.temporaries() == ["T"] and program.results() == ["X"]
    assert str(program.phases[0].graph.formats["T"]) in ("dd", "dd01")
    tensors = operands(12, 3, 0.8)
    res = program.run(tensors, engine=engine)
    b, c, d = (tensors[n].to_dense() for n in "BCD")
    np.testing.assert_array_equal(res.written["T"].to_dense(), c @ d.T)
    np.testing.assert_array_equal(res.outputs["X"].to_dense(), b * (c @ d.T))
    assert res.cycles == sum(res.phase_cycles) == sum(r.cycles for r in res.phases)
    fused = {loc: fused_graph(loc) for loc in (True, False)}
    for graph in fused.values():
        x = simulate(graph, tensors, engine=engine).outputs["X"]
        np.testing.assert_array_equal(x.to_dense(), b * (c @ d.T))
    located = [b.attrs["index"] for b in fused[True].blocks.values()
               if b.dot_type == "intersect"]
    assert located == ["k"]  # no intersecter at i and j
    assert Counter(b.dot_type for b in fused[False].blocks.values())["intersect"] == 3


def test_quick_run_writes_the_three_series(tmp_path: Path):
    (done,) = reproduce("fig11", tmp_path, quick=True, scheduler="sync", progress=False,
                        log=False)
    rows = read_csv(tmp_path / "fig11.csv")
    assert list(rows[0])[:3] == ["series", "x", "cycles"]
    assert {r["series"] for r in rows} == set(SERIES)
    assert sorted({int(r["x"]) for r in rows}) == [1, 4, 16]
    assert all(r["correct"] == "True" for r in rows)
    for r in rows:  # the unfused cycles are its two phases'
        assert int(r["cycles"]) == sum(int(p) for p in r["phase_cycles"].split("+"))
        assert len(r["phase_cycles"].split("+")) == (2 if r["series"] == "unfused" else 1)
    claims = (tmp_path / "fig11-claims.md").read_text()
    assert claims.count("**PASS**") + claims.count("**FAIL**") == 5
    assert "every simulated X equals" in claims
    assert (tmp_path / "fig11.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert done.passed + done.failed == 5
