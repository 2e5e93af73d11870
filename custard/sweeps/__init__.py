"""Sweeps of points on Dask with a disk cache (:mod:`custard.sweeps.sweep`), shared by the
tiled runs (``custard tile --parallel``) and the experiments (``sam-sim reproduce``)."""
