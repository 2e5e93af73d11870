"""A compiled scheduler loop for graphs whose blocks move few tokens per kernel call.

With feedback edges (coordinate skipping, SAM paper Sec. 4.2) the blocks of a strongly connected
component run in lock steps of at most the loop's latency, and with bounded FIFOs (Sec. 6's
queues made finite) a producer stops at every full FIFO: either way a kernel call moves a few
tokens, and a Python scheduler spends most of its time dispatching calls (about 7 us each).
:func:`drive` runs the engine's sweeps (:meth:`sam.sim.schedule.Scheduler._loop`) in compiled
code instead: every *unit* in dataflow order, a unit being a single block (called once per
sweep) or a cycle of the graph (its blocks called round after round until none moves),
publishing each block's horizon after its call as the engine does (``docs/timing-model.md``,
"Feedback edges and coordinate skipping"). Sweeps repeat until

* every block is done (:data:`ALL_DONE`),
* a sweep moves nothing (:data:`STALLED`; ``out[0]`` = 1 when a ring was full: the engine
  grows the rings, else reports a deadlock),
* a block needs the engine (:data:`NEED`: a memory to grow or a malformed stream; ``out``
  holds the block and its return code), or
* the call budget is spent (:data:`BUDGET`: the engine reports progress, then calls again).

``out[2]`` counts the kernel calls made.

A unit that is coordinate skipping's usual cycle, an intersecter and the two level scanners it
sends skips to, first runs in one loop without kernel calls
(:func:`sam.blocks.skiploop.skip_component`: the three blocks cycle by cycle, their state in
local variables); the driver's calls then carry on where it stopped.

The kernels called are the blocks' compiled kernels, the very machine code the engine calls,
so the tokens, cycles and statistics are the Python scheduler's: the same kernels under the
same protocol; only who dispatches them changed. The driver calls each kernel by its address
(:func:`kernel_address`) with numba's calling convention, the way numba calls one compiled
function from another but without linking the kernel's code into the driver (a driver
generated per graph, linking its kernels, took 7-27 s to compile). Every kernel has the same
argument types (the uniform signature, each memory a 1-D C-contiguous array), so one driver
serves every graph: it is compiled once and cached on disk with the kernels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sam.runtime import jitcache
from sam.runtime import wires as W
from sam.runtime.jit import jitable
from sam.runtime.kernel import compiled
from sam.sim.activity import pushed, record, record_streams

#: Return codes of :func:`drive`.
ALL_DONE, STALLED, NEED, BUDGET = 0, 1, 2, 3

#: Kernel calls :func:`drive` makes before it returns to the engine (progress, Ctrl-C).
CALL_BUDGET = 200_000

#: Int64 arrays per block in the driver's list (st, ins, optr, ochan, m0..m3), float64 ones
#: (fst, f0, f1).
N_INT, N_FLOAT = 8, 3


def drive_py(w, isfb, done, out, budget, horizons, addr, uptr, ublk, ia, fa, fuse, tp, tn, cin,
             cout):
    """The scheduler's sweeps over blocks 0..n-1 (see module docstring).

    ``fuse[u]`` names the blocks (scanner, scanner, intersecter) of unit u that
    :func:`sam.blocks.skiploop.skip_component` runs in one loop before the unit's kernel
    calls, or holds -1.

    ``addr[i]`` is block i's kernel address; units are ``ublk[uptr[u]:uptr[u+1]]`` (more than
    one block: a cycle of the graph); block i's arrays are described (address, length) by
    rows ``ia[8i:8i+8]`` (st, ins, optr, ochan, m0..m3) and ``fa[3i:3i+3]`` (fst, f0, f1);
    ``horizons`` is 1 when the graph has feedback edges. ``done`` (1 per finished block) and
    ``out`` are updated. ``tp``/``tn`` are the activity recorder's point buffers (series i is
    block i; :func:`sam.sim.activity.record` after every call that fired), of no series when
    it is off; ``cin``/``cout`` map channels to the series of their pops/pushes (empty: none
    watched)."""
    w = bare_wires(w)
    calls = 0
    n = addr.shape[0]
    # what each block waits for, from its last call: -1 nothing known (call it); c >= 0 input
    # channel c, changed when its tail or horizon moves; -2 room on an output, changed when
    # a consumer pops (the sum of its output channels' heads moves). A kernel that returned
    # for want of one of these returns the same until it changes, so calling it is skipped.
    watch = np.full(n, -1, np.int64)
    stamp = np.zeros(n, np.int64)
    stamp2 = np.zeros(n, np.int64)
    full = np.zeros(n, np.int64)  # the block's last call found a simulator ring full
    while True:
        progressed = False
        for u in range(uptr.shape[0] - 1):
            lo = uptr[u]
            hi = uptr[u + 1]
            if fuse[u, 0] >= 0:
                if fused(w, done, ia, fa, fuse[u, 0], fuse[u, 1], fuse[u, 2]):
                    progressed = True
                if tn.shape[0] > 0:
                    for j in range(3):
                        sample(w, tp, tn, cin, cout, ia, fuse[u, j])
                calls += 1  # the kernels take over where the loop stopped: call them all
                for j in range(3):
                    watch[fuse[u, j]] = -1
            while True:
                moved = False
                for j in range(lo, hi):
                    i = ublk[j]
                    if done[i] != 0:
                        continue
                    ochan = int_array(ia[N_INT * i + 3, 0], ia[N_INT * i + 3, 1])
                    x = watch[i]
                    if x >= 0:
                        if w.tail[x] == stamp[i] and w.horizon[x] == stamp2[i]:
                            continue
                    elif x == -2:
                        if heads(w, ochan) == stamp[i]:
                            continue
                    arrays = block_arrays(ia, fa, i)
                    st = arrays[0]
                    busy = st[W.BUSY]
                    rc = call_kernel(addr[i], w, *arrays)
                    calls += 1
                    out[2] += 1
                    if tn.shape[0] > 0 and st[W.BUSY] != busy:  # (no firing: nothing new)
                        record(tp, tn, i, st[W.T], st[W.BUSY], st[W.IDLE], st[W.STALL],
                               pushed(w, arrays[3], ochan))
                        if cin.shape[0] > 0:
                            record_streams(w, tp, tn, cin, cout, st[W.T], arrays[2], ochan)
                    if rc == W.RC_GROW or rc == W.RC_ERR:
                        out[0] = i
                        out[1] = rc
                        return NEED
                    if rc == W.RC_DONE:
                        done[i] = 1
                    if st[W.BUSY] != busy:
                        moved = True
                    full[i] = 1 if rc == W.RC_BUF else 0
                    watch[i] = -1
                    if rc == W.RC_IN:
                        x = st[W.WAIT]
                        if 0 <= x < isfb.shape[0]:
                            watch[i] = x
                            stamp[i] = w.tail[x]
                            stamp2[i] = w.horizon[x]
                    elif rc == W.RC_FIFO or rc == W.RC_BUF:
                        watch[i] = -2
                        stamp[i] = heads(w, ochan)
                    if horizons != 0 and W.publish(w, st, ochan, done[i], rc, isfb):
                        moved = True
                if hi - lo == 1:
                    if moved:
                        progressed = True
                    break
                if not moved:
                    break
                progressed = True
        finished = True
        for i in range(n):
            if done[i] == 0:
                finished = False
                break
        if finished:
            return ALL_DONE
        if not progressed:
            out[0] = 0
            for i in range(n):
                if done[i] == 0 and full[i] != 0:
                    out[0] = 1
            return STALLED
        if calls >= budget:
            return BUDGET


def block_arrays(ia, fa, i):
    """Block i's kernel arrays after the ``Wires`` record, as its kernel takes them (``st,
    fst, ins, optr, ochan, m0..m3, f0, f1``), from their descriptions ``ia``/``fa``."""
    a = N_INT * i
    b = N_FLOAT * i
    return (int_array(ia[a, 0], ia[a, 1]), float_array(fa[b, 0], fa[b, 1]),
            int_array(ia[a + 1, 0], ia[a + 1, 1]), int_array(ia[a + 2, 0], ia[a + 2, 1]),
            int_array(ia[a + 3, 0], ia[a + 3, 1]), int_array(ia[a + 4, 0], ia[a + 4, 1]),
            int_array(ia[a + 5, 0], ia[a + 5, 1]), int_array(ia[a + 6, 0], ia[a + 6, 1]),
            int_array(ia[a + 7, 0], ia[a + 7, 1]), float_array(fa[b + 1, 0], fa[b + 1, 1]),
            float_array(fa[b + 2, 0], fa[b + 2, 1]))


def sample(w, tp, tn, cin, cout, ia, i):
    """:func:`sam.sim.activity.record` of block i's current state (and of its watched
    channels)."""
    st = int_array(ia[N_INT * i, 0], ia[N_INT * i, 1])
    ochan = int_array(ia[N_INT * i + 3, 0], ia[N_INT * i + 3, 1])
    record(tp, tn, i, st[W.T], st[W.BUSY], st[W.IDLE], st[W.STALL],
           pushed(w, int_array(ia[N_INT * i + 2, 0], ia[N_INT * i + 2, 1]), ochan))
    if cin.shape[0] > 0:
        record_streams(w, tp, tn, cin, cout, st[W.T],
                       int_array(ia[N_INT * i + 1, 0], ia[N_INT * i + 1, 1]), ochan)


def fused(w, done, ia, fa, i, j, k):
    """:func:`sam.blocks.skiploop.skip_component` on scanners i, j and intersecter k, unless
    one is done; whether anything moved."""
    if done[i] != 0 or done[j] != 0 or done[k] != 0:
        return False
    return skip_component(w, block_arrays(ia, fa, i), block_arrays(ia, fa, j),
                          block_arrays(ia, fa, k))


def skip_component(*args):
    """:func:`sam.blocks.skiploop.skip_component` (bound when the driver compiles)."""
    raise NotImplementedError("compiled code only")


@jitable
def heads(w, ochan):
    """Tokens popped so far from the channels ``ochan`` (all of a block's outputs)."""
    total = 0
    for c in ochan:
        total += w.head[c]
    return total


def plain(dtype: type, *arrays: np.ndarray) -> bool:
    """Whether every array is 1-D, C-contiguous, writeable and of ``dtype`` (what
    :func:`describe` can hand to a kernel compiled for the uniform signature)."""
    return all(a.ndim == 1 and a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable
               for a in arrays)


def describe(arrays: list[np.ndarray]) -> np.ndarray:
    """Rows (address, length) of 1-D contiguous ``arrays`` (kept alive by the caller)."""
    return np.array([(a.ctypes.data, a.shape[0]) for a in arrays], np.int64).reshape(-1, 2)


def bare_wires(w):
    """``w`` with every array rebuilt over the same memory without its owner (compiled code
    only): a kernel then passes and indexes its rings without touching reference counts
    (about 40 ns less per call; the driver is called again whenever the rings grow)."""
    raise NotImplementedError("compiled code only")


def int_array(addr, n):
    """The int64 array of ``n`` elements at ``addr`` (compiled code only)."""
    raise NotImplementedError("compiled code only")


def float_array(addr, n):
    """The float64 array of ``n`` elements at ``addr`` (compiled code only)."""
    raise NotImplementedError("compiled code only")


def call_kernel(addr, w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Call the compiled kernel at ``addr`` (compiled code only: see :func:`_intrinsic`)."""
    raise NotImplementedError("call_kernel runs in compiled code only")


_DRIVE: Callable[..., int] | None = None
_DRIVE_KEY: str | None = None


def _intrinsic() -> object:
    """``call_kernel`` as a numba intrinsic: an indirect call, numba's calling convention,
    exceptions propagated."""
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def call_kernel(typingctx, addr, w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
        argtys = (w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1)
        sig = types.int64(addr, *argtys)

        def codegen(context, builder, signature, llargs):
            fnty = context.call_conv.get_function_type(types.int64, argtys)
            fn = builder.inttoptr(llargs[0], fnty.as_pointer())
            status, res = context.call_conv.call_function(builder, fn, types.int64, argtys,
                                                          llargs[1:])
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return res

        return sig, codegen

    return call_kernel


def _pointers() -> tuple[object, object, object]:
    """Intrinsics making an int64 address a pointer to int64, float64 or int8 elements."""
    from numba.core import types
    from numba.extending import intrinsic

    def make(dtype: object) -> object:
        @intrinsic
        def as_pointer(typingctx, addr):
            sig = types.CPointer(dtype)(addr)

            def codegen(context, builder, signature, args):
                return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

            return sig, codegen

        return as_pointer

    return make(types.int64), make(types.float64), make(types.int8)


def driver() -> Callable[..., int]:
    """The compiled :func:`drive_py` (compiled on first use, cached on disk)."""
    global _DRIVE
    if _DRIVE is None:
        import numba

        key = driver_key()  # before the placeholders below are bound
        globals()["call_kernel"] = _intrinsic()
        int_ptr, float_ptr, byte_ptr = _pointers()

        @numba.njit(inline="always")
        def int_array(addr, n):
            return numba.carray(int_ptr(addr), n)

        @numba.njit(inline="always")
        def float_array(addr, n):
            return numba.carray(float_ptr(addr), n)

        @numba.njit(inline="always")
        def bare_wires(w):
            return W.Wires(numba.carray(byte_ptr(w.kind.ctypes.data), w.kind.shape),
                           numba.carray(int_ptr(w.data.ctypes.data), w.data.shape),
                           numba.carray(float_ptr(w.fdata.ctypes.data), w.fdata.shape),
                           numba.carray(int_ptr(w.time.ctypes.data), w.time.shape),
                           numba.carray(int_ptr(w.head.ctypes.data), w.head.shape),
                           numba.carray(int_ptr(w.tail.ctypes.data), w.tail.shape),
                           numba.carray(int_ptr(w.depth.ctypes.data), w.depth.shape),
                           numba.carray(int_ptr(w.ptime.ctypes.data), w.ptime.shape),
                           numba.carray(int_ptr(w.count.ctypes.data), w.count.shape),
                           numba.carray(int_ptr(w.horizon.ctypes.data), w.horizon.shape))

        globals()["int_array"] = int_array
        globals()["float_array"] = float_array
        globals()["bare_wires"] = bare_wires
        from sam.blocks import skiploop

        globals()["skip_component"] = skiploop.skip_component
        globals()["block_arrays"] = numba.njit(inline="always")(block_arrays)
        globals()["fused"] = numba.njit(inline="always")(fused)
        globals()["sample"] = numba.njit(inline="always")(sample)
        _DRIVE = compiled(drive_py, key)
    return _DRIVE


def driver_key() -> str:
    """The compiled driver's cache key: its code, the skipping loop it links
    (:func:`sam.blocks.skiploop.skip_component`) and the code binding its placeholders."""
    global _DRIVE_KEY
    if _DRIVE_KEY is None:
        from sam.blocks import skiploop

        _DRIVE_KEY = jitcache.code_key(drive_py, skiploop.skip_component, driver, _intrinsic,
                                       _pointers, sample, record, pushed, record_streams)
    return _DRIVE_KEY


def driver_cached() -> bool:
    """Whether this version of the compiled driver is on disk."""
    return jitcache.is_cached(drive_py, driver_key())


def driver_ready() -> bool:
    """Whether the compiled driver is loaded in this process or on disk (no compiling)."""
    return (_DRIVE is not None and bool(_DRIVE.overloads)) or driver_cached()


def signature_of(args: tuple) -> tuple:
    """numba types of a kernel call's arguments."""
    import numba

    return tuple(numba.typeof(a) for a in args)


def kernel_address(dispatcher: object, sig: tuple) -> int:
    """Address of ``dispatcher``'s compiled code for ``sig`` (compiled already)."""
    cres = dispatcher.overloads[sig]
    return cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)


def driver_signature() -> tuple:
    """The argument types of :func:`drive_py` (those ``CompiledTier._driver_args`` passes)."""
    i64 = np.zeros(1, np.int64)
    table = np.zeros((1, 2), np.int64)
    return signature_of((W.allocate(1, 4), np.zeros(1, np.int8), i64, i64, np.int64(1),
                         np.int64(0), i64, i64, i64, table, table,
                         np.zeros((1, 3), np.int64), np.zeros((1, 2, 5), np.int64), i64, i64,
                         i64))


def uniform_signature(wires: W.Wires) -> tuple:
    """The argument types every kernel called by :func:`drive` must have."""
    i64 = np.zeros(1, np.int64)
    f64 = np.zeros(1, np.float64)
    return signature_of((wires, i64, f64, i64, i64, i64, i64, i64, i64, i64, f64, f64))
