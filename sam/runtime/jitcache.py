"""The compiled kernels' disk cache, one entry per kernel keyed on that kernel's own code.

numba's own cache keys a compiled function on the modification stamp of its source *file*,
and knows nothing of the helpers the function calls: an edit anywhere in ``reducers.py``
would recompile every kernel of that file, and an edit to a helper in ``wires.py`` none of
the kernels that inline it. Here a kernel's key (:func:`code_key`) is a hash of the code it
is made of: its own bytecode and constants, and, transitively, those of every function it
calls (helpers marked :func:`~sam.runtime.jit.jitable`, other kernels) and the values of the
module constants it reads (state slots, token kinds). An edit to one kernel recompiles that
kernel; an edit to a shared helper recompiles the kernels that use it; an edit to a comment
recompiles nothing.

:func:`enable` gives a numba dispatcher a cache under :func:`root` whose file names and
freshness stamp are that key (numba's ``_CacheLocator`` protocol), so entries of different
versions of a kernel live side by side and :func:`is_cached` can tell, without importing
numba, whether a kernel's compiled code for this version is on disk.
"""

from __future__ import annotations

import hashlib
import os
import sys
import types
from collections.abc import Callable, Iterable
from pathlib import Path

#: Bumped when the way kernels are compiled changes (numba options, calling convention).
KEY_VERSION = 1

#: Packages whose functions are part of a kernel's key (others, numpy's, are libraries).
OWN_PACKAGES = ("sam.", "formats.")


