"""Helpers that block kernels call, registered with numba only when a kernel is compiled.

numba's ``register_jitable(fn)`` returns ``fn`` itself and only records an overload for the
compiler, so a helper can be marked now and registered later. :func:`jitable` records the
helper and returns it unchanged (plain Python for the reference engine);
:func:`register_jitables` hands every recorded helper to numba right before the first
:attr:`sam.runtime.kernel.Kernel.jit` compile. Importing the simulator, building, reading or writing
graphs and running the reference engine therefore never import numba (about 0.3 s and 100 MB).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])

_PENDING: list[tuple[Callable[..., object], bool]] = []


def jitable(fn: F | None = None, *, inline: bool = False):
    """Mark ``fn`` as callable from block kernels (registered with numba when one compiles).

    ``@jitable(inline=True)`` is for a large helper called per token (a kernel phase) that
    creates no arrays: numba compiles it without reference counting and LLVM always inlines it.
    Otherwise each call would pass every array it is given field by field (the
    :class:`~sam.runtime.wires.Wires` record alone is nine arrays) and count a reference to each;
    LLVM inlines small helpers, and cleans up their counting, by itself.
    """
    def mark(f: F) -> F:
        _PENDING.append((f, inline))
        f._sam_jit_options = {"inline": inline}  # part of the cache key of kernels calling f
        return f

    return mark if fn is None else mark(fn)


def register_jitables() -> None:
    """Register every helper marked so far with numba (imports numba; idempotent)."""
    if not _PENDING:
        return
    from numba.extending import register_jitable

    # helpers are called from compiled code only: no wrappers for calls from Python or C
    # (each would be generated and compiled with the helper)
    bare = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
    while _PENDING:
        fn, inline = _PENDING.pop(0)
        if inline:
            register_jitable(forceinline=True, _nrt=False, **bare)(fn)
        else:
            register_jitable(**bare)(fn)
