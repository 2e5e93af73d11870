"""Host steps of a program (``host: NAME = expression``): small dense operations run in numpy
(GOGETA Alg. 1's inverses of N x N matrices)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

import numpy as np

from custard.dag.program import Statement
from sam.errors import SimulationError

_HOST_NS: dict[str, Callable] = {
    "inv": np.linalg.inv, "solve": np.linalg.solve, "pinv": np.linalg.pinv, "diag": np.diag,
    "sqrt": np.sqrt, "abs": np.abs, "eye": np.eye,
}


def eval_host(st: Statement, arrays: Mapping[str, np.ndarray]) -> np.ndarray:
    """Evaluate a host step on dense ``arrays`` (names checked by the parser)."""
    tree = ast.parse(st.host_expr, mode="eval")
    code = compile(tree, f"<line {st.line}>", "eval")
    env = {**_HOST_NS, **{n: np.asarray(a, dtype=float) for n, a in arrays.items()}}
    try:
        value = eval(code, {"__builtins__": {}}, env)  # noqa: S307 - a checked expression
    except (ValueError, np.linalg.LinAlgError, TypeError) as err:
        raise SimulationError(f"line {st.line}: host step {st.text}: {err}") from None
    return np.atleast_1d(np.asarray(value, dtype=float)) if np.ndim(value) == 0 else \
        np.asarray(value, dtype=float)
