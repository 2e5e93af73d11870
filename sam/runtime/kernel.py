"""Block kernels: the one definition of each primitive's behaviour and timing.

A *kernel* is a plain Python function, restricted to what numba can compile (numbers, numpy
arrays, the :class:`~sam.runtime.wires.Wires` record), that advances one block as far as its inputs
allow. Each loop iteration is one *firing* of the block, i.e. one cycle of the timing model:

1. find the input tokens this firing needs (the block's state says which); if one has not been
   produced yet, return :data:`~sam.runtime.wires.RC_IN` (the scheduler runs the producer);
2. the firing cycle is the latest of the block's next free cycle and the arrival cycles of those
   tokens (cycles spent waiting count as *idle*);
3. decide what to pop and emit (at most one token per input and per output);
4. find room on every output it emits to (with bounded FIFOs the cycle may move later: *stall*);
5. commit: pop, emit with arrival cycle = firing cycle + latency, advance the block's clock.

Nothing is changed before step 5, so a kernel that returns early simply runs the same firing
again when resumed. The reference engine calls ``kernel.py``; the fast engine calls
``kernel.jit``, the same code compiled by numba (cached on disk). numba is imported only then:
helpers kernels call are marked :func:`~sam.runtime.jit.jitable` and registered with numba right
before the first compile.

Uniform signature: ``fn(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1) -> return code``
where ``st``/``fst`` are the block's int64/float64 state (common slots in :mod:`sam.runtime.wires`;
the block family's own slots, from ``P`` on, are named by a :class:`State`), ``ins[k]`` the
channel of input port k (-1 when unconnected), ``optr``/``ochan`` the channels of each output
port (CSR), and ``m0..m3``/``f0, f1`` the block's int64/float64 memories (level arrays, value
arrays, accumulator buffers). The kernel's own names for those six arguments are the names
blocks give their memories by (:attr:`Kernel.memories`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from sam.runtime import jitcache
from sam.runtime.jit import jitable
from sam.runtime.wires import (
    BUSY,
    ERR,
    ERR_DATA,
    ERR_KIND,
    ERR_PORT,
    FIRST_T,
    FSTATE_SLOTS,
    IDLE,
    LANE_T,
    LANES,
    LAT,
    RC_BUF,
    RC_ERR,
    RC_FIFO,
    RC_GROW,
    STALL,
    STATE_SLOTS,
    WAIT,
    WIDTH,
    P,
    T,
    hkind,
    htime,
    ready,
    room,
)

#: Sentinel returned by :func:`arrive` / :func:`reserve` helpers when the firing cannot happen.
NOT_YET = -1
#: Returned by a kernel's step helper that fired or changed phase: the kernel loops again
#: (every other value is the kernel's return code).
AGAIN = -1

#: Memory arguments of the uniform kernel signature: this many int64 arrays, then float64 ones.
INT_MEMORIES, FLOAT_MEMORIES = 4, 2
#: Position of the first memory argument in the uniform signature.
FIRST_MEMORY_ARG = 6


class State:
    """Named slots of a block family's kernel state, numbered once.

    ``State(size=0, phase=NEED_REF, cur=[0, 0, 0, 0])`` declares int64 slots ``st[P]``,
    ``st[P+1]``, ... in the order given, each with its initial value; a list declares that many
    consecutive slots (``cur`` is ``st[P+2:P+6]``). Kernels index ``st`` with module-level int
    constants unpacked from :attr:`slots` (numba sees plain ints); blocks give parameters by
    name to :meth:`initial`. :meth:`floats` declares the float64 state ``fst`` the same way.
    """

    def __init__(self, **slots: int | Sequence[int]) -> None:
        self._setup(P, STATE_SLOTS, np.int64, slots)

    @classmethod
    def floats(cls, **slots: float | Sequence[float]) -> State:
        """Named slots of the float64 state ``fst``, from slot 0."""
        state = cls.__new__(cls)
        state._setup(0, FSTATE_SLOTS, np.float64, slots)
        return state

    def _setup(self, base: int, size: int, dtype: type, slots: Mapping[str, object]) -> None:
        self.index: dict[str, int] = {}
        self.width: dict[str, int] = {}
        self.size = size
        self.dtype = dtype
        self.defaults = np.zeros(size, dtype)
        k = base
        for name, init in slots.items():
            values = list(init) if isinstance(init, Sequence) else [init]
            if k + len(values) > size:
                raise ValueError(f"state slot {name!r} does not fit in {size} slots")
            self.index[name] = k
            self.width[name] = len(values)
            self.defaults[k: k + len(values)] = values
            k += len(values)

    @property
    def slots(self) -> tuple[int, ...]:
        """The first slot of every name, in declaration order (unpack into kernel constants)."""
        return tuple(self.index.values())

    def __getitem__(self, name: str) -> int:
        return self.index[name]

    def initial(self, values: Mapping[str, int | float | Sequence[int | float]]) -> np.ndarray:
        """A fresh state array: the declared initial values, overridden by ``values`` by name."""
        st = self.defaults.copy()
        for name, value in values.items():
            if name not in self.index:
                raise ValueError(f"no state slot {name!r}; declared: {', '.join(self.index)}")
            k = self.index[name]
            vals = list(value) if isinstance(value, Sequence) else [value]
            if len(vals) != self.width[name]:
                raise ValueError(f"state slot {name!r} holds {self.width[name]} value(s), "
                                 f"got {len(vals)}")
            st[k: k + len(vals)] = vals
        return st


#: Every kernel defined so far, by :attr:`Kernel.name` (``sam-sim warm`` compiles them).
KERNELS: dict[str, Kernel] = {}


def compiled(fn: Callable[..., object], key: str) -> Callable[..., object]:
    """``fn`` as a numba dispatcher with the kernels' options, cached on disk under ``key``
    (helpers marked :func:`~sam.runtime.jit.jitable` are registered with numba when it
    compiles, :func:`sam.runtime.jitcache.enable`)."""
    import numba

    dispatcher = numba.njit(boundscheck=False, nogil=True)(fn)
    jitcache.enable(dispatcher, key)
    return dispatcher


class Kernel:
    """A block kernel with its plain-Python and numba-compiled forms."""

    def __init__(self, fn: Callable[..., int]) -> None:
        code = fn.__code__
        n_args = FIRST_MEMORY_ARG + INT_MEMORIES + FLOAT_MEMORIES
        if code.co_argcount != n_args:
            raise TypeError(f"kernel {fn.__name__} takes {code.co_argcount} arguments; the "
                            f"uniform kernel signature has {n_args}")
        self.py = fn
        self.__name__ = fn.__name__
        #: ``module.function``: the kernel's name in :data:`KERNELS` and in the disk cache
        self.name = f"{fn.__module__}.{fn.__qualname__}"
        KERNELS[self.name] = self
        self._key: str | None = None
        self.__doc__ = fn.__doc__
        #: The kernel's names of its memory arguments (int64 ones, then float64 ones).
        self.memories: tuple[str, ...] = code.co_varnames[FIRST_MEMORY_ARG:n_args]
        self._jit: Callable[..., int] | None = None

    def memory(self, name: str) -> int:
        """Position of memory argument ``name`` (0..3 int64, 4..5 float64; see
        :func:`need_memory`)."""
        return self.memories.index(name)

    @property
    def loaded(self) -> bool:
        """Whether the compiled form is loaded in this process (compiled or read from the disk
        cache for at least one signature)."""
        return self._jit is not None and bool(self._jit.overloads)

    @property
    def key(self) -> str:
        """The kernel's cache key: a hash of its code and of everything it calls
        (:func:`sam.runtime.jitcache.code_key`)."""
        if self._key is None:
            self._key = jitcache.code_key(self.py)
        return self._key

    @property
    def cached(self) -> bool:
        """Whether this version of the kernel is compiled on disk (no numba import)."""
        return jitcache.is_cached(self.py, self.key)

    @property
    def jit(self) -> Callable[..., int]:
        """The numba-compiled kernel (compiled on first call for a signature, or loaded from
        the disk cache, :mod:`sam.runtime.jitcache`)."""
        if self._jit is None:
            self._jit = compiled(self.py, self.key)
        return self._jit

    def __call__(self, *args):
        return self.py(*args)


def kernel(fn: Callable[..., int]) -> Kernel:
    """Declare a block kernel (see module docstring)."""
    return Kernel(fn)


@jitable
def arrive(w, st, c, t):
    """Cycle ``>= t`` at which the head token of input channel ``c`` is there, or NOT_YET.

    On NOT_YET the block's WAIT slot names the channel.
    """
    if not ready(w, c):
        st[WAIT] = c
        return NOT_YET
    a = htime(w, c)
    return a if a > t else t


@jitable
def reserve(w, st, optr, ochan, port, t):
    """Cycle ``>= t`` at which output ``port`` has room, or a negative code (see ``blocked``)."""
    r = room(w, optr, ochan, port)
    if r < 0:
        st[WAIT] = port
        return r
    return r if r > t else t


@jitable
def reserve_all(w, st, optr, ochan, t):
    """Like :func:`reserve`, for every output port at once (a firing that emits on all)."""
    t_out = t
    for port in range(optr.shape[0] - 1):
        r = reserve(w, st, optr, ochan, port, t)
        if r < 0:
            return r
        if r > t_out:
            t_out = r
    return t_out


@jitable(inline=True)
def settled(w, st, c, t):
    """Whether every token of feedback channel ``c`` arriving by cycle ``t`` is known: the
    channel holds one (the head, to take) or no token not yet pushed can arrive by ``t`` (its
    horizon is later). Otherwise the block must wait (WAIT names the channel): a block on a
    cycle fires in cycle t only when nothing can still arrive by t (docs/timing-model.md)."""
    if ready(w, c) or w.horizon[c] > t:
        return True
    st[WAIT] = c
    return False


@jitable
def blocked(code):
    """Return code for a failed :func:`reserve` (ring full or modeled FIFO full)."""
    return RC_BUF if code == -1 else RC_FIFO


@jitable(inline=True)
def wait_until(st, t):
    """Move the block's clock to cycle ``t`` without a firing, the cycles until then idle (a
    token taken free, e.g. under ``--timing original``)."""
    if t > st[T]:
        st[IDLE] += t - st[T]
        st[T] = t


@jitable
def fire(st, t_in, t_out):
    """Account one firing: idle until the inputs came, stalled until the outputs had room.

    A block of stream width n > 1 (``st[WIDTH]``, SAM Sec. 4.4) fires up to n times in a cycle:
    its clock stays in the cycle until the n-th firing (or :func:`end_cycle`); ``BUSY`` counts
    cycles with a firing."""
    if st[BUSY] == 0:
        st[FIRST_T] = t_out
    if st[WIDTH] > 1:
        return fire_wide(st, t_in, t_out)
    st[IDLE] += t_in - st[T]
    st[STALL] += t_out - t_in
    st[BUSY] += 1
    st[T] = t_out + 1
    return t_out + st[LAT]


@jitable
def fire_wide(st, t_in, t_out):
    """:func:`fire` for a block of stream width ``st[WIDTH]`` > 1 (a further firing in the
    cycle of the last one costs no cycle; idle and stalled count whole cycles)."""
    if st[LANES] > 0 and st[LANE_T] == t_out:
        st[LANES] += 1
    else:
        base = st[T]
        if st[LANES] > 0 and base == st[LANE_T]:
            base += 1  # the last cycle was busy, though not all its lanes were used
        if t_in < base:
            t_in = base
        st[IDLE] += t_in - base
        st[STALL] += t_out - t_in
        st[BUSY] += 1
        st[LANES] = 1
        st[LANE_T] = t_out
    st[T] = t_out if st[LANES] < st[WIDTH] else t_out + 1
    return t_out + st[LAT]


@jitable
def end_cycle(st):
    """After a wide block's firing that took or emitted a stop token: its cycle is over (a
    bus cycle never spans a fiber boundary; docs/timing-model.md, rule 13). No-op at width 1."""
    if st[WIDTH] > 1 and st[LANES] > 0 and st[T] == st[LANE_T]:
        st[T] = st[LANE_T] + 1


@jitable
def fail(st, code, w, c, port):
    """Report a malformed input: error ``code`` about the head token of channel ``c``."""
    st[ERR] = code
    st[ERR_PORT] = port
    if c >= 0 and ready(w, c):
        st[ERR_KIND] = hkind(w, c)
        st[ERR_DATA] = w.data[c, w.head[c] & (w.kind.shape[1] - 1)]
    else:
        st[ERR_KIND] = -1
        st[ERR_DATA] = 0
    return RC_ERR


@jitable
def need_memory(st, which):
    """Ask the scheduler to grow memory argument ``which`` (:meth:`Kernel.memory`)."""
    st[WAIT] = which
    return RC_GROW
