"""Fibertree tensor formats (SAM paper Sec. 3.1): levels, conversion, file readers and writers."""

from formats import bitvector  # noqa: F401  (registers the bitvector level letter b)
from formats.errors import FormatError, ReadError, ToolkitError
from formats.format import Format
from formats.levels import LEVEL_TYPES, CompressedLevel, DenseLevel, Level
from formats.tensor import Tensor

__all__ = [
    "LEVEL_TYPES",
    "CompressedLevel",
    "DenseLevel",
    "Format",
    "FormatError",
    "Level",
    "ReadError",
    "Tensor",
    "ToolkitError",
]
