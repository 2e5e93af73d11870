"""Ragged operands in the lowering (CoRa on SAM): shared raggedness and located followers.

Two rules change how :class:`custard.lower.Lowering` iterates an index variable ``v``:

* **Shared raggedness.** Tensors declared to share their structure (``shared=[("A", "B")]``:
  the same shape and format, every ragged level holding the same lengths, as CoRa's dimension
  graph relates them) have the same positions fiber by fiber. Where two accesses of one group
  reach ``v`` on the same reference stream and index it with the same mode, one scanner drives
  both: the follower takes the driver's references and its leaf leaves the merge, so a product
  or a sum of them needs no intersecter or unioner. The graph records the groups in the graph
  attribute ``shared`` (``A,B;C,D``); binding tensors that do not share raggedness is refused
  (:mod:`sam.graph.ragged`).
* **Located followers.** Where ``v`` intersects exactly two leaves and at least one is a ragged
  level, one is scanned and the other is *located*: of a ragged and a dense leaf the ragged one
  is scanned (it iterates less), of two ragged ones the first; the other is *located*
  (Def. 4.1): a locator looks each coordinate of the leader up in the follower's fiber (its
  parent references repeated over the leader's coordinates) and drops those it lacks. No
  co-iteration, no intersecter; a ragged fiber is located at ``seg[p] + c``. Against a
  compressed leaf (which cannot be located) the compressed one leads and the ragged one is
  located.

The lowering calls :func:`plan` before creating ``v``'s scanners and :func:`follow` after
merging.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from formats.format import Format
from formats.levels import Level
from sam.errors import CompileError
from sam.graph.ragged import SHARED_ATTR as SHARED_ATTR
from sam.notation.expr import Access


@dataclass
class Follower:
    """An access that is not scanned at this variable: it shares ``driver``'s scanner
    (``how="share"``) or is located from ``driver``'s coordinates (``how="locate"``)."""

    acc: Access
    driver: Access
    how: str


def shared_groups(spec: str | Iterable[Sequence[str] | str] | None,
                  formats: Mapping[str, Format]) -> list[tuple[str, ...]]:
    """Normalise ``"A,B;C,D"`` or ``[("A", "B"), "C,D"]`` to groups of the operands
    ``formats`` names; the tensors of a group must have one format."""
    if not spec:
        return []
    items = spec.split(";") if isinstance(spec, str) else list(spec)
    known = set(formats)
    groups: list[tuple[str, ...]] = []
    for item in items:
        names = tuple(n.strip() for n in (item.split(",") if isinstance(item, str) else item))
        names = tuple(n for n in names if n)
        if len(names) < 2:
            raise CompileError(f"shared raggedness {item!r} names fewer than two tensors; "
                               "give a group such as A,B")
        unknown = [n for n in names if n not in known]
        if unknown:
            raise CompileError(f"shared raggedness names {', '.join(unknown)}, which the "
                               f"expression does not read (it reads {', '.join(sorted(known))})")
        fmts = {str(formats[n]) for n in names}
        if len(fmts) > 1:
            raise CompileError(f"shared raggedness {','.join(names)}: the tensors have formats "
                               f"{', '.join(sorted(fmts))}; tensors sharing their structure "
                               "need one format")
        groups.append(names)
    return groups


def groups_in(groups: list[tuple[str, ...]], assign) -> list[tuple[str, ...]]:
    """The groups restricted to the tensors ``assign`` reads (those left with two or more)."""
    names = {a.name for a in assign.rhs.accesses()}
    kept = [tuple(n for n in g if n in names) for g in groups]
    return [g for g in kept if len(g) > 1]


def _group_of(groups: list[tuple[str, ...]], name: str) -> int | None:
    return next((k for k, g in enumerate(groups) if name in g), None)


