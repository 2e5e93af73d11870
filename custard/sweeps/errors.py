"""The one error of a sweep."""

from __future__ import annotations

from formats.errors import ToolkitError


class SweepError(ToolkitError):
    """A sweep that cannot run (no cluster at the address, workers with other code, a cache
    that cannot be written, a lost scheduler)."""