def root() -> Path:
    """The cache directory of compiled kernels: ``$SAM_CACHE_DIR/kernels`` (default
    ``~/.cache/sam-toolkit/kernels``)."""
    base = os.environ.get("SAM_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "sam-toolkit")
    return Path(base) / "kernels"


# --------------------------------------------------------------------------------- the key
_DIGESTS: dict[int, tuple[object, str]] = {}
#: functions met on a cycle of calls (their digests are not memoized)
_CYCLIC: set[int] = set()


def _own(fn: object) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return module.startswith(OWN_PACKAGES)


def _function_of(value: object) -> types.FunctionType | None:
    """The Python function behind a global a kernel reads: a function of our packages, a
    :class:`~sam.runtime.kernel.Kernel` (its ``py``) or a numba dispatcher (its
    ``py_func``); None for anything else."""
    if isinstance(value, types.FunctionType):
        return value if _own(value) else None
    inner = getattr(value, "py", None) or getattr(value, "py_func", None)
    if isinstance(inner, types.FunctionType) and _own(inner):
        return inner
    return None


def _codes(code: types.CodeType) -> Iterable[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _constant(value: object) -> str | None:
    """A module constant's contribution to the key (numba freezes global values when it
    compiles), or None when ``value`` is not a constant numba would read."""
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        return repr(value)
    if isinstance(value, tuple) and all(_constant(v) is not None for v in value):
        return repr(value)
    shape = getattr(value, "shape", None)
    if shape is not None and hasattr(value, "tobytes"):  # a global array
        return f"array{shape}:{hashlib.sha256(value.tobytes()).hexdigest()}"
    return None


def _reads(fn: types.FunctionType) -> list[tuple[str, object]]:
    """What ``fn``'s code reads from its globals, by name in sorted order: the values of its
    global names and of the names it reads from modules of ours (``W.BUSY``,
    ``burst.fiber_burst``: any name the code uses that a module it reads defines)."""
    names = {n for code in _codes(fn.__code__) for n in code.co_names}
    g = fn.__globals__
    spaces = [g] + [vars(v) for n in sorted(names)
                    if isinstance(v := g.get(n), types.ModuleType)
                    and v.__name__.startswith(OWN_PACKAGES)]
    return [(name, space[name]) for name in sorted(names) for space in spaces
            if name in space and not isinstance(space[name], types.ModuleType)]


def functions_called(fn: types.FunctionType) -> list[types.FunctionType]:
    """``fn`` and every function of ours it calls, transitively, each once."""
    seen: dict[int, types.FunctionType] = {}
    todo = [fn]
    while todo:
        f = todo.pop()
        if id(f) not in seen:
            seen[id(f)] = f
            todo.extend(inner for _, v in _reads(f) if (inner := _function_of(v)) is not None)
    return list(seen.values())


def _digest(fn: types.FunctionType, stack: list[int]) -> str:
    """Hash of ``fn``'s code and of everything it reads from its globals (recursively)."""
    known = _DIGESTS.get(id(fn))
    if known is not None and known[0] is fn:
        return known[1]
    if id(fn) in stack:  # recursion: the cycle's code is hashed where it was entered
        _CYCLIC.update(stack[stack.index(id(fn)):])
        return f"cycle:{fn.__module__}.{fn.__qualname__}"
    stack.append(id(fn))
    h = hashlib.sha256()
    h.update(f"{fn.__module__}.{fn.__qualname__}".encode())
    h.update(repr(getattr(fn, "_sam_jit_options", None)).encode())
    for code in _codes(fn.__code__):
        h.update(code.co_code)
        h.update(repr(code.co_varnames).encode())
        h.update(repr(code.co_names).encode())
        for const in code.co_consts:
            if not isinstance(const, types.CodeType):
                h.update(repr(const).encode())
    h.update(repr(fn.__defaults__).encode())
    for name, value in _reads(fn):
        inner = _function_of(value)
        if inner is not None:
            h.update(f"{name}->{_digest(inner, stack)}".encode())
            continue
        const = _constant(value)
        h.update(f"{name}={const if const is not None else type(value).__qualname__}"
                 .encode())
    stack.pop()
    digest = h.hexdigest()
    if id(fn) not in _CYCLIC:  # a digest made inside a cycle depends on where it was entered
        _DIGESTS[id(fn)] = (fn, digest)
    return digest


def _numba_stamp() -> str:
    """Which numba is installed, without importing it (its ``__init__.py``'s path, size and
    modification time: a new version is a new file)."""
    global _NUMBA_STAMP
    if _NUMBA_STAMP is None:
        import importlib.util

        spec = importlib.util.find_spec("numba")
        origin = spec.origin if spec is not None else None
        if origin:
            st = os.stat(origin)
            _NUMBA_STAMP = f"{origin}:{st.st_size}:{st.st_mtime_ns}"
        else:  # pragma: no cover - numba is a dependency
            _NUMBA_STAMP = "none"
    return _NUMBA_STAMP


_NUMBA_STAMP: str | None = None


def code_key(fn: Callable[..., object], *also: Callable[..., object]) -> str:
    """The cache key of kernel ``fn``: its code and that of everything it calls (and of the
    functions ``also``, for code bound into ``fn`` at compile time), the compile options'
    version, Python's version and numba's installation (numba's own index checks the CPU and
    numba's version too)."""
    h = hashlib.sha256()
    h.update(f"{KEY_VERSION}:{sys.version_info[:2]}:{_numba_stamp()}:".encode())
    for f in (fn, *also):
        h.update(_digest(f, []).encode())
    return h.hexdigest()[:20]


# ------------------------------------------------------------------------- the numba side
def _file_base(fn: Callable[..., object], key: str) -> str:
    """numba's file name base of ``fn``'s cache entries under our locator (see
    ``numba.core.caching.CacheImpl.get_filename_base``)."""
    modname = os.path.splitext(os.path.basename(fn.__code__.co_filename))[0]
    qualname = fn.__qualname__.replace("<", "").replace(">", "")
    abiflags = getattr(sys, "abiflags", "")
    return f"{modname}.{qualname}-{key}.py{sys.version_info[0]}{sys.version_info[1]}{abiflags}"


def is_cached(fn: Callable[..., object], key: str) -> bool:
    """Whether compiled code of this version of ``fn`` is on disk (its index file)."""
    return (root() / f"{_file_base(fn, key)}.nbi").is_file()


def stale_entries(fn: Callable[..., object], key: str) -> list[Path]:
    """Cache files of ``fn`` under other keys (older versions of its code)."""
    base = _file_base(fn, key)
    prefix, _, rest = base.rpartition(f"-{key}")
    return [p for p in root().glob(f"{prefix}-*{rest}.*") if not p.name.startswith(base)]


def program_name() -> str:
    """The command's name for messages (``sam-sim``, ``custard``; ``sam`` for scripts)."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name if name and not name.endswith(".py") and name != "-c" else "sam"


def say_if_compiling(fn: Callable[..., object], key: str, what: str) -> None:
    """One line on stderr when ``fn`` is not compiled on disk yet (its first call compiles
    it, for seconds): better than silence."""
    if not is_cached(fn, key):
        print(f"{program_name()}: compiling {what} with numba (once per version of its code; "
              f"{where()})", file=sys.stderr, flush=True)


def legacy_dirs() -> list[Path]:
    """Cache directories of earlier versions of the toolkit (one directory per version of all
    kernel sources: ``numba-<hash>``, ``dae-<hash>``) beside :func:`root`."""
    base = root().parent
    return sorted(p for pattern in ("numba-*", "dae-*") for p in base.glob(pattern)
                  if p.is_dir())


def where() -> str:
    """Where compiled kernels go, for messages."""
    return (f"cached in {root()}" if _writable() else
            f"{root()} is not writable: numba's own cache, beside the sources, if any")


def _writable() -> bool:
    """Whether :func:`root` can be created and written (else numba's own locators decide)."""
    path = root()
    known = _WRITABLE.get(path)
    if known is None:
        import tempfile

        try:
            path.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=path).close()
            known = True
        except OSError:
            known = False
        _WRITABLE[path] = known
    return known


_WRITABLE: dict[Path, bool] = {}
_KEYS: dict[int, tuple[Callable[..., object], str]] = {}
_INSTALLED = False


def _install() -> None:
    """Put our locator first in numba's list (functions not keyed here fall through)."""
    global _INSTALLED
    if _INSTALLED:
        return
    from numba.core import caching

    class KeyedLocator(caching._CacheLocator):
        """numba cache locator of a function keyed by :func:`code_key`."""

        def __init__(self, key: str) -> None:
            self._key = key

        def ensure_cache_path(self) -> None:
            os.makedirs(self.get_cache_path(), exist_ok=True)

        def get_cache_path(self) -> str:
            return str(root())

        def get_source_stamp(self) -> str:
            return self._key

        def get_disambiguator(self) -> str:
            return self._key

        @classmethod
        def from_function(cls, py_func, py_file):
            entry = _KEYS.get(id(py_func))
            if entry is None or entry[0] is not py_func or not _writable():
                return None  # numba's own locators (a cache beside the source, or none)
            return cls(entry[1])

    caching.CacheImpl._locator_classes.insert(0, KeyedLocator)
    _INSTALLED = True


def _cache_class() -> type:
    """numba's function cache, loading without numba's full set-up.

    Before loading an entry numba refreshes its target context, which imports and installs
    every implementation numba can compile (about 0.4 s, the larger part of loading a
    graph's kernels); running loaded machine code needs only numba's runtime (NRT). A compile
    (an entry not on disk) still refreshes the context fully, in numba's compiler, after the
    helpers kernels call are registered with numba (:func:`sam.runtime.jit.register_jitables`:
    about 0.1 s, needed only to compile)."""
    global _CACHE_CLASS
    if _CACHE_CLASS is None:
        from numba.core.caching import FunctionCache
        from numba.core.runtime import rtsys

        class KernelCache(FunctionCache):
            def load_overload(self, sig, target_context):
                rtsys.initialize(target_context)
                loaded = self._load_overload(sig, target_context)
                if loaded is None:  # numba compiles next
                    from sam.runtime.jit import register_jitables

                    register_jitables()
                return loaded

        _CACHE_CLASS = KernelCache
    return _CACHE_CLASS


_CACHE_CLASS: type | None = None


def enable(dispatcher: object, key: str) -> None:
    """Cache ``dispatcher`` (a numba ``njit`` dispatcher made without ``cache=True``) under
    :func:`root`, keyed by ``key``."""
    _install()
    fn = dispatcher.py_func
    _KEYS[id(fn)] = (fn, key)
    dispatcher._cache = _cache_class()(fn)
