"""The packages' layering: ``custard -> sam -> formats``, one way, without cycles.

* ``sam`` works with ``custard`` unimportable: every ``sam`` module imports, and a simulation is
  checked against numpy (``sam.check``) without it; ``formats`` works with neither.
* An AST scan of ``formats/``, ``sam/`` and ``custard/``: ``sam`` and ``formats`` never import
  ``custard`` and ``formats`` never imports ``sam`` (module-level, function-level or
  ``TYPE_CHECKING`` imports alike); no import cycle between files (counting module-level and
  function-level imports, not ``if TYPE_CHECKING:`` ones nor a package's implicit
  ``__init__``); no ``from module import _private`` across modules.
* The experiments (``custard.reproduce``) are a leaf: no module outside that package imports it
  (``sam-sim`` loads its command by the entry point ``custard.reproduce.cli:register``); what
  both the experiments and the compiler use (the sweeps) lives in ``custard.sweeps``.
* Code outside ``formats/`` asks levels for capabilities (``Level.full``, ``Level.name``, ...):
  it never compares with the level letters ``"d"``/``"s"`` nor tests ``isinstance`` with
  ``DenseLevel``/``CompressedLevel``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("formats", "sam", "custard")
#: Which packages each package may import (the layering, lowest first).
ALLOWED = {"formats": {"formats"}, "sam": {"formats", "sam"},
           "custard": {"formats", "sam", "custard"}}
#: Leaf packages: no module outside them imports them.
LEAVES = ("custard.reproduce",)
#: Directories whose code must ask level capabilities instead of letters and classes.
CAPABILITY_DIRS = ("custard", "sam", "scripts")
CAPABILITY_NOT_YET: tuple[str, ...] = ()
#: Private names imported across modules, by (importer, imported module): none.
KNOWN_PRIVATE: set[tuple[str, str]] = set()
LEVEL_LETTERS = {"d", "s", "u", "q", "c"}
LEVEL_CLASSES = {"DenseLevel", "CompressedLevel", "NonUniqueCompressedLevel", "SingletonLevel",
                 "NonUniqueSingletonLevel"}


# ----------------------------------------------------------------------------- module index
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


def _target(module: str, name: str | None, known: dict[str, Path]) -> str | None:
    """The file (module) an import loads: ``from a import b`` loads a.b if that is a module."""
    if name is not None and f"{module}.{name}" in known:
        return f"{module}.{name}"
    parts = module.split(".")
    while parts:
        if ".".join(parts) in known:
            return ".".join(parts)
        parts.pop()
    return None


def import_graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> modules it imports (module-level and function-level, not TYPE_CHECKING)."""
    graph: dict[str, set[str]] = {}
    for mod, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        edges = {_target(m, n, known) for m, n, _ in
                 imported_names(mod, path, tree, type_checking=False)}
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


