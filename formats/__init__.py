"""Fibertree tensor formats (SAM paper Sec. 3.1): levels, conversion, file readers and writers."""

import time

#: When this process first imported the toolkit (``time.time()``): a toolkit file changed after
#: it may differ from the code this process runs (checked by the sweeps' workers,
#: :mod:`custard.sweeps.identity`)
LOADED_AT = time.time()

from formats import bitvector  # noqa: E402, F401  (registers the bitvector letter b)
from formats.errors import FormatError, ReadError, ToolkitError  # noqa: E402
from formats.format import Format  # noqa: E402
from formats.levels import LEVEL_TYPES, CompressedLevel, DenseLevel, Level  # noqa: E402
from formats.tensor import Tensor  # noqa: E402

__all__ = [
    "LEVEL_TYPES",
    "LOADED_AT",
    "CompressedLevel",
    "DenseLevel",
    "Format",
    "FormatError",
    "Level",
    "ReadError",
    "Tensor",
    "ToolkitError",
]
