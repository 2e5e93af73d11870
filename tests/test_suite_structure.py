"""The test suite's own structure: test files share code only through ``tests/helpers/``, and the
tier table (``tests/helpers/tiers.py``) names tests that exist, with markers pyproject.toml
registers."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from helpers import tiers

TESTS = Path(__file__).resolve().parent
#: loaders that take a module name or a file path as their first argument
LOADERS = {"import_module", "__import__", "spec_from_file_location", "run_module", "run_path"}


def offending_imports(source: str, local: set[str]) -> list[str]:
    """The imports in ``source`` of a module of ``tests/`` other than ``helpers``: ``local``
    holds the names of the modules directly in ``tests/`` (``test_x``, ``conftest``)."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom):  # relative: tests/ is no package
            names = ["." * node.level + (node.module or "")]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            fn = node.func
            called = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            arg = node.args[-1] if called == "spec_from_file_location" else node.args[0]
            if called in LOADERS and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names = [arg.value]
        for name in names:
            parts = name.split(".")
            if name.startswith(".") or parts[0] in local or "tests/" in name or (
                    parts[0] == "tests" and parts[1:2] != ["helpers"]):
                bad.append(f"line {node.lineno}: {name}")
                break
    return bad


def _local_modules() -> set[str]:
    return {p.stem for p in TESTS.glob("*.py")}


@pytest.mark.parametrize("path", sorted(TESTS.glob("*.py")) + sorted((TESTS / "helpers").glob(
    "*.py")), ids=lambda p: str(p.relative_to(TESTS)))
def test_no_test_file_imports_another(path: Path) -> None:
    """Code shared between test files lives in ``tests/helpers/`` (imported as ``helpers``)."""
    assert offending_imports(path.read_text(), _local_modules()) == []


def test_the_import_check_sees_each_way_of_importing_a_test_file() -> None:
    local = {"test_a", "test_b", "conftest", "shared"}
    source = """
import test_b
from test_b import x
import tests.test_b as t
from tests import test_b
from shared import helper
from . import test_b
import importlib
importlib.import_module("test_b")
spec = importlib.util.spec_from_file_location("b", "tests/test_b.py")
def f():
    from test_b import y
"""
    assert [b.split(": ")[0] for b in offending_imports(source, local)] == [
        f"line {n}" for n in (2, 3, 4, 5, 6, 7, 9, 10, 12)]
    fine = """
from helpers.roundtrip import run_through_dot
import helpers.sweep_driver as d
from tests.helpers import cli
import numpy, sam.cli
importlib.util.spec_from_file_location("corpus", ROOT / "scripts" / "corpus.py")
"""
    assert offending_imports(fine, local) == []


def test_tests_holds_only_test_files_and_conftest() -> None:
    """A module of shared code directly in ``tests/`` would be imported by test files."""
    loose = [p.name for p in TESTS.glob("*.py")
             if not p.name.startswith("test_") and p.name != "conftest.py"]
    assert loose == []


# --------------------------------------------------------------------------- the tier table
@cache
def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names |= {f"{node.name}::{f.name}" for f in node.body
                      if isinstance(f, ast.FunctionDef) and f.name.startswith("test")}
    return names


@pytest.mark.parametrize("marker", tiers.MARKERS)
def test_tier_table_names_existing_tests(marker: str) -> None:
    """Each entry is a test file, ``file::test`` or ``file::test[params]`` that exists (a
    renamed or deleted test must leave the table too)."""
    missing = []
    for entry in tiers.TABLE[marker]:
        file, _, test = entry.partition("::")
        path = TESTS / file
        if not path.is_file():
            missing.append(entry)
        elif test and re.sub(r"\[.*\]$", "", test) not in _test_functions(path):
            missing.append(entry)
    assert missing == []


def test_tier_markers_are_registered_strictly(pytestconfig: pytest.Config) -> None:
    """pyproject.toml registers the markers, and an unknown marker is an error."""
    registered = [m.split(":")[0] for m in pytestconfig.getini("markers")]
    assert [m for m in registered if m in tiers.MARKERS] == list(tiers.MARKERS)
    assert "--strict-markers" in pytestconfig.getini("addopts")


def test_markers_of_a_node_id() -> None:
    table = {"slow": ["test_a.py::test_x", "test_b.py"], "fuzz": ["test_a.py::test_y[1-2]"],
             "subprocess": []}
    assert tiers.markers("tests/test_a.py::test_x[3]", table) == ["slow"]
    assert tiers.markers("tests/test_a.py::test_x", table) == ["slow"]
    assert tiers.markers("tests/test_a.py::test_xy", table) == []
    assert tiers.markers("tests/test_b.py::TestC::test_d", table) == ["slow"]
    assert tiers.markers("tests/test_a.py::test_y[1-2]", table) == ["fuzz"]
    assert tiers.markers("tests/test_a.py::test_y[1-3]", table) == []
