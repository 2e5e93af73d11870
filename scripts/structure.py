"""The structure of ``sam/``: its rooms (sub-packages and top-level modules) on the floors of a
tower, and the import arrows between them; drawn with graphviz, checked by
``tests/test_layering.py``.

A room imports only rooms on lower floors (or itself): kernels never see blocks, blocks never
see graphs, graphs never see the engine, and so on up to the command line. Every import counts:
module level, inside functions, and under ``if TYPE_CHECKING:``.

    python scripts/structure.py                        # print floors, rooms and arrows
    python scripts/structure.py -o docs/img/sam-structure.svg   # and draw them
"""

from __future__ import annotations

import argparse
import ast
import collections
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("formats", "sam", "custard")

#: The floors of ``sam/``, lowest first; each holds rooms (``sam.<name>``) that import only
#: rooms of lower floors. A new sub-package or top-level module of ``sam`` must be placed here.
TOWER: tuple[tuple[str, ...], ...] = (
    ("errors", "style", "command", "gold", "memory_timeline"),   # vocabulary and utilities
    ("notation", "runtime", "memory_model"),     # index notation; tokens, rings, kernels
    ("blocks",),                                 # the primitives (Sec. 3, 4)
    ("graph",),                                  # graphs of blocks, DOT, compounds, registry
    ("sim", "bind", "tmu_ops", "dae"),           # the engine; binding; the DAE machine
    ("program", "check"),                        # programs of phases; checking results
    ("report", "plot", "trace"),                 # what a run reports, draws and traces
    ("html",),                                   # the report as an offline web page
    ("tmu_cli",),
    ("cli",),                                    # sam-sim
    ("__main__",),
)
FLOOR_NAMES = ("base", "language and runtime", "blocks", "graph", "engine", "program",
               "report", "page", "commands", "cli", "entry")


