"""The errors ``sam`` raises from more than one module, in one place.

Each is a :class:`formats.errors.ToolkitError`: its text is one line saying what is wrong and how
to fix it, which the command-line tools print without a traceback. Errors that one module alone
raises stay with it (``sam.bind.BindError``, ``sam.check.CheckError``,
``sam.runtime.tokens.StreamError``).
"""

from __future__ import annotations

from formats.errors import ToolkitError


class GraphError(ToolkitError):
    """A SAM graph is malformed or cannot be bound to its tensors."""


class SimulationError(ToolkitError):
    """The simulation cannot go on (malformed stream, deadlock, unbound tensor).

    When it stopped a running simulation, ``partial`` holds that run's statistics so far (a
    ``sam.sim.engine.SimResult`` without outputs; from ``sam.program.Program.run``, the
    ``ProgramResult`` of the phases so far), so that no measurement is lost."""

    partial: object | None = None


class Deadlock(SimulationError):
    """No block can progress; the message names the stuck blocks and what each waits for."""


class CompileError(ToolkitError):
    """Index notation, a format or a schedule that cannot be compiled or evaluated (one line)."""