def plan(low, var: str, tree, users: list[Access]) -> tuple[object, dict[int, Follower]]:
    """The merge tree at ``var`` without the followers' leaves, and the followers (by access
    id). ``low`` is the :class:`custard.lower.Lowering`."""
    followers: dict[int, Follower] = {}
    groups: list[tuple[str, ...]] = low.shared
    indexed = [a for a in users if var in a.indices]
    for k, acc in enumerate(indexed):
        g = _group_of(groups, acc.name)
        if g is None:
            continue
        for driver in indexed[:k]:
            if (id(driver) not in followers and _group_of(groups, driver.name) == g
                    and driver.indices.index(var) == acc.indices.index(var)
                    and low.ref[id(driver)] == low.ref[id(acc)]):
                followers[id(acc)] = Follower(acc, driver, "share")
                break
    tree = _without(tree, set(followers))
    located = _locatable(low, var, tree)
    if located is not None:
        leader, follower = located
        followers[id(follower)] = Follower(follower, leader, "locate")
        tree = _without(tree, {id(follower)})
    return tree, followers


def follow(low, var: str, followers: dict[int, Follower], crd: tuple[str, str],
           refs: dict[int, tuple[str, str]]) -> tuple[tuple[str, str], dict[int, tuple[str, str]]]:
    """Give the followers their references (and locate the located one): the merged coordinate
    stream and the references of every access indexed by ``var``."""
    refs = dict(refs)
    for f in followers.values():
        if f.how != "locate":
            continue
        b = low.b
        gen = b.block("repsiggen", index=var)
        b.link(crd, gen, "crd")
        parent = low.ref[id(f.acc)]
        rep = b.block("repeat", index=var, tensor=f.acc.name,
                      root="true" if parent == ("", "root") else "false")
        if parent != ("", "root"):
            b.link(parent, rep, "ref")
        b.link((gen.id, "repsig"), rep, "repsig")
        loc = b.block("locate", index=var, tensor=f.acc.name, mode=f.acc.indices.index(var),
                      format=low.level_type(f.acc, var).name)
        b.link(crd, loc, "crd")
        b.link(refs[id(f.driver)], loc, "ref:in")
        b.link((rep.id, "ref"), loc, "ref:parent")
        crd = (loc.id, "crd")
        refs[id(f.driver)] = (loc.id, "ref:out")
        refs[id(f.acc)] = (loc.id, f"ref:out-{f.acc.name}")
        low.maybe_empty[var] = True
    for f in followers.values():
        if f.how == "share":
            refs[id(f.acc)] = refs[id(f.driver)]
    return crd, refs


def _locatable(low, var: str, tree) -> tuple[Access, Access] | None:
    """(leader, follower) when ``tree`` intersects two leaves and one of them is a ragged level
    that can be located (module docstring): a ragged follower is located from a compressed
    leader; of a ragged and a dense leaf the ragged one leads; of two ragged ones the first."""
    if getattr(tree, "kind", "") != "intersect" or len(tree.parts) != 2:
        return None
    if any(p.kind != "leaf" or not isinstance(p.leaf, Access) for p in tree.parts):
        return None
    a, b = (p.leaf for p in tree.parts)
    la, lb = low.level_type(a, var), low.level_type(b, var)
    if is_ragged(la) and is_ragged(lb):
        return a, b
    if is_ragged(la):
        return (a, b) if lb.has_locate else (b, a)
    if is_ragged(lb):
        return (b, a) if la.has_locate else (a, b)
    return None


def is_ragged(level: type[Level]) -> bool:
    """A level that locates in O(1) without being full (the ragged level)."""
    return level.has_locate and not level.full


def _without(tree, ids: set[int]):
    """``tree`` without the leaves of the accesses ``ids`` (nodes left with one part
    collapse)."""
    if not ids or tree.kind in ("dense", "universe"):
        return tree
    if tree.kind == "leaf":
        return None if id(tree.leaf) in ids else tree
    parts = [p for p in (_without(p, ids) for p in tree.parts) if p is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return type(tree)(tree.kind, parts=parts)
