"""Kernel state, parameters and memories by name (``sam.runtime.kernel.State``, ``Memories``)."""

from __future__ import annotations

import ast
import importlib
import pkgutil

import numpy as np
import pytest

import sam.blocks
from formats import Tensor
from sam.blocks.base import Memories
from sam.blocks.reducers import A_EXPECT, A_LEVEL, A_N, SparseAccumulator
from sam.blocks.scanners import COORDINATES, POSITIONS, SEGMENT, SIZE, STORED, LevelScanner
from sam.blocks.writers import LevelWriter
from sam.runtime.kernel import State, kernel
from sam.runtime.wires import FSTATE_SLOTS, STATE_SLOTS, P

BLOCK_MODULES = [importlib.import_module(f"sam.blocks.{m.name}")
                 for m in pkgutil.iter_modules(sam.blocks.__path__)]


def test_state_numbers_slots_in_declaration_order():
    s = State(a=3, wide=[1, 2, 3], b=-1)
    assert s.slots == (P, P + 1, P + 4)
    assert s["wide"] == P + 1
    st = s.initial({"b": 7, "wide": [4, 5, 6]})
    assert st.dtype == np.int64 and len(st) == STATE_SLOTS
    assert st[P: P + 5].tolist() == [3, 4, 5, 6, 7] and not st[:P].any()
    assert s.initial({})[P: P + 5].tolist() == [3, 1, 2, 3, -1]


def test_state_refuses_unknown_names_and_widths():
    s = State(a=0, wide=[0, 0])
    with pytest.raises(ValueError, match="no state slot 'c'; declared: a, wide"):
        s.initial({"c": 1})
    with pytest.raises(ValueError, match="holds 2 value"):
        s.initial({"wide": 1})
    with pytest.raises(ValueError, match="does not fit"):
        State(big=[0] * (STATE_SLOTS - P + 1))


def test_float_state():
    f = State.floats(sum=0.5, other=2.0)
    assert f.slots == (0, 1)
    st = f.initial({"other": 3.5})
    assert st.dtype == np.float64 and len(st) == FSTATE_SLOTS and st[:2].tolist() == [0.5, 3.5]


def _unpacked_states(module) -> list[tuple[list[str], str]]:
    """``A, B = NAME.slots`` statements of a module: (target names, NAME)."""
    tree = ast.parse(open(module.__file__).read())
    out = []
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute)
                and node.value.attr == "slots" and isinstance(node.value.value, ast.Name)):
            targets = node.targets[0]
            names = [e.id for e in targets.elts] if isinstance(targets, ast.Tuple) else []
            out.append((names, node.value.value.id))
    return out


@pytest.mark.parametrize("module", BLOCK_MODULES, ids=lambda m: m.__name__)
def test_kernel_constants_name_their_slots(module):
    """Each module-level constant unpacked from a State names the slot it gets (an optional
    one-letter prefix such as ``A_`` tells a module's families apart)."""
    for names, state_name in _unpacked_states(module):
        state = getattr(module, state_name)
        assert len(names) == len(state.index)
        for const, (name, slot) in zip(names, state.index.items(), strict=True):
            low = const.lower()
            assert low == name or (low[1:2] == "_" and low[2:] == name), (const, name)
            assert getattr(module, const) == slot


def test_every_block_state_is_unpacked():
    """Every State a block module declares is turned into kernel constants."""
    for module in BLOCK_MODULES:
        tree = ast.parse(open(module.__file__).read())
        declared = {node.targets[0].id for node in tree.body
                    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and "State" in ast.unparse(node.value.func)}
        assert declared <= {name for _, name in _unpacked_states(module)}, module.__name__
        assert all(isinstance(getattr(module, name), State) for name in declared)


def test_block_initial_state_places_parameters_by_name():
    acc = SparseAccumulator("a", {"order": "2", "in0": "j", "in1": "i"})
    st, fst, mem = acc.initial_state({})
    assert (st[A_N], st[A_LEVEL], st[A_EXPECT]) == (2, 1, 0)
    assert mem["cur"].tolist() == [0, 0, 0, 1]  # coordinates, then fresh flags: outermost open
    assert mem.names == ("pts", "opts", "where", "cur", "vals", "ovals")
    assert mem["pts"].dtype == np.int64 and mem["ovals"].dtype == np.float64
    assert len(fst) == FSTATE_SLOTS

    B = Tensor.from_dense(np.array([[0.0, 1.0], [2.0, 0.0]]), "ss01")
    st, _, mem = LevelScanner("s", {"tensor": "B", "mode": "1"}).initial_state({"B": B})
    assert (st[POSITIONS], st[COORDINATES], st[SIZE]) == (SEGMENT, STORED, 2)
    assert mem["seg"] is B.levels[1].seg and mem["crd"] is B.levels[1].crd


def test_memories_by_kernel_argument_name():
    writer = LevelWriter("w", {"tensor": "X", "mode": "0"})
    _, _, mem = writer.initial_state({})
    assert mem.names[:3] == ("crd", "stop_at", "stop_level")
    old = mem["stop_at"]
    old[:3] = [4, 5, 6]
    writer.grow_memory(mem, mem.index("stop_at"))  # stop positions and levels grow together
    assert len(mem["stop_at"]) == len(mem["stop_level"]) == 2 * len(old)
    assert mem["stop_at"][:3].tolist() == [4, 5, 6] and len(mem["crd"]) == len(old)
    assert [len(a) for a in mem.args()] == [len(old), 2 * len(old), 2 * len(old), 1, 1, 1]
    with pytest.raises(KeyError, match="no memory 'seg'"):
        mem.index("seg")
    with pytest.raises(TypeError, match="1-D int64"):
        Memories(mem.names, {"crd": np.zeros(3)})
    with pytest.raises(TypeError, match="1-D float64"):
        Memories(("a", "b", "c", "d", "vals", "f1"), {"vals": np.zeros(3, np.int64)})


def test_kernel_signature_is_checked():
    with pytest.raises(TypeError, match="uniform kernel signature has 12"):
        @kernel
        def bad(w, st, fst, ins, optr, ochan, seg):
            return 0