def _show(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def layering_violations(known: dict[str, Path]) -> list[str]:
    bad = []
    for mod, path in known.items():
        pkg = mod.split(".")[0]
        allowed = ALLOWED[pkg]
        tree = ast.parse(path.read_text(), str(path))
        for module, _, line in imported_names(mod, path, tree, type_checking=True):
            top = module.split(".")[0]
            if top in PACKAGES and top not in allowed:
                bad.append(f"{_show(path)}:{line} imports {module}")
    return bad


def leaf_imports(known: dict[str, Path]) -> list[str]:
    """Imports of a leaf package (:data:`LEAVES`) from outside it."""
    def inside(module: str, leaf: str) -> bool:
        return module == leaf or module.startswith(leaf + ".")

    bad = []
    for mod, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        for module, name, line in imported_names(mod, path, tree, type_checking=True):
            full = f"{module}.{name}" if name else module
            for leaf in LEAVES:
                if (inside(module, leaf) or inside(full, leaf)) and not inside(mod, leaf):
                    bad.append(f"{_show(path)}:{line} imports {full}")
    return bad


def private_imports(known: dict[str, Path]) -> list[str]:
    bad = []
    for mod, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        for module, name, line in imported_names(mod, path, tree, type_checking=True):
            if module.split(".")[0] not in PACKAGES or name is None:
                continue
            if name.startswith("_") and not name.startswith("__") and module != mod \
                    and (mod, module) not in KNOWN_PRIVATE:
                bad.append(f"{_show(path)}:{line} imports {name} from {module}")
    return bad


def level_letter_uses(source: str, where: str) -> list[str]:
    """Comparisons with ``"d"``/``"s"`` and isinstance/issubclass/``is`` tests on level classes."""

    def names(node: ast.AST) -> set[str]:
        out = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                out.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                out.add(sub.attr)
        return out

    def letters(node: ast.AST) -> bool:
        elts = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return any(isinstance(e, ast.Constant) and e.value in LEVEL_LETTERS for e in elts)

    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(letters(o) for o in operands):
                bad.append(f"{where}:{node.lineno} compares with a level letter")
            elif any(isinstance(o, (ast.Name, ast.Attribute)) and names(o) & LEVEL_CLASSES
                     for o in operands):
                bad.append(f"{where}:{node.lineno} compares with a level class")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2 \
                and names(node.args[1]) & LEVEL_CLASSES:
            bad.append(f"{where}:{node.lineno} tests {node.func.id} with a level class")
    return sorted(bad, key=lambda hit: int(hit.split(":")[1].split(" ")[0]))


# ----------------------------------------------------------------------------- the tests
BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked for this test")
        return None
sys.meta_path.insert(0, Block())
"""


def run_blocked(blocked: tuple[str, ...], body: str) -> subprocess.CompletedProcess:
    code = f"BLOCKED = {blocked!r}\n" + BLOCKER + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_sam_works_without_custard() -> None:
    proc = run_blocked(("custard",), """
        import importlib, pkgutil, sys
        import numpy as np
        try:
            import custard  # noqa: F401
        except ImportError:
            pass
        else:
            raise SystemExit("custard was importable")
        import sam
        names = [m.name for m in pkgutil.walk_packages(sam.__path__, "sam.")
                 if not m.name.endswith(".__main__")]  # importing it runs sam-sim
        for name in names:
            importlib.import_module(name)

        from formats.tensor import Tensor
        from sam.check import compare, expected
        from sam.graph.dot import load
        from sam.sim.engine import simulate

        rng = np.random.default_rng(10)
        def sparse(*shape):
            return np.round(rng.random(shape) * 9) * (rng.random(shape) < 0.4)
        B, C, c = sparse(5, 4), sparse(4, 6), sparse(4)
        D = sparse(5, 4)
        cases = [("matmul_ikj", {"B": B, "C": C}, B @ C),
                 ("mat_vecmul_ij", {"B": B, "c": c}, B @ c),
                 ("mat_elemadd", {"B": B, "C": D}, B + D),
                 ("mat_identity_dense", {"B": B}, B)]
        for graph_name, arrays, want in cases:
            graph = load(f"dot_graphs/{graph_name}.gv")
            tensors = {n: Tensor.from_dense(a) for n, a in arrays.items()}
            result = simulate(graph, tensors)
            gold = expected(graph.attrs["expression"], tensors)
            np.testing.assert_array_equal(gold, want)
            out = next(iter(result.outputs.values()))
            verdict = compare(out, gold)
            assert verdict.passed, (graph_name, verdict.line())
            np.testing.assert_array_equal(out.to_dense(), want)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] == "custard")
        assert not loaded, loaded
        print(len(names), "modules", len(cases), "checks")
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    n_modules = int(proc.stdout.split()[0])
    assert n_modules == sum(1 for m in modules()
                            if m.startswith("sam.") and not m.endswith(".__main__"))
    assert proc.stdout.split()[2:] == ["4", "checks"]


