"""numba is imported only when the fast engine compiles a kernel (``sam.runtime.jit``).

Each case runs in a fresh interpreter and reports whether ``numba`` is in ``sys.modules`` after
the work: importing the packages, compiling an expression, writing and reading DOT, drawing,
the ``custard`` command line and the reference engine never load it; the fast engine does, and
still gives the reference engine's result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GRAPH = ROOT / "dot_graphs" / "mat_elemmul.gv"

#: a report of no blocks, enough for a page
REPORT = {"cycles": 0, "blocks": [], "streams": []}
LOADED = "import sys; print('numba' in sys.modules)"


def _run(code: str, *args: str, cwd: Path | None = None) -> str:
    """Run ``code`` in a fresh interpreter; its last output line."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("work", [
    "import custard",
    "import sam.graph.registry",
    "import sam.sim.engine, sam.sim.harness, sam.runtime.kernel",
    "import custard; custard.compile('X(i,j)=B(i,k)*C(k,j)', None, 'ikj')",
    "from sam.graph.dot import dumps; import custard\n"
    "print(dumps(custard.compile('x(i)=B(i,j)*c(j)')).count('->') > 0)",
    f"from sam.graph.dot import load; g = load({str(GRAPH)!r}); print(len(g.blocks))",
    f"from sam.graph.dot import load; from sam.graph.draw import to_dot\n"
    f"print(len(to_dot(load({str(GRAPH)!r}))) > 0)",
    "import custard; print(custard.compile('x(i)=B(i,j)*c(j)')._repr_svg_() is not None)",
    f"import json; from sam.html import render; from sam.graph.dot import load\n"
    f"print(len(render(json.loads({json.dumps(REPORT)!r}), [load({str(GRAPH)!r})])) > 0)",
])
def test_numba_not_loaded(work: str) -> None:
    assert _run(work + "\n" + LOADED) == "False"


def test_custard_cli_compile_does_not_load_numba(tmp_path: Path) -> None:
    code = ("import sys; from custard.cli import main\n"
            "rc = main(['compile', 'X(i,j)=B(i,j)*C(i,j)', '-o', 'x.gv'])\n"
            "print(rc, 'numba' in sys.modules)")
    assert _run(code, cwd=tmp_path) == "0 False"
    assert (tmp_path / "x.gv").read_text().startswith("digraph")


def test_custard_module_entry_point(tmp_path: Path) -> None:
    """``python -m custard.cli compile ... -o x.gv`` in a process that then reports whether
    numba was loaded (``-X importtime`` lists every module imported)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "custard.cli", "compile",
         "X(i,j)=B(i,k)*C(k,j)", "-s", "reorder(i,k,j)", "-o", "x.gv"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()}
    assert "custard.api" in imported and "sam.blocks.reducers" in imported
    assert not any(name == "numba" or name.startswith("numba.") for name in imported)
    assert (tmp_path / "x.gv").read_text().startswith("digraph")


ENGINES = f"""
import sys
import numpy as np
from formats.synthetic import random_tensor
from sam.graph.dot import load
from sam.sim.engine import simulate
g = load({str(GRAPH)!r})
t = {{"B": random_tensor((6, 5), 0.4, 1), "C": random_tensor((6, 5), 0.5, 2)}}
ref = simulate(g, t, engine="reference")
before = "numba" in sys.modules
fast = simulate(g, t, engine="fast")
same = (ref.cycles == fast.cycles and ref.tokens == fast.tokens
        and all(ref.outputs[k] == fast.outputs[k] for k in ref.outputs)
        and {{k: vars(b) for k, b in ref.blocks.items()}}
        == {{k: vars(b) for k, b in fast.blocks.items()}})
print(before, "numba" in sys.modules, same, ref.tokens > 0)
"""


def test_reference_engine_without_numba_fast_engine_loads_it() -> None:
    assert _run(ENGINES) == "False True True True"
