"""The expressions the differential harness compiles with both Custards (issue 33).

Each is a name and a TACO command line (``EXPR -f=... -s=...``, the form of
``dot_graphs/kernel-suite.tsv`` and the original's ``compiler/sam-kernels.sh``):

* ``suite``: our kernel suite, ``dot_graphs/kernel-suite.tsv`` (the original's own list);
* ``extra``: the kernels of issue 33 and a few more natural ones (:data:`EXTRA`);
* ``corpus``: a seeded sample of the TACO website's log (``tests/data/taco-website``): the
  unique lines in the order of :func:`corpus_order`; ``record`` keeps the first
  :data:`CORPUS_SAMPLE` that the original compiles (the others are recorded as refused).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "dot_graphs" / "kernel-suite.tsv"
#: How many corpus lines the original compiles are kept, and the sample's seed.
CORPUS_SAMPLE = 40
CORPUS_SEED = 33

#: Issue 33's kernels (the first eight) and more natural ones.
EXTRA: dict[str, str] = {
    "x3_innerprod": "x=B(i,j,k)*C(i,j,k) -f=B:sss -f=C:sss",
    "x3_mttkrp_sparse": "X(i,j)=B(i,k,l)*C(j,k)*D(j,l) -f=X:ss -f=B:sss -f=C:ss -f=D:ss",
    "x3_mttkrp_dense": "X(i,j)=B(i,k,l)*C(j,k)*D(j,l) -f=X:dd -f=B:sss -f=C:dd -f=D:dd",
    "x_mat_sum": "x=B(i,j) -f=B:ss",
    "x_spmv_plus": "x(i)=B(i,j)*c(j)+d(i) -f=x:s -f=B:ss -f=c:s -f=d:s",
    "x_ttm_contract2": "X(i,l)=B(i,j,k)*C(j,k,l) -f=X:ss -f=B:sss -f=C:sss",
    "x_gram": "X(i,j)=B(i,k)*B(j,k) -f=X:ss -f=B:ss",
    "x_mat_innerprod": "x=B(i,j)*C(i,j) -f=B:ss -f=C:ss",
    "x_vec_dot": "x=b(i)*c(i) -f=b:s -f=c:s",
    "x_vec_sum": "x=b(i) -f=b:s",
    "x_row_sum": "x(i)=B(i,j) -f=x:s -f=B:ss",
    "x_outer": "X(i,j)=b(i)*c(j) -f=X:ss -f=b:s -f=c:s",
    "x_spmv_dense": "x(i)=B(i,j)*c(j) -f=x:d -f=B:ds -f=c:d",
    "x_mat_sub": "X(i,j)=B(i,j)-C(i,j) -f=X:ss -f=B:ss -f=C:ss",
    "x_mat_scale": "X(i,j)=b*C(i,j) -f=X:ss -f=C:ss",
    "x_ttv2": "x(i)=B(i,j,k)*c(j)*d(k) -f=x:s -f=B:sss -f=c:s -f=d:s",
    "x_matmul_dense_out": "X(i,j)=B(i,k)*C(k,j) -f=X:dd -f=B:ds -f=C:ds -s=reorder(i,k,j)",
    "x_tensor3_sum": "x=B(i,j,k) -f=B:sss",
}


@dataclass(frozen=True)
class Expression:
    """One expression of the harness: ``name``, ``group`` (suite, extra, corpus) and ``line``
    (the TACO arguments after ``taco``, the expression first)."""

    name: str
    group: str
    line: str

    @property
    def expression(self) -> str:
        """The index-notation expression (the line's first word, unquoted)."""
        return split_line(self.line)[0]


def split_line(line: str) -> list[str]:
    """A TACO command line as arguments (quotes removed, as a shell would)."""
    import shlex

    return shlex.split(line)


def suite() -> list[Expression]:
    """The kernel suite, read as ``scripts/compile_suite.py`` reads it."""
    from scripts.compile_suite import read_suite

    return [Expression(name, "suite", line) for name, line in read_suite(SUITE)]


def extra() -> list[Expression]:
    return [Expression(name, "extra", line) for name, line in EXTRA.items()]


def corpus_order(seed: int = CORPUS_SEED) -> list[str]:
    """The website's unique command lines that look like index notation, shuffled with
    ``seed`` (``scripts/corpus.py`` reads the log the same way)."""
    from scripts import corpus as mod

    lines = [ln for ln in mod.unique(mod.read_lines()) if _looks_like_notation(ln)]
    random.Random(seed).shuffle(lines)
    return lines


def _looks_like_notation(line: str) -> bool:
    try:
        first = split_line(line)[0]
    except ValueError:
        return False
    return re.fullmatch(r"\s*\w+(\([\w, ]*\))?\s*=.+", first) is not None


def corpus_name(line: str, seed: int = CORPUS_SEED) -> str:
    """``corpus_NNNN``: the line's place in :func:`corpus_order`."""
    return f"corpus_{corpus_order(seed).index(line):04d}"
