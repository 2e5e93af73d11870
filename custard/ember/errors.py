"""The error of the Ember front end (one line: what, where, how to fix)."""

from __future__ import annotations

from sam.errors import CompileError


class EmberError(CompileError):
    """Malformed MLIR, an unsupported loop nest, or inputs that do not fit a function."""
