"""Coordinate skipping's cycle in one compiled loop: two level scanners and their intersecter.

With coordinate skipping (SAM paper Sec. 4.2) an intersecter and the two level scanners it
sends skips to form a cycle of the graph: the scanners fire only as far as the intersecter's
horizon says no skip can still reach them, so the three run in lock steps of a cycle or two
and every kernel call moves one or two tokens. :func:`skip_component` runs those lock steps in
one loop: the scheduler's rounds over the cycle (:func:`sam.sim.loops.drive_py`), with the
blocks' own kernels (:func:`sam.blocks.scanners.scan`, :func:`sam.blocks.merges.merge`)
inlined into the loop instead of called by address (a call passes the uniform signature's
arrays, about a third of its cost, and counts references to them). Same kernels, same
protocol: the tokens, cycles, statistics and horizons are those of the kernel calls
(``tests/test_skiploop.py`` compares every ring array with the loop on and off).

A kernel that finishes (done token), fails (malformed stream) or asks for memory ends the
loop; the driver's own call of that kernel then carries on, as after any kernel return.
"""

from __future__ import annotations

from collections.abc import Sequence

from sam.blocks.merges import INTERSECT, OP, OPERANDS, merge
from sam.blocks.scanners import LOOKAHEAD, scan
from sam.sim.jit import jitable
from sam.sim.wires import BUSY, RC_DONE, RC_ERR, RC_GROW, WIDTH, publish

#: Use the loop (tests turn it off to compare; read when a simulation sets up its driver).
ENABLED = True

#: The kernels' Python functions, inlined into the loop (the driver calls the same kernels
#: compiled on their own, by address).
SCAN = jitable(inline=True)(scan.py)
MERGE = jitable(inline=True)(merge.py)


@jitable(inline=True)
def skip_component(w, isfb, sa, fsa, ina, opa, oca, ma0, ma1, ma2, ma3, fa0, fa1,
                   sb, fsb, inb, opb, ocb, mb0, mb1, mb2, mb3, fb0, fb1,
                   si, fsi, ini, opi, oci, mi0, mi1, mi2, mi3, fi0, fi1):
    """Run the cycle scanner A, scanner B, intersecter (each block's state, wiring and
    memories as the driver describes them) in the scheduler's rounds: each kernel as far as it
    goes, then its horizon published by the driver's rule (:func:`sam.sim.wires.publish`),
    until a round moves nothing or a kernel returns done, an error or a memory to grow;
    whether anything moved."""
    progressed = False
    while True:
        busy = sa[BUSY]
        rc = SCAN(w, sa, fsa, ina, opa, oca, ma0, ma1, ma2, ma3, fa0, fa1)
        moved, stop = outcome(w, sa, oca, busy, rc, isfb)
        if stop:
            return progressed or moved
        busy = sb[BUSY]
        rc = SCAN(w, sb, fsb, inb, opb, ocb, mb0, mb1, mb2, mb3, fb0, fb1)
        mb, stop = outcome(w, sb, ocb, busy, rc, isfb)
        moved = moved or mb
        if stop:
            return progressed or moved
        busy = si[BUSY]
        rc = MERGE(w, si, fsi, ini, opi, oci, mi0, mi1, mi2, mi3, fi0, fi1)
        mi, stop = outcome(w, si, oci, busy, rc, isfb)
        moved = moved or mi
        if stop or not moved:
            return progressed or moved
        progressed = True


@jitable(inline=True)
def outcome(w, st, ochan, busy, rc, isfb):
    """After a kernel call (``busy`` the block's firings before): whether it moved (fired, or
    published a later horizon), and whether the loop must stop (done, error, memory to grow:
    the driver's call of the kernel handles it)."""
    fired = st[BUSY] != busy
    if rc == RC_DONE or rc == RC_ERR or rc == RC_GROW:
        return fired, True
    return publish(w, st, ochan, False, rc, isfb) or fired, False


def component(runs: Sequence[object]) -> tuple[int, int, int] | None:
    """Positions in ``runs`` (a cycle's block runtimes, :class:`sam.sim.engine.BlockRun`) of
    scanner A, scanner B and the intersecter when :func:`skip_component` runs them: the
    cycle ``skip()`` builds and ``tests/test_skiploop.py`` checks, a two-operand intersecter
    whose four inputs are the crd and ref outputs of two level scanners (each output one
    channel, feeding nothing else), all of width 1, no lookahead; else None (the driver calls
    the kernels one by one, as for any other cycle)."""
    if not ENABLED or len(runs) != 3:
        return None
    inter = [j for j, r in enumerate(runs) if r.block.dot_type == "intersect"]
    scans = [j for j, r in enumerate(runs) if r.block.dot_type == "fiberlookup"]
    if len(inter) != 1 or len(scans) != 2:
        return None
    ri = runs[inter[0]]
    if ri.st[OPERANDS] != 2 or ri.st[OP] != INTERSECT or ri.ins.shape[0] != 4 \
            or (ri.ins < 0).any() or ri.optr.shape[0] < 4 or ri.st[WIDTH] > 1:
        return None
    order = []
    for k in range(2):
        want = (int(ri.ins[2 * k]), int(ri.ins[2 * k + 1]))
        found = [j for j in scans if tuple(int(c) for c in runs[j].ochan) == want
                 and tuple(int(p) for p in runs[j].optr) == (0, 1, 2)]
        if len(found) != 1:
            return None
        rs = runs[found[0]]
        if rs.ins.shape[0] < 1 or rs.ins[0] < 0 or rs.st[WIDTH] > 1 or rs.st[LOOKAHEAD] != 0:
            return None
        order.append(found[0])
    if order[0] == order[1]:
        return None
    return order[0], order[1], inter[0]
