"""Index-notation statements written as MLIR (Linalg + SparseTensor), for tests that compare
the MLIR front end with the index-notation one: one ``linalg.generic`` whose iteration space
lists the loop order, whose maps are the accesses and whose region is the expression, with the
formats as ``#sparse_tensor.encoding`` (current ``map`` syntax) and a ``tensor.empty`` output."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from formats.format import Format
from sam.notation.expr import Access, Add, Div, Literal, Mul, Neg, Node
from sam.notation.parse import parse_expression

LEVEL_NAMES = {"d": "dense", "s": "compressed", "u": "compressed(nonunique)", "q": "singleton",
               "c": "singleton(nonunique)"}


def encoding(fmt: Format) -> str:
    """``#sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>``."""
    dims = [f"d{k}" for k in range(len(fmt.levels))]
    levels = ", ".join(f"d{m} : {LEVEL_NAMES[letter]}"
                       for letter, m in zip(fmt.levels, fmt.mode_order, strict=True))
    return f"#sparse_tensor.encoding<{{ map = ({', '.join(dims)}) -> ({levels}) }}>"


def mlir_kernel(expression: str, formats: Mapping[str, str], order: Sequence[str],
                name: str = "kernel") -> str:
    """``expression`` (index notation, one access per tensor) as an MLIR function ``@name``."""
    assign = parse_expression(expression)
    fmts = {n: Format.parse(f) for n, f in formats.items()}
    accesses: list[Access] = []
    for acc in assign.rhs.accesses():
        if acc.name not in [a.name for a in accesses]:
            accesses.append(acc)
    aliases: list[str] = []

    def ttype(acc: Access) -> str:
        rank = len(acc.indices)
        if rank == 0:
            return "tensor<f64>"
        fmt = fmts.get(acc.name) or Format.parse("d" * rank)
        shape = "x".join("?" * rank)
        if set(fmt.levels) == {"d"} and list(fmt.mode_order) == list(range(rank)):
            return f"tensor<{shape}xf64>"
        alias = f"#E_{acc.name}"
        if alias not in [a.split(" ")[0] for a in aliases]:
            aliases.append(f"{alias} = {encoding(fmt)}")
        return f"tensor<{shape}xf64, {alias}>"

    out = assign.lhs
    dims = ", ".join(order)
    maps = [f"affine_map<({dims}) -> ({', '.join(a.indices)})>" for a in [*accesses, out]]
    reduced = [v for v in order if v not in out.indices]
    iters = ", ".join('"reduction"' if v in reduced else '"parallel"' for v in order)
    args = ", ".join(f"%{a.name}: {ttype(a)}" for a in accesses)
    body: list[str] = []
    counter = [0]

    def emit(node: Node) -> str:
        if isinstance(node, Access):
            return f"%a_{node.name}"
        if isinstance(node, Literal):
            counter[0] += 1
            body.append(f"%v{counter[0]} = arith.constant {float(node.text)!r} : f64")
            return f"%v{counter[0]}"
        if isinstance(node, Neg):
            x = emit(node.child)
            counter[0] += 1
            body.append(f"%v{counter[0]} = arith.negf {x} : f64")
            return f"%v{counter[0]}"
        if isinstance(node, Mul):
            a, b = emit(node.left), emit(node.right)
            op = "arith.divf" if isinstance(node, Div) else "arith.mulf"
        elif isinstance(node, Add):
            a, b = emit(node.left), emit(node.right)
            op = "arith.subf" if node.sub else "arith.addf"
        else:
            raise ValueError(f"no MLIR for {node!r}")
        counter[0] += 1
        body.append(f"%v{counter[0]} = {op} {a}, {b} : f64")
        return f"%v{counter[0]}"

    result = emit(assign.rhs)
    if reduced:
        body.append(f"%acc = arith.addf %a_out, {result} : f64")
        result = "%acc"
    out_type = ttype(out)
    sizes = []
    prelude = ["%c0 = arith.constant 0 : index"] if out.indices else []
    for k, v in enumerate(out.indices):
        src = next(a for a in accesses if v in a.indices)
        prelude.append(f"%c{k + 1} = arith.constant {src.indices.index(v)} : index")
        prelude.append(f"%n{k} = tensor.dim %{src.name}, %c{k + 1} : {ttype(src)}")
        sizes.append(f"%n{k}")
    block_args = ", ".join([f"%a_{a.name}: f64" for a in accesses] + ["%a_out: f64"])
    ins_types = ", ".join(ttype(a) for a in accesses)
    lines = [*aliases, "", f"func.func @{name}({args}) -> {out_type} {{", *prelude,
             f"  %e = tensor.empty({', '.join(sizes)}) : {out_type}",
             f"  %{out.name} = linalg.generic {{",
             f"      indexing_maps = [{', '.join(maps)}],",
             f"      iterator_types = [{iters}]}}",
             f"      ins({', '.join('%' + a.name for a in accesses)} : {ins_types})",
             f"      outs(%e : {out_type}) {{",
             f"    ^bb0({block_args}):",
             *[f"      {line}" for line in body],
             f"      linalg.yield {result} : f64",
             f"  }} -> {out_type}",
             f"  return %{out.name} : {out_type}",
             "}"]
    return "\n".join(lines) + "\n"
