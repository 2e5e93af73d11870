"""The original Custard's graphs that are wrong in the original too, each refused here in one
line: name -> (a part of our refusal, why the original's graph is wrong), per record set (taco
commit, :data:`KNOWN`)."""

from __future__ import annotations

from dataclasses import dataclass, field

#: taco 6570336a ("remove CrdHold") wires a reduction over two or more variables into an
#: order-2 accumulator without a value input (its value goes nowhere, two value streams reach
#: the result's writer).
NO_VALUE = ("input val is not connected",
            "the original Custard wires no value into its spaccumulator 2 and two value streams "
            "into the result's writer: no simulator can run it")
#: ... or into an order-1 accumulator keyed by a reduced variable (its ``in0`` is not an index
#: of the result), whose coordinates do not line up with the values it gets.
SPACC1 = ("coordinate and value streams are not aligned",
          "its spaccumulator 1 is keyed by a reduced variable (in0 is not an index of the "
          "result), whose coordinates do not line up with its values: the original's SpAcc1 "
          "(sam compiler_fix 4ca552c5) fails its own assertion on x=B(i,j) ('The inner value "
          "(D) must be a non-control token')")
#: A coordinate dropper over a union (as weiya711/sam's mat_residual, docs/fidelity.md).
UNION_DROP = ("values were written but the last level",
              "its crddrop i,j drops the i of the union that have no j: more values than "
              "coordinates, as in weiya711/sam's mat_residual and mat_mattransmul (the tip's are "
              "the same graphs), whose gold check fails on the original simulator")
#: Two accesses of one tensor (``B(i,k)*B(j,k)``) merged by name.
SAME_NAME = ("is connected 2 times",
             "the original names both accesses of one tensor alike (B(i,k)*B(j,k)): a merger "
             "gets two streams of one name (in-B) and one arrayvals serves both accesses, so "
             "the multiplier lacks an operand")
#: An accumulator and an ALU (or two accumulators) both feeding the result's value writer.
TWO_VALUES = ("input val is connected 2 times",
              "two value streams reach the result's value writer (an accumulator and the add "
              "that should take its result; the add has one operand)")
#: A constant operand (``+5``) has no node.
CONSTANT = ("input val:in1 is not connected",
            "the original Custard writes no node for the constant: its add has one operand")
#: Accumulators of order 0 (the original simulator has orders 1 and 2 only).
ORDER0 = ("order='0'",
          "an spaccumulator of order 0: the original simulator has accumulators of order 1 "
          "and 2 only (SpAcc1, SpAcc2)")
#: Accumulator coordinate inputs or outputs of variables it does not keep.
ACC_WIRING = ("spaccumulator",
              "its accumulators take and give coordinates of variables they do not keep "
              "(several accumulators write the same levels)")

WRONG_IN_ORIGINAL: dict[str, tuple[str, str]] = {
    "tensor3_innerprod": NO_VALUE, "x3_innerprod": NO_VALUE, "x_tensor3_sum": NO_VALUE,
    "x_ttm_contract2": NO_VALUE,
    "tensor3_mttkrp": SPACC1, "x3_mttkrp_sparse": SPACC1, "x3_mttkrp_dense": SPACC1,
    "x_mat_sum": SPACC1, "x_mat_innerprod": SPACC1, "x_ttv2": SPACC1,
    "mat_residual": UNION_DROP, "mat_mattransmul": UNION_DROP, "x_spmv_plus": UNION_DROP,
    "x_gram": SAME_NAME,
    "corpus_0001": NO_VALUE, "corpus_0008": NO_VALUE, "corpus_0019": NO_VALUE,
    "corpus_0020": NO_VALUE, "corpus_0031": NO_VALUE, "corpus_0033": NO_VALUE,
    "corpus_0036": NO_VALUE,
    "corpus_0018": SPACC1,
    "corpus_0013": UNION_DROP,
    "corpus_0002": SAME_NAME,
    "corpus_0003": TWO_VALUES,
    "corpus_0012": CONSTANT, "corpus_0035": CONSTANT,
    "corpus_0029": ORDER0, "corpus_0034": ORDER0,
    "corpus_0023": ACC_WIRING, "corpus_0030": ACC_WIRING,
}

#: Graphs of the original that we do not read yet: name -> (part of the refusal, why).
NOT_YET: dict[str, tuple[str, str]] = {}

#: Original graphs right here only on some inputs, refused in one line on the others, and
#: wrong on the original simulator on those too: name -> (part of the refusal, why).
ROW_KEPT = ("do not match the",
            "right when every coordinate kept above its accumulator (by a dropper, or on a "
            "dense level) has a nonempty row, else refused in one line (the writer gets fewer "
            "fibers than coordinates): an empty row is no fiber for the original's writers "
            "either (its CompressWrScan skips a stop after a stop, its dense writer and "
            "ValsWrScan pack the values; sam/sim/src/wr_scanner.py), so its rows shift")
