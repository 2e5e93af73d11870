"""The graph contract (:mod:`sam.graph.contract`): graph attributes typed, parsed once when a
graph is read, set directly when Custard builds one, and written back to the same DOT text."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import custard
from custard.api import graphs_of
from formats.format import Format
from sam.errors import GraphError
from sam.graph import contract as contract_module
from sam.graph.dot import dumps, dumps_all, load, loads

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = sorted((ROOT / "dot_graphs").glob("*.gv"))

#: Every typed attribute, spelled as a person might (``2`` for a float, extras between them).
TEXT = """digraph SAM {
    comment="X=dd01,B=ss01,B_t=ss10,c=none,dim_k=d0,Y=s0"
    note="kept as text"
    expression="X(i,j)=c*B(i,j)+B(j,i)"
    order="i,j"
    constants="c=2"
    ranges="dim_k=7"
    dims="i0=4,i1=2"
    copies="B_t=B"
    output_formats="X=dd:1,0"
    nonempty_dims="true"
    shared="B,B_t;X,Y"
    width="4"
    shape_Y="9"
    zz="last"
    0 [comment="type=arrayvals,tensor=c" type="arrayvals" tensor="c"]
}
"""


def test_typed_values_after_load() -> None:
    g = loads(TEXT)
    c = g.contract
    assert c.expression == "X(i,j)=c*B(i,j)+B(j,i)"
    assert c.order == ("i", "j")
    assert dict(c.constants) == {"c": 2.0} and isinstance(c.constants["c"], float)
    assert dict(c.ranges) == {"dim_k": 7}
    assert dict(c.dims) == {"i0": 4, "i1": 2}
    assert dict(c.copies) == {"B_t": "B"}
    assert dict(c.output_formats) == {"X": Format(("d", "d"), (1, 0))}
    assert c.nonempty_dims is True
    assert c.shared == (("B", "B_t"), ("X", "Y"))
    assert c.width == 4
    assert dict(c.shapes) == {"Y": (9,)}
    assert dict(c.extra) == {"note": "kept as text", "zz": "last"}


def test_defaults_of_a_graph_without_attributes() -> None:
    c = load(ROOT / "dot_graphs" / "vec_elemadd.gv").contract
    assert (dict(c.constants), dict(c.ranges), dict(c.copies), dict(c.output_formats),
            c.shared, c.width, c.nonempty_dims) == ({}, {}, {}, {}, (), None, False)


def test_typed_values_after_compile() -> None:
    g = custard.compile("X(i,j,k)=2*B(i,j)+B(j,i)", {"X": "ddd:1,0,2"}, "ijk", dims={"k": 3})
    c = g.contract
    assert c.expression == "X(i,j,k)=2*B(i,j)+B(j,i)" and c.order == ("i", "j", "k")
    assert dict(c.constants) == {"const0": 2.0}
    assert dict(c.copies) == {"B_t": "B"}
    assert dict(c.output_formats) == {"X": Format(("d", "d", "d"), (1, 0, 2))}
    assert dict(c.ranges) == {"dim_k": 3}
    # written as Custard always wrote them, in the order set
    assert [line.strip() for line in dumps(g).splitlines()[2:7]] == [
        'expression="X(i,j,k)=2*B(i,j)+B(j,i)"', 'order="i,j,k"', 'constants="const0=2.0"',
        'copies="B_t=B"', 'output_formats="X=ddd:1,0,2"']
    assert 'ranges="dim_k=3"' in dumps(g)


def test_compiled_shared_and_nonempty_dims_are_typed() -> None:
    g = custard.compile("X(b,i)=A(b,i)*B(b,i)", {"A": "dr", "B": "dr"}, shared="A,B",
                        nonempty_dims=True)
    assert g.contract.shared == (("A", "B"),) and g.contract.nonempty_dims is True
    assert 'shared="A,B"' in dumps(g) and 'nonempty_dims="true"' in dumps(g)


@pytest.mark.parametrize("attr, text, fragment", [
    ("constants", "c=two", "is not a finite number"),
    ("constants", "c=inf", "is not a finite number"),
    ("constants", "c", "is not NAME=VALUE"),
    ("constants", "c=1,c=2", "names c twice"),
    ("ranges", "dim_k=-3", "is not a length"),
    ("dims", "i0=x", "is not a size"),
    ("copies", "B_t=B_t", "does not name another tensor"),
    ("copies", "Z=B", "the copy Z has no format in the graph comment"),
    ("output_formats", "X=zz", "X:"),
    ("output_formats", "X=ddd:0,1,2", "is not a format of the same order"),
    ("width", "0", "is not a whole number from 1"),
    ("shape_Y", "3x", "is not a shape"),
    ("shape_Y", "3x3", "gives 2 sizes but tensor Y has order 1"),
])
def test_malformed_attribute_refused_when_read(attr: str, text: str, fragment: str) -> None:
    bad = "\n".join(line if not line.strip().startswith(f"{attr}=") else f'    {attr}="{text}"'
                    for line in TEXT.splitlines())
    assert f'{attr}="{text}"' in bad
    with pytest.raises(GraphError) as err:
        loads(bad, "bad.gv")
    message = str(err.value)
    assert "\n" not in message and message.startswith("bad.gv: ")
    assert f"graph attribute {attr}" in message and fragment in message


def test_round_trip_text_identical() -> None:
    assert dumps(loads(TEXT)).splitlines()[1:15] == TEXT.splitlines()[1:15]
    assert dumps(loads(dumps(loads(TEXT)))) == dumps(loads(TEXT))


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_dot_graphs_round_trip(path: Path) -> None:
    text = dumps(load(path))
    again = loads(text)
    assert dumps(again) == text
    assert again.signature() == load(path).signature()


def test_changed_field_written_from_its_value_in_place() -> None:
    g = loads(TEXT)
    g.contract.constants = {"c": 2.5}
    g.contract.width = None  # removed
    text = dumps(g)
    assert 'constants="c=2.5"' in text and "width=" not in text
    lines = [line.split("=")[0].strip() for line in text.splitlines()[2:14]]
    assert lines[:5] == ["note", "expression", "order", "constants", "ranges"]


def test_signature_compares_meaning() -> None:
    two = loads(TEXT.replace('constants="c=2"', 'constants="c=2.0"'))
    assert two.signature() == loads(TEXT).signature()
    three = loads(TEXT.replace('constants="c=2"', 'constants="c=3"'))
    assert three.signature() != loads(TEXT).signature() and three != loads(TEXT)


def test_maps_are_read_only() -> None:
    g = loads(TEXT)
    with pytest.raises(TypeError):
        g.contract.constants["c"] = 1.0  # type: ignore[index]


def test_attrs_shows_text_and_setting_one_parses_it() -> None:
    g = loads(TEXT)
    assert g.attrs["constants"] == "c=2" and g.attrs["note"] == "kept as text"
    g.attrs["ranges"] = "dim_k=11"
    assert dict(g.contract.ranges) == {"dim_k": 11}
    with pytest.raises(GraphError, match="graph attribute ranges"):
        g.attrs["ranges"] = "dim_k=eleven"


PARSED_ONCE = [
    # a graph with a constant, a copy, a range and a dense output format
    (("X(i,j,k)=2*B(i,j)+B(j,i)", {"X": "ddd:1,0,2"}, "ijk"), {"k": 3},
     ["expression", "order", "constants", "copies", "output_formats", "ranges"]),
    # a program of two graphs: a constant in the first, an output format in the second
    (("X(i,j)=2*B(i,k)*C(k,j)+B(j,i)", {"X": "dd:1,0"}, "ikj"), None,
     ["expression", "order", "constants", "expression", "order", "output_formats"]),
]


@pytest.mark.parametrize("compiled, dims, typed", PARSED_ONCE, ids=["graph", "program"])
def test_consumers_do_not_parse_again(compiled: tuple, dims: dict | None, typed: list[str],
                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``sam-sim run --check --report`` parses each typed attribute exactly once: when the file
    is read (simulation, binding, assembly, the check and the report read typed values)."""
    from sam.cli import main

    graphs = graphs_of(custard.compile(*compiled, dims=dims))
    assert len(graphs) == (1 if dims else 2)
    path = tmp_path / "g.gv"
    path.write_text(dumps_all(graphs))
    calls: list[str] = []
    parse = contract_module.parse_attr

    def counted(key: str, text: str, formats: object) -> object:
        calls.append(key)
        return parse(key, text, formats)  # type: ignore[arg-type]

    monkeypatch.setattr(contract_module, "parse_attr", counted)
    specs = []
    for k, name in enumerate(("B", "C")):
        np.save(tmp_path / f"{name}.npy", np.arange(1 + k, 17 + k, dtype=float).reshape(4, 4))
        specs += ["-t", f"{name}={tmp_path / f'{name}.npy'}"]
    report = tmp_path / "report.json"
    code = main(["run", str(path), *specs[:2 if dims else 4], "--check", "--report",
                 str(report), "--engine", "reference", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0 and "PASS" in out
    assert sorted(calls) == sorted(typed)
    assert json.loads(report.read_text())  # the report was written
