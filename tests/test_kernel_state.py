"""Kernel state, ports, parameters and memories by name (``sam.runtime.kernel.State``,
``sam.blocks.base.Ports``, ``Memories``)."""

from __future__ import annotations

import ast
import importlib
import pkgutil

import numpy as np
import pytest

import sam.blocks
from formats import Tensor
from sam.blocks import merges, reducers, repeaters, scanners
from sam.blocks.base import Memories, Port, Ports
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
    """``A, B = NAME.slots`` statements of a module (NAME a State or Ports): (target names,
    NAME)."""
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
    one-letter prefix such as ``A_`` tells a module's families apart); one unpacked from Ports
    names its port and direction (``REF_IN``, ``CRD_OUT``)."""
    for names, state_name in _unpacked_states(module):
        state = getattr(module, state_name)
        assert len(names) == len(state.index)
        for const, (name, slot) in zip(names, state.index.items(), strict=True):
            low = const.lower()
            if isinstance(state, Ports):
                name = f"{name}_{state.direction}"
            assert low == name or (low[1:2] == "_" and low[2:] == name), (const, name)
            assert getattr(module, const) == slot


def test_every_block_state_is_unpacked():
    """Every State or Ports a block module declares is turned into kernel constants."""
    for module in BLOCK_MODULES:
        tree = ast.parse(open(module.__file__).read())
        declared = {node.targets[0].id for node in tree.body
                    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and ast.unparse(node.value.func).split(".")[0] in ("State", "Ports")}
        assert declared <= {name for _, name in _unpacked_states(module)}, module.__name__
        assert all(isinstance(getattr(module, name), (State, Ports)) for name in declared)


def test_ports_number_ports_in_declaration_order():
    p = Ports.inputs(ref=Port("ref"), sig=Port("repsig"), crd=Port("crd"))
    assert p.slots == (0, 1, 2) and p["sig"] == 1 and len(p) == 3 and p.direction == "in"
    assert [q.name for q in p.ports()] == ["ref", "repsig", "crd"]
    ports = p.ports(ref={"optional": True}, crd=[Port("crd", "i"), Port("crd", "j")])
    assert [(q.name, q.optional) for q in ports] == [
        ("ref", True), ("repsig", False), ("crd:i", False), ("crd:j", False)]
    with pytest.raises(ValueError, match="no port val; declared: ref, sig, crd"):
        p.ports(val={})
    with pytest.raises(ValueError, match="'sig' is not the last one"):
        p.ports(sig=[Port("repsig")])


def test_blocks_list_ports_in_kernel_order():
    """A block's port lists come from the declarations its kernels index by."""
    rep = repeaters.Repeater("r", {"root": "true"})
    assert rep.inputs()[repeaters.REPSIG_IN].name == "repsig"
    assert rep.inputs()[repeaters.REF_IN].optional
    merge = merges.Intersecter("m", {"index": "k"}, operands=["B", "C"])
    merge.declare_port("out", "crd", "skip-C")
    assert merge.inputs()[merges.crd_in(1)].name == "crd:in-C"
    assert merge.inputs()[merges.ref_in(0)].name == "ref:in-B"
    assert [p.name for p in merge.outputs()] == ["crd", "ref:out-B", "ref:out-C", "crd:skip-C"]
    assert merge.memories({})["skipto"].tolist() == [-1, merges.REF_OUT + 2]
    acc = SparseAccumulator("a", {"order": "2", "in0": "j", "in1": "i"}, ignored=["k"])
    assert [p.name for p in acc.inputs()] == ["val", "crd:j", "crd:i", "crd:k"]
    assert acc.inputs()[reducers.CRD_IN + 1].name == "crd:i"
    assert acc.outputs()[reducers.CRD_OUT + 1].name == "crd:out-i"
    scan = scanners.LevelScanner("s", {"tensor": "B", "mode": "0"})
    assert len(scan.inputs()) == 1
    scan.declare_port("in", "crd", "skip-B")
    assert scan.inputs()[scanners.SKIP_IN].feedback


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
