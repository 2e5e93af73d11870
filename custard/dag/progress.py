"""Progress bars of ``custard dag``'s phases (binding, labelling, compiling, traffic model).

The library's loops call :func:`track`, which is the plain iterable unless a command turned
bars on with :func:`bars`: then each phase that lasts more than a second shows a tqdm bar on
standard error, and only when standard error is a terminal (no bar in pipes, logs or tests).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")
#: seconds before a phase's bar appears
DELAY = 1.0
#: the open bars while bars are on (None: off)
_ON: ContextVar[list[Any] | None] = ContextVar("custard_dag_progress", default=None)


@contextlib.contextmanager
def bars(enabled: bool | None = None) -> Iterator[None]:
    """Within the block, :func:`track` draws bars (``enabled``: default, stderr is a
    terminal). Bars still open when the block ends (an error, Ctrl-C) are closed and their
    line cleared, so that the error's one line stands alone."""
    on = sys.stderr.isatty() if enabled is None else enabled
    open_bars: list[Any] = []
    token = _ON.set(open_bars if on else None)
    try:
        yield
    finally:
        _ON.reset(token)
        for bar in open_bars:
            bar.close()
        if open_bars:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def track(items: Iterable[T], desc: str, total: int | None = None, unit: str = "it"
          ) -> Iterator[T]:
    """``items``, counted on a bar named ``desc`` when bars are on (see module docstring)."""
    open_bars = _ON.get()
    if open_bars is None:
        yield from items
        return
    from tqdm import tqdm

    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    bar = tqdm(total=total, desc=desc, unit=unit, delay=DELAY, leave=False, file=sys.stderr)
    open_bars.append(bar)
    for item in items:
        yield item
        bar.update()
    bar.close()
    open_bars.remove(bar)
