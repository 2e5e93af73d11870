"""The compiled kernels' cache keys (sam/runtime/jitcache.py): a kernel's key follows its own
code and what it calls, nothing else; kernels are compiled and loaded under that key."""

from __future__ import annotations

import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

import custard
from formats.synthetic import random_tensor
from sam.runtime import jitcache
from sam.sim.engine import Simulation


def _module(source: str, name: str = "sam.fake_kernels") -> types.SimpleNamespace:
    """Functions defined by ``source`` as if in a module of ours (``sam.*``)."""
    space: dict[str, object] = {"__name__": name}
    exec(compile(textwrap.dedent(source), f"<{name}>", "exec"), space)
    return types.SimpleNamespace(**{k: v for k, v in space.items() if callable(v)})


BASE = """
    LIMIT = 3

    def helper(x):
        return x + LIMIT

    def other(x):
        return x * 2

    def kernel(a):
        # a comment
        return helper(a[0])

    def kernel2(a):
        return other(a[0])
"""


def _keys(source: str) -> tuple[str, str]:
    m = _module(source)
    return jitcache.code_key(m.kernel), jitcache.code_key(m.kernel2)


def test_a_key_follows_the_kernels_own_code_and_what_it_calls() -> None:
    k1, k2 = _keys(BASE)
    assert (k1, k2) == _keys(BASE)  # stable
    assert k1 != k2
    # a comment or a blank line changes nothing
    assert _keys(BASE.replace("# a comment", "# another comment\n")) == (k1, k2)
    # the kernel's own code: only its key changes
    edited = _keys(BASE.replace("return helper(a[0])", "return helper(a[1])"))
    assert edited[0] != k1 and edited[1] == k2
    # a helper it calls: the kernels calling it, not the others
    edited = _keys(BASE.replace("return x + LIMIT", "return x - LIMIT"))
    assert edited[0] != k1 and edited[1] == k2
    # a module constant a helper reads (numba freezes it into the code)
    edited = _keys(BASE.replace("LIMIT = 3", "LIMIT = 4"))
    assert edited[0] != k1 and edited[1] == k2


def test_keys_of_every_kernel_are_distinct_and_name_their_files() -> None:
    from sam.graph import registry  # noqa: F401  (every block family)
    from sam.runtime.kernel import KERNELS

    keys = {name: k.key for name, k in KERNELS.items()}
    assert len(keys) >= 30 and len(set(keys.values())) == len(keys)
    scan = KERNELS["sam.blocks.scanners.scan"]
    assert scan.name == "sam.blocks.scanners.scan"
    assert jitcache._file_base(scan.py, scan.key).startswith(f"scanners.scan-{scan.key}.py")


def test_a_kernel_is_compiled_once_then_loaded_from_its_own_entry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With an empty cache the run compiles the graph's kernels (and says which); the same
    kernels are then on disk under their keys, and a second process would load them."""
    from sam.runtime.kernel import KERNELS

    monkeypatch.setenv("SAM_CACHE_DIR", str(tmp_path))
    graph = custard.compile("x(i)=b(i)")
    sim = Simulation(graph, {"b": random_tensor((40,), 0.5, 1)})
    names = sim.missing_kernels()
    kernels = {r.block.kernel.name for r in sim.runs.values()}
    # loaded in this process (an earlier test) or not: missing = not loaded and not on disk
    assert set(names) == {n for n in kernels if not KERNELS[n].loaded}
    r = sim.run("fast")
    assert sorted(r.compiled_kernels) == sorted(names)
    assert r.compile_time >= 0 and r.jit_time >= r.compile_time
    for name in names:
        assert KERNELS[name].cached
        assert any((tmp_path / "kernels").glob(f"*-{KERNELS[name].key}.*.nbi"))
    coords, vals = r.outputs["x"].to_coo()
    b = sim.tensors["b"]
    assert np.array_equal(vals, b.to_coo()[1])
    assert sim.missing_kernels() == []


def test_an_unwritable_cache_folder_falls_back_to_numbas_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SAM_CACHE_DIR", str(blocker))
    assert not jitcache._writable()
    assert "is not writable" in jitcache.where()
    monkeypatch.setenv("SAM_CACHE_DIR", str(tmp_path / "fine"))
    assert jitcache._writable() and jitcache.where().startswith("cached in")
