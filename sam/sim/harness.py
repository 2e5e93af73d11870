"""Run one block on token lists: the unit-test bench for primitives.

>>> from sam.blocks.scanners import LevelScanner
>>> from formats import Tensor
>>> B = Tensor.from_dense([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0], [0, 4, 0, 5]])
>>> out = run_block(LevelScanner("j", {"tensor": "B", "mode": "1"}), {"ref": "0, 1, 2, S0, D"},
...                 {"B": B})
>>> out["crd"]
'1, S0, 0, 2, S0, 1, 3, S1, D'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import Block
from sam.errors import SimulationError
from sam.runtime import wires as W
from sam.runtime.paths import ALL, FastPaths
from sam.runtime.tokens import Token, decode, encode, format_stream, parse_stream


class BenchResult(dict):
    """Output streams by port name (printed in the paper's notation), plus the block's state."""

    st: np.ndarray
    tokens: dict[str, list[Token]]
    times: dict[str, list[int]]  # each output token's arrival cycle


def run_block(
    block: Block,
    inputs: Mapping[str, str | Sequence[Token]],
    tensors: Mapping[str, Tensor] | None = None,
    *,
    arrivals: Mapping[str, Sequence[int]] | None = None,
    engine: str = "reference",
    paths: FastPaths = ALL,
    timing: str = "sam",
) -> BenchResult:
    """Feed whole input streams (all there from cycle 0 unless ``arrivals`` says otherwise)
    to ``block`` and return its output streams as strings (``.tokens`` holds the tokens);
    ``paths`` names the fast paths the kernel may take (all by default), ``timing`` the timing
    model (its state slots, :meth:`Block.timing_params`; latency 1)."""
    tensors = dict(tensors or {})
    in_ports = block.inputs()
    out_ports = block.outputs()
    feeds: list[tuple[int, list[Token], str]] = []
    for k, port in enumerate(in_ports):
        if port.name in inputs:
            raw = inputs[port.name]
            toks = parse_stream(raw, port.kind) if isinstance(raw, str) else list(raw)
            feeds.append((k, toks, port.name))
        elif port.kind == "ref" and block.is_root:
            feeds.append((k, parse_stream("0, D"), port.name))
    unknown = set(inputs) - {p.name for p in in_ports}
    if unknown:
        raise SimulationError(f"{block.dot_type} has no input(s) {sorted(unknown)}; its inputs "
                              f"are {[p.name for p in in_ports]}")
    n_in = len(feeds)
    n_ch = n_in + len(out_ports)
    longest = max([len(t) for _, t, _ in feeds] + [16])
    w = W.allocate(n_ch, 4 * longest + 64)
    ins = np.full(len(in_ports), -1, np.int64)
    for c, (k, toks, name) in enumerate(feeds):
        ins[k] = c
        kinds, data = encode(toks, in_ports[k].kind)
        times = list((arrivals or {}).get(name, [0] * len(toks)))
        for j in range(len(toks)):
            W.push(w, np.array([0, 1]), np.array([c]), 0, int(kinds[j]), int(data[j]), times[j])
    optr = np.arange(len(out_ports) + 1, dtype=np.int64)
    ochan = np.arange(n_in, n_ch, dtype=np.int64)
    st, fst, mem = block.initial_state(tensors)
    for name, value in block.timing_params(timing).items():
        st[block.state[name]] = value
    st[W.LAT] = 1
    st[W.PATHS_OFF] = paths.off()
    fn = block.kernel.py if engine == "reference" else block.kernel.jit
    while True:
        rc = fn(w, st, fst, ins, optr, ochan, *mem.args())
        if rc == W.RC_GROW:
            block.grow_memory(mem, int(st[W.WAIT]))
            continue
        break
    if rc == W.RC_ERR:
        msg = block.errors.get(int(st[W.ERR]), f"error {int(st[W.ERR])}")
        raise SimulationError(f"{block.dot_type}: {msg}")
    result = BenchResult()
    result.tokens = {}
    result.times = {}
    result.st = st
    result.mem = mem
    result.rc = rc
    for p, port in enumerate(out_ports):
        kinds, data, times = W.drain(w, n_in + p)
        toks = decode(kinds, data, port.kind)
        result.tokens[port.name] = toks
        result.times[port.name] = [int(a) for a in times]
        result[port.name] = format_stream(toks)
    return result
