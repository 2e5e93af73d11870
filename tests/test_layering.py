"""The packages' layering: ``custard -> sam -> formats``, one way, without cycles.

* ``sam`` works with ``custard`` unimportable: every ``sam`` module imports, and a simulation is
  checked against numpy (``sam.check``) without it; ``formats`` works with neither.
* An AST scan of ``formats/``, ``sam/`` and ``custard/``: ``sam`` and ``formats`` never import
  ``custard`` and ``formats`` never imports ``sam`` (module-level, function-level or
  ``TYPE_CHECKING`` imports alike); no import cycle between files (counting module-level and
  function-level imports, not ``if TYPE_CHECKING:`` ones nor a package's implicit
  ``__init__``); no ``from module import _private`` across modules.
* Inside ``sam``, a tower (``scripts/structure.py``: ``TOWER``): each room (sub-package or
  top-level module) sits on a floor and imports only rooms of lower floors, counting every
  kind of import (``TYPE_CHECKING`` ones too); no import cycle even counting ``TYPE_CHECKING``
  imports.
* The experiments (``custard.reproduce``) are a leaf: no module outside that package imports it
  (``sam-sim`` loads its command by the entry point ``custard.reproduce.cli:register``); what
  both the experiments and the compiler use (the sweeps) lives in ``custard.sweeps``.
* Code outside ``formats/`` asks levels for capabilities (``Level.full``, ``Level.name``, ...):
  it never compares with the level letters ``"d"``/``"s"`` nor tests ``isinstance`` with
  ``DenseLevel``/``CompressedLevel``.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
# The import scanner and the tower of sam/ live in scripts/structure.py (which also draws it).
_spec = importlib.util.spec_from_file_location("structure", ROOT / "scripts" / "structure.py")
structure = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(structure)
modules, imports, imported_names = structure.modules, structure.imports, structure.imported_names
import_graph, cycles, _target = structure.import_graph, structure.cycles, structure.target
PACKAGES = structure.PACKAGES


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


def test_no_import_cycles_even_through_type_checking_imports() -> None:
    found = cycles(import_graph(modules(), type_checking=True))
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_every_room_of_sam_is_on_a_floor_of_the_tower() -> None:
    known = modules()
    assert structure.unplaced(known) == []
    assert len({r for m in known if (r := structure.room(m))}) >= 15


def test_sam_rooms_import_only_lower_floors() -> None:
    known = modules()
    assert structure.arrows(known)  # the scan sees the arrows there are
    assert structure.back_arrows(known) == []


def test_tower_scan_sees_arrows_up_and_across(tmp_path: Path) -> None:
    """``back_arrows`` would pass vacuously if it missed imports: feed it some."""
    texts = {"sam/runtime/k.py": "from sam.blocks.b import X\n",           # up: 1 -> 2
             "sam/blocks/b.py": "def f():\n    import sam.sim.e\n",       # up: 2 -> 4
             "sam/sim/e.py": "if TYPE_CHECKING:\n    from sam.program import P\n",  # up
             "sam/bind.py": "from sam.sim import e\n",                     # across: 4 -> 4
             "sam/program.py": "from sam.runtime import k\n",              # down: fine
             "sam/newroom.py": ""}
    known = {}
    for rel, text in texts.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        known[rel[:-3].replace("/", ".")] = path
    old = structure.ROOT
    structure.ROOT = tmp_path
    try:
        bad = structure.back_arrows(known)
    finally:
        structure.ROOT = old
    assert [b.split(" ")[0] for b in bad] == ["sam/bind.py:1", "sam/blocks/b.py:2",
                                             "sam/runtime/k.py:1", "sam/sim/e.py:2"]
    assert structure.unplaced(known) == ["newroom"]


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
