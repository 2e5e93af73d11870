"""Iteration splitting (SAM paper Sec. 4.1; Figure 13's "Crd w/ split"): ``split(i,i0,i1,s)``,
with the split tensors stored pre-split (``stored``, offline) or split by blocks as they are
read (``online``); :func:`compile_split` selects.

:func:`compile_stored_split` compiles an expression whose index variable ``i`` is split into
chunk ids ``i0 = i // s`` and offsets ``i1 = i % s`` as a program (:mod:`sam.program`):

1. one *reformat* phase per operand indexed by ``i`` (its cycles are the offline reformatting
   cost, reported per phase): the identity ``T__split(..,i0,i1,..) = T(..,i,..)`` whose levels
   of ``i0, i1`` are read online (below), every level written: ``T__split`` has the level of
   ``i`` replaced by two compressed levels (chunk ids, offsets), the levels below it regrouped
   by chunk, values copied;
2. the *compute* phase: the expression over the split tensors with ``i`` replaced by ``i0, i1``
   (``i0`` directly outside ``i1`` in the loop order), compiled as usual. If the result is
   indexed by ``i``, its levels ``i0, i1`` are joined back by a ``flatten`` block into the
   result's level ``i``, and each result level ``d`` levels below them gets a ``flattenstops``
   block (stops ``Sk``, k >= d, become ``S(k-1)``: a chunk's end is one more fiber end of the
   flattened level). A reduced ``i`` (SpMV's ``j``, matmul's ``k``) needs no flatten.

:func:`compile_online_split` compiles the same computation as one graph over the unsplit
tensors: each operand's scanner of ``i`` feeds a ``split`` block (with references), whose chunk
ids and ordinals take the place of the ``i0`` scanner, and a ``chunkselect`` block picks the
inner fibers of the chunks the ``i0`` merge keeps out of the split's inner stream, in place of
the ``i1`` scanner; its references are those into the level of ``i``, so the levels below read
the unsplit tensor unchanged. Nothing is stored; every operand is read whole (the selector skips
the unchosen chunks token by token), so the online split costs at least a full scan.

``i`` may be stored at any level of the tensors it indexes (outer, middle, last); a tensor the
compiler re-stores in the loop order is split in that order. The size of ``i`` must be given
(``dims={"i": N}``, TACO's ``-d=i:N``), since the split levels' sizes follow from it. Every
refusal is a one-line :class:`~sam.errors.CompileError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from custard.bitvectors import repoint, use_bitvector_blocks
from formats.format import Format
from sam.blocks.base import make_block
from sam.errors import CompileError
from sam.graph.contract import DIMS
from sam.graph.model import Graph
from sam.notation.parse import parse_expression
from sam.program import Program

#: Suffix of the pre-split copy of a tensor.
SUFFIX = "__split"
#: Graph attribute giving index variable sizes the tensors do not show (``i0=32,i1=64``).
DIMS_ATTR = DIMS


def _format(spec: Format | str | None, order: int) -> Format:
    if spec is None:
        return Format.default(order)
    return spec if isinstance(spec, Format) else Format.parse(spec)


def _split_format(fmt: Format, mode: int) -> Format:
    """``fmt`` with the level storing ``mode`` replaced by two compressed levels storing modes
    ``mode`` and ``mode + 1`` (later modes renumbered), wherever that level is."""
    p = fmt.level_of_mode(mode)

    def shift(ms):
        return tuple(m + 1 if m > mode else m for m in ms)

    return Format((*fmt.levels[:p], "s", "s", *fmt.levels[p + 1:]),
                  (*shift(fmt.mode_order[:p]), mode, mode + 1, *shift(fmt.mode_order[p + 1:])))


def _split_indices(indices: tuple[str, ...], var: str, outer: str, inner: str) -> list[str]:
    k = indices.index(var)
    return [*indices[:k], outer, inner, *indices[k + 1:]]


def reformat_graph(name: str, fmt: Format, indices: tuple[str, ...], var: str, outer: str,
                   inner: str, s: int, sizes: Mapping[str, int],
                   split_fmt: Format | None = None) -> Graph:
    """The graph storing tensor ``name`` (format ``fmt``, accessed as ``name(indices)``) split
    at ``var`` into ``name + SUFFIX`` (format ``split_fmt``, by default ``fmt`` with the level of
    ``var`` made two compressed levels): the identity ``name__split(..,i0,i1,..) = name(..,i,..)``
    read through the online split (:func:`_split_operand`: scanner of i -> ``split`` -> chunk
    ids, ``chunkselect`` -> offsets and the references the levels below continue from), every
    level written; so the levels below ``i`` get their fibers regrouped by chunk."""
    from custard.api import compile as compile_expr

    mode = indices.index(var)
    target = name + SUFFIX
    new_fmt = split_fmt or _split_format(fmt, mode)
    new_idx = _split_indices(indices, var, outer, inner)
    out = "R__" + target
    access = ",".join(new_idx)
    order = [new_idx[m] for m in new_fmt.mode_order]
    graph = compile_expr(f"{out}({access})={target}({access})", {out: new_fmt, target: new_fmt},
                         order)
    if not isinstance(graph, Graph):
        raise CompileError(f"the reformatting of {name} into {target} needs more than one graph; "
                           f"store {name} in its loop order")
    _split_operand(graph, name, fmt, mode, var, inner, s)
    for b in graph.blocks.values():
        if b.tensor == out:
            b.attrs["tensor"] = target
    graph.formats.pop(out, None)
    graph.formats[target] = new_fmt  # name's: as _split_operand reads it
    graph.contract.expression = None
    graph.contract.dims = _dims(sizes, outer, inner, var, s)
    graph.name = graph.dot_id = target
    return use_bitvector_blocks(graph)


def _dims(sizes: Mapping[str, int], outer: str, inner: str, var: str, s: int
          ) -> dict[str, int]:
    n = sizes[var]
    return {var: n, outer: -(-n // s), inner: s}


def _rewrite(expression: str, var: str, outer: str, inner: str, renamed: set[str]) -> str:
    """``expression`` with ``var`` replaced by ``outer,inner`` in every access, the accessed
    tensors of ``renamed`` given their split names."""
    def access(m: re.Match) -> str:
        name, idx = m.group(1), [v.strip() for v in m.group(2).split(",")]
        if var not in idx:
            return m.group(0)
        k = idx.index(var)
        new = idx[:k] + [outer, inner] + idx[k + 1:]
        return f"{name + SUFFIX if name in renamed else name}({','.join(new)})"

    return re.sub(r"(\w+)\(([^()]*)\)", access, expression)


def compile_stored_split(expression: str, formats: Mapping[str, Format | str] | None,
                         order: str | list[str] | None, split: tuple[str, str, str, int], *,
                         dims: Mapping[str, int] | None = None) -> Program:
    """Compile ``expression`` with ``split = (i, i0, i1, s)`` stored pre-split (module
    docstring): reformat phases, then the compute phase."""
    var, outer, inner, s = split
    compiled, split_tensors, sizes = _compute_graph(expression, formats, order, split, dims)
    result = parse_expression(expression).lhs.name
    phases = [reformat_graph(t, *split_tensors[t], var, outer, inner, s, sizes,
                             compiled.formats.get(t + SUFFIX))
              for t in split_tensors if t != result]
    return Program([*phases, compiled])


def _compute_graph(expression: str, formats: Mapping[str, Format | str] | None,
                   order, split: tuple[str, str, str, int], dims: Mapping[str, int] | None):
    """Checks, the split tensors and the compiled compute graph over them."""
    from custard.api import compile as compile_expr

    var, outer, inner, s = split
    if not isinstance(s, int) or s < 1:
        raise CompileError(f"split({var},{outer},{inner},{s}): the split factor must be a "
                           "positive integer")
    sizes = dict(dims or {})
    if var not in sizes:
        raise CompileError(f"a split of {var} needs its size: give dims={{'{var}': N}} "
                           f"(-d={var}:N)")
    assign = parse_expression(expression)
    formats = dict(formats or {})
    split_tensors: dict[str, tuple[Format, tuple[str, ...]]] = {}
    for acc in [assign.lhs, *assign.rhs.accesses()]:
        if var not in acc.indices or acc.name in split_tensors:
            continue
        fmt = _format(formats.get(acc.name), len(acc.indices))
        if fmt.order != len(acc.indices):
            raise CompileError(f"format {fmt} of {acc.name} has {fmt.order} level(s) but "
                               f"{acc.name} has order {len(acc.indices)}; give one level letter "
                               "per index")
        split_tensors[acc.name] = (fmt, tuple(acc.indices))
    if not split_tensors:
        raise CompileError(f"split({var},{outer},{inner},{s}): {var} is not an index variable "
                           f"of {expression.strip()}; split one of its index variables")
    result = assign.lhs.name
    new_formats = {**formats}
    for t, (fmt, idx) in split_tensors.items():
        new_formats.pop(t, None)
        new_formats[t + SUFFIX] = _split_format(fmt, idx.index(var))
    seq = _order(order, assign, var, outer, inner, formats)
    compiled = compile_expr(_rewrite(expression, var, outer, inner, set(split_tensors)),
                            new_formats, seq,
                            dims={k: v for k, v in sizes.items() if k != var})
    if not isinstance(compiled, Graph):
        raise CompileError("a split of an expression that needs temporaries or re-stored "
                           "operands is not supported; compute the temporary first, or store "
                           "the operands in the loop order")
    if result in split_tensors:
        fmt_x, idx_x = split_tensors[result]
        _flatten_result(compiled, result, fmt_x, idx_x.index(var), var, s)
    compiled.contract.dims = _dims(sizes, outer, inner, var, s)
    compiled.contract.expression = None  # it names the split tensors, not the program's
    return compiled, split_tensors, sizes


def compile_online_split(expression: str, formats: Mapping[str, Format | str] | None,
                         order: str | list[str] | None, split: tuple[str, str, str, int], *,
                         dims: Mapping[str, int] | None = None) -> Graph:
    """Compile ``expression`` with ``split = (i, i0, i1, s)`` done online by split and chunk
    selector blocks (module docstring): one graph over the unsplit tensors."""
    var, outer, inner, s = split
    graph, split_tensors, _ = _compute_graph(expression, formats, order, split, dims)
    graph.contract.expression = "".join(expression.split())  # it reads the unsplit tensors
    result = parse_expression(expression).lhs.name
    for name, (fmt, idx) in split_tensors.items():
        if name != result:
            _split_operand(graph, name, fmt, idx.index(var), var, inner, s)
    return use_bitvector_blocks(graph)


def _split_operand(graph: Graph, name: str, fmt: Format, mode: int, var: str, inner: str,
                   s: int) -> None:
    """Read ``name + SUFFIX``'s split levels (modes ``mode``, ``mode + 1``) from the unsplit
    ``name`` online: its scanner of ``var`` feeds a ``split`` standing for the outer scanner
    and a ``chunkselect`` standing for the inner one; the blocks of the other levels read
    ``name`` with their modes renumbered (the references into the level of ``var`` are the
    same as into the inner split level)."""
    target = name + SUFFIX
    if target in graph.formats:  # as the compiled graph reads it (perhaps re-stored)
        fmt = _merge_format(graph.formats[target], mode, fmt.levels[fmt.level_of_mode(mode)])
    scans = {b.attrs.get("mode"): b for b in graph.blocks.values()
             if b.dot_type == "fiberlookup" and b.tensor == target}
    s0, s1 = scans.pop(str(mode)), scans.pop(str(mode + 1))
    fresh = max((int(b) for b in graph.blocks if b.isdigit()), default=-1) + 1
    scan = graph.add(make_block(str(fresh), "fiberlookup", {
        "index": var, "tensor": name, "mode": str(mode), "src": "true",
        "format": fmt.level_type_of_mode(mode).name, "root": s0.attrs.get("root", "false")}))
    cut = graph.add(make_block(str(fresh + 1), "split", {"split": str(s), "orig_crd": "false"}))
    pick = graph.add(make_block(str(fresh + 2), "chunkselect", {"index": inner}))
    for e in list(graph.edges):  # both ends: the outer scanner may feed the inner directly
        if e.src == s0.id:
            repoint(e, graph, src=cut.id, src_port=f"{e.src_port.kind}:outer")
        elif e.src == s1.id:
            repoint(e, graph, src=pick.id)
        if e.dst == s0.id:
            repoint(e, graph, dst=scan.id)
        elif e.dst == s1.id:
            repoint(e, graph, dst=pick.id, dst_port="ref")
    graph.connect(scan.id, "crd", cut.id, "crd")
    graph.connect(scan.id, "ref", cut.id, "ref")
    graph.connect(cut.id, "crd:inner", pick.id, "crd:inner")
    graph.connect(cut.id, "ref:inner", pick.id, "ref:inner")
    del graph.blocks[s0.id], graph.blocks[s1.id]
    renamed = set()
    for b in graph.blocks.values():  # the other levels, and the values
        if b.tensor == target:
            b.attrs["tensor"] = name
            renamed.add(b.id)
            m = b.attrs.get("mode", "")
            if m.isdigit() and int(m) > mode + 1:
                b.attrs["mode"] = str(int(m) - 1)
    for e in graph.edges:  # ports named after the tensor (a locator's ref:out-T)
        if e.src in renamed and target in e.src_port.name:
            repoint(e, graph, src=e.src, src_port=e.src_port.name.replace(target, name))
        if e.dst in renamed and target in e.dst_port.name:
            repoint(e, graph, dst=e.dst, dst_port=e.dst_port.name.replace(target, name))
    graph.formats.pop(target, None)
    graph.formats[name] = fmt


def compile_split(expression: str, formats: Mapping[str, Format | str] | None,
                  order: str | list[str] | None, split: tuple[str, str, str, int], *,
                  dims: Mapping[str, int] | None = None, mode: str = "stored"
                  ) -> Graph | Program:
    """``split(i,i0,i1,s)`` stored pre-split (``mode="stored"``: a program whose reformat
    phases report the offline cost) or split online (``mode="online"``: one graph)."""
    if mode == "stored":
        return compile_stored_split(expression, formats, order, split, dims=dims)
    if mode == "online":
        return compile_online_split(expression, formats, order, split, dims=dims)
    raise CompileError(f"split mode {mode!r}: use stored (pre-split tensors) or online "
                       "(split blocks)")


def _order(order: str | list[str] | None, assign, var: str, outer: str, inner: str,
           formats: Mapping[str, Format | str] | None = None) -> list[str]:
    if order is None:  # Custard's default (first appearance, adjusted to the formats)
        from custard.api import default_order

        given = {k: _format(v, 0) for k, v in (formats or {}).items()}
        seq = default_order(assign, given)
    elif isinstance(order, str):
        seq = [v for v in re.split(r"[\s,()]+", order.replace("reorder", "")) if v]
        if all(len(v) == 1 for v in seq) and len(seq) == 1:
            seq = list(seq[0])
    else:
        seq = list(order)
    if var not in seq:
        raise CompileError(f"the loop order {','.join(seq)} does not name {var}")
    k = seq.index(var)
    return seq[:k] + [outer, inner] + seq[k + 1:]


def _flatten_result(graph: Graph, result: str, fmt: Format, mode: int, var: str, s: int
                    ) -> None:
    """Join the split result's writers of modes ``mode`` and ``mode + 1`` through a flatten
    block into one writer of ``result``'s mode ``mode``; rename the others back."""
    target = result + SUFFIX
    writers = {b.attrs.get("mode"): b for b in graph.blocks.values()
               if b.dot_type == "fiberwrite" and b.tensor == target}
    outer_w, inner_w = writers[str(mode)], writers[str(mode + 1)]
    feeds = {e.dst: e for e in graph.edges if e.dst in (outer_w.id, inner_w.id)}
    numbers = [int(b) for b in graph.blocks if b.isdigit()]
    nxt = max(numbers, default=-1) + 1
    flat = graph.add(make_block(str(nxt), "flatten", {"split": str(s), "orig_crd": "false"}))
    out = graph.add(make_block(str(nxt + 1), "fiberwrite", {
        "index": var, "tensor": result, "mode": str(mode), "format": "compressed",
        "sink": "true"}))
    for w, port in ((outer_w, "crd:outer"), (inner_w, "crd:inner")):
        e = feeds[w.id]
        graph.edges.remove(e)
        src, src_port = e.src, e.src_port.name
        # The chunk ids as the (i0, i1) dropper left them, before a dropper one level up
        # removed outer coordinates: aligned with the offsets' stream.
        while port == "crd:outer" and graph.blocks[src].dot_type == "crddrop" and \
                src_port.startswith("crd:inner"):
            up = next(x for x in graph.inputs_of(src) if x.dst_port.name.startswith("crd:in-"))
            src, src_port = up.src, up.src_port.name
        graph.connect(src, src_port, flat.id, port)
        del graph.blocks[w.id]
    graph.connect(flat.id, "crd", out.id, "crd")
    split_fmt = graph.formats.get(target) or _split_format(fmt, mode)
    p = split_fmt.level_of_mode(mode)
    for w in [b for b in graph.blocks.values() if b.dot_type == "fiberwrite"
              and b.tensor == target and b.attrs.get("mode", "").isdigit()]:
        depth = split_fmt.level_of_mode(int(w.attrs["mode"])) - (p + 1)
        if depth < 1:
            continue
        e = next(x for x in graph.edges if x.dst == w.id)
        nxt = max(int(b) for b in graph.blocks if b.isdigit()) + 1
        low = graph.add(make_block(str(nxt), "flattenstops", {"depth": str(depth)}))
        repoint(e, graph, dst=low.id)
        graph.connect(low.id, "crd", w.id, "crd")
    for b in graph.blocks.values():
        if b.dot_type == "fiberwrite" and b.tensor == target:
            b.attrs["tensor"] = result
            m = b.attrs.get("mode", "")
            if m.isdigit() and int(m) > mode + 1:
                b.attrs["mode"] = str(int(m) - 1)
    graph.formats.pop(target, None)
    written = _merge_format(split_fmt, mode, fmt.levels[fmt.level_of_mode(mode)])
    graph.formats[result] = written
    wanted = {k: v for k, v in graph.contract.output_formats.items() if k != target}
    if written != fmt:  # written in the loop order: converted back as the graph says
        wanted[result] = fmt
    graph.contract.output_formats = None  # set again last, as the graph is written
    graph.contract.output_formats = wanted