# ----------------------------------------------------------------------------- the scanner
def modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the three packages."""
    found: dict[str, Path] = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(tree: ast.AST, *, type_checking: bool
            ) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement (anywhere, including inside functions) with whether it sits in an
    ``if TYPE_CHECKING:`` block; those are skipped unless ``type_checking``."""

    def walk(node: ast.AST, in_tc: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                if type_checking or not in_tc:
                    yield child, in_tc
            elif isinstance(child, ast.If) and _is_type_checking(child):
                for stmt in child.body:
                    yield from walk(ast.Module([stmt], []), True)
                for stmt in child.orelse:
                    yield from walk(ast.Module([stmt], []), in_tc)
            else:
                yield from walk(child, in_tc)

    yield from walk(tree, False)


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The module a ``from ... import`` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported_names(importer: str, path: Path, tree: ast.AST, *, type_checking: bool
                   ) -> Iterator[tuple[str, str | None, int]]:
    """(module, imported name or None, line) for each import."""
    is_package = path.name == "__init__.py"
    for node, _ in imports(tree, type_checking=type_checking):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        else:
            module = _absolute(node, importer, is_package)
            for alias in node.names:
                yield module, alias.name, node.lineno
    for node in ast.walk(tree):  # importlib.import_module("x") / __import__("x")
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            if name in ("import_module", "__import__"):
                yield node.args[0].value, None, node.lineno


def target(module: str, name: str | None, known: dict[str, Path]) -> str | None:
    """The file (module) an import loads: ``from a import b`` loads a.b if that is a module."""
    if name is not None and f"{module}.{name}" in known:
        return f"{module}.{name}"
    parts = module.split(".")
    while parts:
        if ".".join(parts) in known:
            return ".".join(parts)
        parts.pop()
    return None


def import_graph(known: dict[str, Path], *, type_checking: bool = False
                 ) -> dict[str, set[str]]:
    """Module -> modules it imports (module-level and function-level; ``TYPE_CHECKING`` ones
    too when ``type_checking``)."""
    graph: dict[str, set[str]] = {}
    for mod, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        edges = {target(m, n, known) for m, n, _ in
                 imported_names(mod, path, tree, type_checking=type_checking)}
        graph[mod] = {e for e in edges if e is not None and e != mod}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, succ = work[-1]
            nxt = next(succ, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


# ----------------------------------------------------------------------------- the tower
def room(module: str) -> str | None:
    """The room of a ``sam`` module: its sub-package or top-level module (``None``: the
    package ``sam`` itself or a module outside ``sam``)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "sam" and len(parts) > 1 else None


def floors() -> dict[str, int]:
    """Room -> its floor in :data:`TOWER`."""
    return {r: k for k, rooms in enumerate(TOWER) for r in rooms}


def arrows(known: dict[str, Path]) -> dict[tuple[str, str], list[str]]:
    """(room, room it imports) -> the module imports behind that arrow (every kind of import,
    ``TYPE_CHECKING`` ones included), for rooms of ``sam``."""
    out: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for mod, path in known.items():
        src = room(mod)
        if src is None:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for m, n, line in imported_names(mod, path, tree, type_checking=True):
            dst = target(m, n, known)
            dst_room = room(dst) if dst else None
            if dst_room is not None and dst_room != src:
                out[(src, dst_room)].append(f"{path.relative_to(ROOT)}:{line} imports {dst}")
    return dict(out)


def unplaced(known: dict[str, Path]) -> list[str]:
    """Rooms of ``sam`` that :data:`TOWER` does not place."""
    placed = floors()
    return sorted({r for m in known if (r := room(m)) is not None and r not in placed})


def back_arrows(known: dict[str, Path]) -> list[str]:
    """Imports that go up the tower or across a floor (one line each)."""
    placed = floors()
    bad = []
    for (src, dst), where in sorted(arrows(known).items()):
        if src in placed and dst in placed and placed[dst] >= placed[src]:
            bad += [f"{w} (room {src} on floor {placed[src]} -> {dst} on floor {placed[dst]})"
                    for w in where]
    return bad


def dot_text(known: dict[str, Path]) -> str:
    """The tower as graphviz DOT: the lowest floor at the bottom, an arrow per room import
    labelled with the number of module imports behind it; arrows up the tower in red."""
    placed = floors()
    found = arrows(known)
    lines = ["digraph sam {", '  rankdir=TB; newrank=true; node [shape=box, style="rounded,filled",'
             ' fillcolor="#eef3fb", fontname="Helvetica"]; edge [color="#8090a0"];',
             '  label="sam/: rooms on floors (0 at the bottom); an arrow is an import, '
             'labelled with how many"; labelloc=t;']
    for k, rooms in enumerate(TOWER):
        lines.append(f'  subgraph cluster_{k} {{ label="{k} {FLOOR_NAMES[k]}"; '
                     'style=dashed; color="#c0c8d0"; rank=same;')
        lines += [f'    "{r}";' for r in rooms]
        lines.append("  }")
    for (src, dst), where in sorted(found.items()):
        up = src in placed and dst in placed and placed[dst] >= placed[src]
        style = ', color=red, penwidth=2' if up else ""
        lines.append(f'  "{src}" -> "{dst}" [label="{len(where)}"{style}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def summary(known: dict[str, Path]) -> str:
    found = arrows(known)
    rooms = {r for m in known if (r := room(m)) is not None}
    return (f"{len(rooms)} rooms on {len(TOWER)} floors, {len(found)} arrows "
            f"({sum(len(w) for w in found.values())} module imports), "
            f"{len(back_arrows(known))} back up, {len(unplaced(known))} unplaced")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", type=Path, help="draw the tower (.svg, .png or .gv)")
    args = ap.parse_args(argv)
    known = modules()
    for k, rooms in reversed(list(enumerate(TOWER))):
        print(f"{k} {FLOOR_NAMES[k]:22s} {' '.join(rooms)}")
    print(summary(known))
    for line in back_arrows(known) + [f"unplaced room: {r}" for r in unplaced(known)]:
        print("  " + line)
    if args.output:
        text = dot_text(known)
        if args.output.suffix == ".gv":
            args.output.write_text(text)
        else:
            import subprocess

            subprocess.run(["dot", f"-T{args.output.suffix[1:]}", "-o", str(args.output)],
                           input=text, text=True, check=True)
        print(f"drew {args.output}")
    return 1 if back_arrows(known) or unplaced(known) else 0


if __name__ == "__main__":
    sys.exit(main())
