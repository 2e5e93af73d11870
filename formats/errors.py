"""The project's own exception types.

Every error a user can cause (a malformed file, a bad format string, a graph that cannot run,
an expression that cannot compile) is raised as a :class:`ToolkitError` whose ``str()`` is one
line saying what is wrong, where, and how to fix it. The command-line tools print that line
and exit non-zero, never a traceback.
"""

from __future__ import annotations


class ToolkitError(Exception):
    """Base class of every error the toolkit reports to its users."""


class FormatError(ToolkitError):
    """A tensor format string or a tensor construction request is invalid."""


class ReadError(ToolkitError):
    """A tensor file cannot be read: names the file, the line when known, and the problem."""

    def __init__(self, path: str, problem: str, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {problem}")