def _merge_format(split_fmt: Format, mode: int, letter: str) -> Format:
    """The inverse of :func:`_split_format`: the levels of modes ``mode``, ``mode + 1`` (which
    must be adjacent) one level ``letter`` of mode ``mode``, later modes renumbered."""
    p = split_fmt.level_of_mode(mode)
    if split_fmt.mode_order[p + 1: p + 2] != (mode + 1,):
        raise CompileError(f"format {split_fmt}: the split levels of modes {mode} and "
                           f"{mode + 1} are not adjacent; store them one inside the other")
    order = [m - 1 if m > mode + 1 else m for m in split_fmt.mode_order if m != mode + 1]
    return Format((*split_fmt.levels[:p], letter, *split_fmt.levels[p + 2:]), tuple(order))


def compile_with_split_mode(expression: str, formats: Mapping[str, Format | str] | None,
                            schedule: list[str], dims: Mapping[str, int] | None, mode: str
                            ) -> Graph | Program:
    """``custard compile ... -s=split(i,i0,i1,s) [-s=reorder(...)] --split-mode MODE``: the one
    ``split`` of the schedule done ``stored`` or ``online`` (:func:`compile_split`); a
    ``reorder`` gives the loop order (naming ``i`` or ``i0,i1``); other commands are refused."""
    from custard.schedule import parse_directives

    split: tuple[str, str, str, int] | None = None
    order: list[str] | None = None
    for text in schedule:
        for d in parse_directives(text):
            if d.name in ("split", "divide") and split is None and len(d.args) == 4:
                if d.name == "divide" or not d.args[3].isdigit():
                    raise CompileError(f"{d}: --split-mode takes split(i,i0,i1,S) with an "
                                       "integer chunk size S")
                split = (d.args[0], d.args[1], d.args[2], int(d.args[3]))
            elif d.name == "reorder":
                order = list(d.args)
            else:
                raise CompileError(f"{d}: --split-mode takes one split(i,i0,i1,S) and a "
                                   "reorder only")
    if split is None:
        raise CompileError("--split-mode needs a schedule command split(i,i0,i1,S)")
    if order is not None and split[1] in order:
        k = order.index(split[1])
        if order[k + 1: k + 2] != [split[2]]:
            raise CompileError(f"--split-mode: {split[1]} must come directly before {split[2]} "
                               "in the loop order")
        order = order[:k] + [split[0]] + order[k + 2:]
    return compile_split(expression, formats, order, split, dims=dims, mode=mode)