RIGHT_WHEN: dict[str, tuple[str, str]] = {
    name: ROW_KEPT for name in ("x_matmul_dense_out", "corpus_0022", "corpus_0026")
}

# --- taco edc4195a, the last commit before the CrdHold removal (crdhold + SparseAccumulator1/2,
# the conventions of weiya711/sam's own graphs): filled from the compare on its records.
#: A reduce between the multiplier and an accumulator: it sums each innermost fiber, though
#: the innermost variable is kept (Gustavson's j) or accumulated by the accumulator itself.
_REDUCE_WHY = ("a reduce sums each innermost fiber before the spaccumulator, though that "
               "variable is kept by the result or by the accumulator (weiya711/sam's own "
               "graphs of these kernels have no such reduce)")
REDUCE_ACC = ("coordinate and value streams are not aligned", _REDUCE_WHY)
#: ... seen first at the crdhold of the outer variable (a dense result, a dropper above).
REDUCE_ACC_HOLD = ("stop tokens do not match the repeat signals",
                   _REDUCE_WHY + "; here the crdhold above it is fed misaligned streams first")
#: An order-1 accumulator feeding an order-2 one its values only.
ACC_CHAIN = ("is not connected",
             "an spaccumulator 1 feeds an spaccumulator 2 its values only (no coordinate "
             "input: the result's coordinates are lost), behind a chain of reduces")
#: An accumulator fed the sum of a product and another operand (added once per point).
ADD_INTO_ACC = ("misaligned fibers",
                "the accumulator is fed B(i,j)+C(i,k)*D(k,j) per point (B added once per k) and "
                "a union merges B's j with the accumulator's point stream (different levels)")
#: Order-2 accumulators given a third kept variable, or accumulators of order 4 and 5.
ACC_ORDER = ("does not match any output of node",
             "an spaccumulator 2 wired for three or more kept variables (an out-i edge it has "
             "no output for): the original's SparseAccumulator2 keeps two")
ACC_ORDER5 = ("lacks attribute in3",
              "spaccumulators of order 4 and 5: the original simulator has accumulators of "
              "order 1 and 2 only")
WRONG_PRE: dict[str, tuple[str, str]] = {
    **{n: REDUCE_ACC for n in ("matmul_kij", "matmul_kji", "matmul_ikj", "matmul_jki",
                               "mat_vecmul_ji", "vec_spacc_simple", "mat_spacc_simple",
                               "corpus_0007", "corpus_0022", "corpus_0026")},
    **{n: REDUCE_ACC_HOLD for n in ("x_matmul_dense_out", "corpus_0005", "corpus_0010",
                                    "corpus_0021")},
    **{n: ACC_CHAIN for n in ("x_ttm_contract2", "corpus_0008", "corpus_0020", "corpus_0023",
                              "corpus_0031", "corpus_0033", "corpus_0036")},
    **{n: UNION_DROP for n in ("mat_residual", "mat_mattransmul", "x_spmv_plus",
                               "corpus_0013")},
    **{n: SAME_NAME for n in ("x_gram", "corpus_0002", "corpus_0034")},
    **{n: CONSTANT for n in ("corpus_0012", "corpus_0035")},
    "corpus_0003": ADD_INTO_ACC, "corpus_0000": ACC_ORDER, "corpus_0024": ACC_ORDER,
    "corpus_0030": ACC_ORDER5,
}
NOT_YET_PRE: dict[str, tuple[str, str]] = {}
RIGHT_WHEN_PRE: dict[str, tuple[str, str]] = {}


@dataclass(frozen=True)
class Known:
    """The refusal tables of one record set: ``wrong`` (wrong in the original too),
    ``not_yet`` (not read here yet), ``right_when`` (right on some inputs only)."""

    wrong: dict[str, tuple[str, str]]
    not_yet: dict[str, tuple[str, str]]
    right_when: dict[str, tuple[str, str]]
    #: graphs whose cycles may differ from the original simulator's by more than 5% but at
    #: most :data:`CYCLES_SLACK` cycles (small runs): name -> why
    cycles_off: dict[str, str] = field(default_factory=dict)


#: cycles a listed graph (``Known.cycles_off``) may differ by on a run where 5% is less
CYCLES_SLACK = 2
#: edc4195a's graphs with a constant difference that exceeds 5% only on the smallest runs
#: (none since the dropper's rule 12 timing; mat_elemmul was +1 cycle on every run before)
CYCLES_OFF_PRE: dict[str, str] = {}


#: taco commit (8 hex digits, as in the records' provenance.json) -> its tables.
KNOWN: dict[str, Known] = {
    "6570336a": Known(WRONG_IN_ORIGINAL, NOT_YET, RIGHT_WHEN),
    "edc4195a": Known(WRONG_PRE, NOT_YET_PRE, RIGHT_WHEN_PRE, CYCLES_OFF_PRE),
}


def for_commit(commit: str) -> Known:
    """The tables of the record set compiled by taco ``commit`` (empty for an unknown one)."""
    return KNOWN.get(commit[:8], Known({}, {}, {}))
