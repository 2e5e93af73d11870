"""Bind a program's inputs from ``-t NAME=SPEC`` (``sam.bind`` specs), statement by statement
with :func:`sam.bind.bind_phases`: a synthetic spec takes its sizes from the tensors bound or
computed before it (computed ones stand in as empty tensors of the right shape). An input first
read by a host step has no graph to size it: bind it to ``random:DENSITY:SEED:SHAPE``, a file or
a shipped tensor."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from custard.dag.program import DagProgram
from custard.dag.progress import track
from custard.dag.shapes import TensorInfo, host_shape, info_of, variable_sizes
from formats.errors import ToolkitError
from formats.tensor import Tensor


def _host_input(name: str, spec: str, seed: int) -> Tensor:
    from sam.bind import BindError, synthetic_tensor

    if spec.startswith("random:"):
        return synthetic_tensor(spec, name, seed=seed)
    try:
        from formats.io import load_tensor

        return load_tensor(spec, None)
    except ToolkitError as err:
        raise BindError(f"-t {name}={spec}: {name} is first read by a host step, so it needs "
                        f"a shape: random:DENSITY:SEED:SHAPE, a file or a shipped tensor ({err})"
                        ) from None


def bind_inputs(prog: DagProgram, specs: Mapping[str, str], *, seed: int = 0
                ) -> dict[str, Tensor]:
    """The program's inputs (by name) from ``specs``."""
    from sam.bind import check_inputs

    needed = prog.inputs()
    check_inputs(needed, specs)
    bound: dict[str, Tensor] = {}
    stand: dict[str, Tensor] = {}
    infos: dict[str, TensorInfo] = {}
    for st in track(prog.statements, "binding inputs", unit="stmt"):
        try:
            _bind_statement(prog, st, specs, seed, bound, stand, infos)
        except ToolkitError as err:
            text = str(err)
            if " line " not in text.split(":")[0] and not text.startswith("line "):
                text = f"{prog.source} line {st.line}: {text}"
            raise type(err)(text) from None
    return {n: bound[n] for n in needed}


def _bind_statement(prog: DagProgram, st, specs: Mapping[str, str], seed: int,
                    bound: dict[str, Tensor], stand: dict[str, Tensor],
                    infos: dict[str, TensorInfo]) -> None:
    """Bind the inputs ``st`` reads first; record the shape it produces."""
    from custard.api import compile as compile_statement
    from custard.api import graphs_of
    from custard.dag.run import statement_formats
    from sam.bind import bind_phases

    if st.host:
        for n in st.reads:
            if n in specs and n not in bound:
                bound[n] = _host_input(n, specs[n], seed)
    elif any(n in specs and n not in bound for n in st.reads):
        # compiled only to size what it binds (its graphs are the phases of a program, the
        # statements before it computed ``stand``); shapes are checked below in any case
        graphs = graphs_of(compile_statement(st.expression, statement_formats(prog, st)))
        bind_phases([(graph, {}) for graph in graphs], specs, seed=seed, bound=bound,
                    computed=stand)
    for n in st.reads:
        if n in bound and n not in infos:
            infos[n] = info_of(bound[n], prog.formats.get(n))
    if st.host:
        shape = host_shape(st, infos)
    else:
        sizes = variable_sizes(st, infos)
        shape = tuple(sizes[v] for v in st.indices)
    infos[st.target] = TensorInfo.dense(*shape)
    empty = np.zeros((0, len(shape)), np.int64)
    stand[st.target] = Tensor.from_coo(empty, np.zeros(0), shape,
                                       prog.format_of(st.target, len(shape)))


def input_infos(prog: DagProgram, tensors: Mapping[str, Tensor]) -> dict[str, TensorInfo]:
    """:class:`TensorInfo` of bound inputs (compressed where the program's format says so)."""
    return {n: info_of(t, prog.formats.get(n)) for n, t in tensors.items()}
