"""A timing model of Ember's decoupled access-execute (DAE) machine (Ember paper Sec. 2-3,
Figure 5; Sec. 8's evaluation set-up): the TMU (access side) issuing dependent loads through
caches and a shared HBM, the core (execute side) popping two bounded queues, several cores.

It times what a TMU graph in ``dae`` mode does (docs/tmu.md), replayed from an
:class:`~sam.dae.trace.AccessTrace` (what the TMU loads and pushes, in order, and what each
callback of the execute program costs). docs/timing-model.md ("The DAE machine") gives the rules.
"""