def test_formats_works_without_sam_and_custard() -> None:
    proc = run_blocked(("sam", "custard"), """
        import importlib, pkgutil
        import numpy as np
        import formats
        from formats.tensor import Tensor
        names = [m.name for m in pkgutil.walk_packages(formats.__path__, "formats.")]
        for name in names:
            importlib.import_module(name)
        a = np.array([[0.0, 2.0], [3.0, 0.0]])
        t = Tensor.from_dense(a, "ds")
        np.testing.assert_array_equal(t.with_format("ss:1,0").to_dense(), a)
        print(len(names))
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert int(proc.stdout) == sum(1 for m in modules() if m.startswith("formats."))


def test_layers_import_one_way() -> None:
    assert layering_violations(modules()) == []


def test_no_import_cycles() -> None:
    found = cycles(import_graph(modules()))
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_experiments_are_a_leaf() -> None:
    assert leaf_imports(modules()) == []


def test_no_private_names_imported_across_modules() -> None:
    assert private_imports(modules()) == []


def test_code_outside_formats_asks_level_capabilities() -> None:
    files = [f for d in CAPABILITY_DIRS for f in sorted((ROOT / d).rglob("*.py"))
             if not any(f.is_relative_to(ROOT / skip) for skip in CAPABILITY_NOT_YET)]
    assert len(files) > 20
    bad = [hit for f in files for hit in level_letter_uses(f.read_text(), str(f.relative_to(ROOT)))]
    assert bad == []


# ----------------------------------------------------------------------------- the scanners
def test_scanners_find_what_they_look_for(tmp_path: Path) -> None:
    """The checks above would pass vacuously if the scanners missed things: feed them some."""
    src = textwrap.dedent("""
        from typing import TYPE_CHECKING
        import pkg.b
        if TYPE_CHECKING:
            import pkg.c
        def f():
            from pkg import d
            from pkg.b import _hidden
        if fmt.levels[0] == "d" or letter in ("s", "x"):
            pass
        if isinstance(level, (DenseLevel, formats.levels.CompressedLevel)):
            pass
        if type(level) is DenseLevel:
            pass
        ok = level.full and x == "dense"
    """)
    (tmp_path / "pkg").mkdir()
    for name in ("__init__", "a", "b", "c", "d"):
        (tmp_path / "pkg" / f"{name}.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text(src)
    (tmp_path / "pkg" / "d.py").write_text("import pkg.a\n")
    known = {f"pkg.{n}" if n != "__init__" else "pkg": tmp_path / "pkg" / f"{n}.py"
             for n in ("__init__", "a", "b", "c", "d")}
    graph = import_graph(known)
    assert graph["pkg.a"] == {"pkg.b", "pkg.d"}  # TYPE_CHECKING import of pkg.c skipped
    assert cycles(graph) == [["pkg.a", "pkg.d"]]
    tree = ast.parse(src)
    assert ("pkg.c", None) in [(m, n) for m, n, _ in
                               imported_names("pkg.a", known["pkg.a"], tree, type_checking=True)]
    hits = level_letter_uses(src, "a.py")
    assert [h.split(" ", 1) for h in hits] == [
        ["a.py:9", "compares with a level letter"], ["a.py:9", "compares with a level letter"],
        ["a.py:11", "tests isinstance with a level class"],
        ["a.py:13", "compares with a level class"]]


@pytest.mark.parametrize("importer,text,expected", [
    ("sam.x", "from custard.api import compile", ["x.py:1 imports custard.api"]),
    ("sam.x", "def f():\n    import custard", ["x.py:2 imports custard"]),
    ("sam.x", "if TYPE_CHECKING:\n    from custard import api", ["x.py:2 imports custard"]),
    ("formats.x", "import importlib\nimportlib.import_module('sam.cli')",
     ["x.py:2 imports sam.cli"]),
    ("custard.x", "from sam.errors import CompileError", []),
])
def test_layering_scan_sees_every_kind_of_import(tmp_path: Path, importer: str, text: str,
                                                 expected: list[str]) -> None:
    path = tmp_path / "x.py"
    path.write_text(text)
    found = layering_violations({importer: path})
    assert [f.rsplit("/", 1)[-1] for f in found] == expected


@pytest.mark.parametrize("importer,text,expected", [
    ("custard.tiling", "from custard.reproduce.sweep import Sweeper",
     ["x.py:1 imports custard.reproduce.sweep.Sweeper"]),
    ("custard.x", "def f():\n    from custard import reproduce",
     ["x.py:2 imports custard.reproduce"]),
    ("sam.x", "import custard.reproduce.fig12", ["x.py:1 imports custard.reproduce.fig12"]),
    ("custard.reproduce.fig12", "from custard.reproduce.common import Claim", []),
    ("custard.x", "from custard.sweeps.sweep import Sweeper\nimport custard.reproducer", []),
])
def test_leaf_scan(tmp_path: Path, importer: str, text: str, expected: list[str]) -> None:
    path = tmp_path / "x.py"
    path.write_text(text)
    found = leaf_imports({importer: path})
    assert [f.rsplit("/", 1)[-1] for f in found] == expected


def test_private_scan(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text("from sam.graph.dot import _id, load\nfrom sam.x import _own\n"
                    "from __future__ import annotations\n")
    found = private_imports({"sam.y": path})
    assert [f.rsplit("/", 1)[-1] for f in found] == ["x.py:1 imports _id from sam.graph.dot",
                                                     "x.py:2 imports _own from sam.x"]
