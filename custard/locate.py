"""Iterate-locate (SAM paper Sec. 4.2, Def. 4.1): which operands of an intersection are located.

Coiteration (Def. 3.2) walks every operand's fiber; iterate-locate walks a *leader* and asks each
*follower* for the leader's coordinates with a locator block, so a follower's coordinates that
the leader lacks cost nothing. Custard decides per intersection (a product at one index
variable) which operands follow:

* **automatic default**: an operand whose level at that variable is dense (``full`` and
  ``has_locate``: the position of a coordinate is computed) is located, where another operand
  leads (an intersection of dense levels only stays a coiteration: locating would save
  nothing); ragged levels follow their own rules (:mod:`custard.ragged`);
* ``-s=locate(c)`` (TACO-style schedule command, one or more tensors): locate ``c`` wherever it
  is intersected, into any level: a level without ``has_locate`` (compressed) is searched;
  ``locate(X)`` on the result writes it by locating (a dense result, random insert);
* ``-s=coiterate(c)``: never locate ``c``; ``-s=coiterate()`` (or ``custard compile
  --no-locate``, ``compile(..., locate=False)``) turns the automatic default off, so every
  intersection is a coiteration as in the core SAM of Sec. 3.

Later commands override earlier ones for the same tensor. At least one operand of an
intersection leads (when every operand could follow and one was asked for by ``locate``, an
operand that is searched leads, else the first; when none was asked for, none follows).
A follower whose located coordinate may be absent (a searched level, or a parent fiber that may
be missing below a union) drops that coordinate, and the locator passes only one other reference
stream along with it; so such a follower is located only when it is the one such follower of an
intersection whose leader is a single operand, and is otherwise coiterated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from sam.errors import CompileError

#: the schedule commands this module reads (:func:`take_directives`)
COMMANDS = ("locate", "coiterate")


@dataclass(frozen=True)
class LocatePolicy:
    """Which operands to locate (see module docstring)."""

    #: locate into every level that ``has_locate`` (dense) unless a tensor is in ``never``
    auto: bool = True
    #: tensors to locate wherever possible (a level without ``has_locate`` is searched)
    always: frozenset[str] = frozenset()
    #: tensors never to locate
    never: frozenset[str] = frozenset()
    #: write the (dense) result by locating: ``locate(X)`` on the result
    output: bool = False

    def wants(self, tensor: str, has_locate: bool) -> bool:
        """Should an operand ``tensor`` whose level ``has_locate`` (or not) be located?"""
        if tensor in self.never:
            return False
        return tensor in self.always or (self.auto and has_locate)


#: every intersection a coiteration (the core SAM of Sec. 3)
COITERATE = LocatePolicy(auto=False, output=False)


def take_directives(directives: Sequence, tensors: Mapping[str, object], result: str,
                    auto: bool = True) -> tuple[LocatePolicy, list]:
    """Read the ``locate``/``coiterate`` commands of ``directives`` (objects with ``name`` and
    ``args``, in order) into a policy; return it and the other directives. ``tensors`` are the
    expression's operands, ``result`` its result; ``auto`` is the default (``--no-locate``
    gives False)."""
    always: set[str] = set()
    never: set[str] = set()
    output = False
    rest = []
    for d in directives:
        if d.name not in COMMANDS:
            rest.append(d)
            continue
        names = [a for a in d.args if a]
        if d.name == "coiterate" and not names:
            auto = False
            always.clear()
            output = False
            continue
        if d.name == "locate" and not names:
            raise CompileError(f"{d}: locate takes the tensors to locate, e.g. locate(c)")
        for name in names:
            if name == result and name not in tensors:
                output = d.name == "locate"
                continue
            if name not in tensors:
                known = ", ".join([*tensors, result])
                raise CompileError(f"{d}: {name!r} is not a tensor of the expression "
                                   f"(tensors: {known})")
            if d.name == "locate":
                always.add(name)
                never.discard(name)
            else:
                never.add(name)
                always.discard(name)
    policy = LocatePolicy(auto, frozenset(always), frozenset(never), output)
    return policy, rest


@dataclass
class Operand:
    """One operand of an intersection, as :func:`choose_followers` sees it."""

    key: object
    #: a single tensor access (only those can be located)
    leaf: bool
    #: the policy wants it located
    wanted: bool = False
    #: its level is searched (no ``has_locate``)
    searched: bool = False
    #: a located coordinate may be absent (searched, or a parent fiber may be missing)
    may_miss: bool = False
    #: asked for by ``locate(...)`` (not only by the automatic default)
    asked: bool = False


def choose_followers(operands: Iterable[Operand]) -> list[Operand]:
    """The operands of one intersection to locate, in the order their locators are chained
    (one that may miss first); the others lead (module docstring)."""
    ops = list(operands)
    wanted = [o for o in ops if o.leaf and o.wanted]
    leaders = [o for o in ops if o not in wanted]
    if not wanted:
        return []
    if not leaders:
        if not any(o.asked for o in wanted):
            return []
        lead = next((o for o in wanted if o.searched), wanted[0])
        wanted.remove(lead)
        leaders = [lead]
    miss = [o for o in wanted if o.may_miss]
    sure = [o for o in wanted if not o.may_miss]
    if miss and len(miss) == 1 and len(leaders) == 1 and leaders[0].leaf:
        return miss + sure
    return sure
