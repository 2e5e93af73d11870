"""The kernel runtime, the floor under the blocks (SAM paper Sec. 3.2): tokens and their
encoding (``tokens``), the FIFO rings that carry them (``wires``), kernels with named state
(``kernel``), the numba switch (``jit``) and the burst helpers (``burst``). It imports nothing
else of ``sam`` but ``sam.errors``."""
