"""Test helpers for the block unit tests (``tests/test_block_*.py``).

Reference streams are built independently of the block kernels, from *trees*: a fiber is a
list of ``(coordinate, child)`` pairs, where a child is the next level's fiber or, at the last
level, a value. :func:`level_stream` prints one level of such a tree the way the SAM paper's
level scanners stream it (Sec. 3.2, Figure 1d): the coordinates of every fiber at that level,
each fiber closed by a stop token; a stop that also closes enclosing fibers is raised by one
per closed level, and an empty fiber ``k`` levels above the streamed level appears as a bare
``Sk``. The root fiber is closed too, and the stream ends with ``D``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from formats import Tensor
from sam.blocks.base import Block
from sam.blocks.scanners import LevelScanner
from sam.runtime.tokens import D, Stop, format_stream
from sam.sim.harness import BenchResult, run_block

Fiber = list


def _level_tokens(fiber: Fiber, lvl: int, target: int, values: bool) -> list:
    if lvl == target:
        out = [child if values else crd for crd, child in fiber]
        out.append(Stop(0))
        return out
    if not fiber:
        return [Stop(target - lvl)]
    out = []
    for _, child in fiber:
        out += _level_tokens(child, lvl + 1, target, values)
    out[-1] = Stop(out[-1].level + 1)
    return out


def level_stream(tree: Fiber, target: int, *, values: bool = False) -> str:
    """Level ``target`` (0 = root fiber) of ``tree`` as a stream string; with ``values``, the
    children of that level (the values, for the last level) instead of its coordinates."""
    return format_stream(_level_tokens(tree, 0, target, values) + [D])


def depth(tree: Fiber) -> int:
    """Number of coordinate levels of a tree (the first non-empty path decides)."""
    d = 1
    node = tree
    while True:
        child = next((c for _, c in node), None) if isinstance(node, list) else None
        if not isinstance(child, list):
            return d
        node = child
        d += 1


def tree_from_dense(array: np.ndarray, letters: str) -> Fiber:
    """The fibertree a tensor stored with level formats ``letters`` (``d``/``s``, root first,
    identity mode order) has: compressed levels keep coordinates with a nonzero below them,
    dense levels keep every coordinate."""
    arr = np.asarray(array, dtype=float)

    def build(sub: np.ndarray, k: int) -> Fiber:
        out = []
        for c in range(sub.shape[0]):
            if letters[k] == "d" or np.any(sub[c] != 0):
                child = build(sub[c], k + 1) if k + 1 < len(letters) else float(sub[c])
                out.append((c, child))
        return out

    return build(arr, 0)


def positions(tree: Fiber, n: int) -> list[Fiber]:
    """The same tree shape per level with each coordinate replaced by its position in the level
    (what a level scanner emits as references): returns one tree per level of the ``n``."""
    out = []
    for target in range(n):
        counter = [0]

        def relabel(fiber: Fiber, lvl: int, target: int = target, counter=counter) -> Fiber:
            res = []
            for crd, child in fiber:
                if lvl == target:
                    res.append((counter[0], child))
                    counter[0] += 1
                else:
                    res.append((crd, relabel(child, lvl + 1)))
            return res

        out.append(relabel(tree, 0))
    return out


def scan_chain(tensor: Tensor, name: str = "B", engine: str = "reference") -> list[BenchResult]:
    """Run a chain of level scanners over every level of ``tensor`` (root first), each fed the
    previous one's reference stream; returns each scanner's outputs."""
    tensors = {name: tensor}
    outs: list[BenchResult] = []
    ref = "0, D"
    fmt = tensor.format
    for lvl, (letter, mode) in enumerate(zip(fmt.levels, fmt.mode_order, strict=True)):
        attrs = {"tensor": name, "mode": str(mode),
                 "format": "dense" if letter == "d" else "compressed"}
        if lvl == 0:
            attrs["root"] = "true"
        res = run_block(LevelScanner(f"s{lvl}", attrs), {"ref": ref}, tensors, engine=engine)
        outs.append(res)
        ref = res["ref"]
    return outs


def bench(block: Block, inputs: Mapping[str, str], tensors: Mapping[str, Tensor] | None = None,
          **kw) -> dict[str, str]:
    """``run_block`` outputs as a plain dict (exact strings, easy to compare)."""
    return dict(run_block(block, inputs, tensors, **kw))


def same_on_both_engines(block_factory, inputs: Mapping[str, str],
                         tensors: Mapping[str, Tensor] | None = None, *,
                         timing: str = "sam") -> BenchResult:
    """Run a fresh block on both engines (timing model ``timing``); outputs and the block's
    state (cycle counts included) must agree. Returns the reference run."""
    ref = run_block(block_factory(), inputs, tensors, timing=timing)
    fast = run_block(block_factory(), inputs, tensors, engine="fast", timing=timing)
    assert dict(fast) == dict(ref)
    assert np.array_equal(fast.st, ref.st)
    return ref


def stream(tokens: Sequence) -> str:
    """Format a list of tokens (ints, floats, ``Stop``, ``N``, ``D``)."""
    return format_stream(tokens)


def trees(levels: int, *, max_fiber: int = 3, max_crd: int = 8, leaf=None,
          empty_above: bool = True):
    """Hypothesis strategy: random fibertrees with ``levels`` coordinate levels (sorted, unique
    coordinates per fiber; empty fibers at any level, or only at the last level when not
    ``empty_above``), leaves drawn from ``leaf``."""
    from hypothesis import strategies as st

    leaf = leaf if leaf is not None else st.integers(-3, 5).map(float)

    def fiber(k: int):
        child = leaf if k == levels - 1 else fiber(k + 1)
        least = 0 if empty_above or k == levels - 1 else 1
        return st.lists(st.tuples(st.integers(0, max_crd), child), min_size=least,
                        max_size=max_fiber, unique_by=lambda t: t[0]).map(
                            lambda f: sorted(f, key=lambda t: t[0]))

    return fiber(0)


def map_level(tree: Fiber, level: int, fn) -> Fiber:
    """Apply ``fn(coordinate, child) -> (coordinate, child)`` to every entry at ``level``."""
    if level == 0:
        return [fn(c, child) for c, child in tree]
    return [(c, map_level(child, level - 1, fn)) for c, child in tree]
