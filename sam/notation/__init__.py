"""Tensor index notation: what a SAM graph computes, shared by the simulator and the compiler.

``X(i,j) = B(i,k) * C(k,j)`` names the result of a graph (SAM paper Sec. 2.1); Custard compiles
it, with formats and a schedule, to a graph (Sec. 5), and ``sam-sim --check`` evaluates it with
numpy to check a simulation. It lives in ``sam`` so that both use one definition and ``sam``
never imports ``custard`` (dependencies point ``custard -> sam -> formats``):

* :mod:`sam.notation.expr`: the expression tree and :func:`~sam.notation.expr.place_reductions`
  (where each sum goes: concrete index notation);
* :mod:`sam.notation.parse`: the text form and the einsum form;
* :mod:`sam.notation.reference`: dense numpy evaluation (the gold result).

Errors are :class:`sam.errors.CompileError`.
"""
