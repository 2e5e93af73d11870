"""Test-suite settings.

``engine="fast"`` runs the compiled kernels from the first call in tests (the default 0.03 s of
interpreting first would leave most small test graphs on the Python kernels, and the
differential tests would then compare Python with Python; see ``docs/performance.md``).
"""

import os

os.environ.setdefault("SAM_INTERPRET_SECONDS", "0")
