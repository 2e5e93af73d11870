"""``--bv-width N``: the word width of bitvector levels written ``b`` without one (SAM paper
Sec. 4.3; Figure 13 uses b = 64, the default). ``-f=x:b --bv-width 64`` is ``-f=x:b64``;
``b4`` keeps its width."""

from __future__ import annotations

import numpy as np
import pytest

from custard.cli import graph_from_command_line
from formats import Tensor
from formats.bitvector import DEFAULT_WIDTH
from formats.errors import FormatError
from formats.format import Format
from sam.graph.dot import dumps
from sam.program import run_program


def test_parse_with_width() -> None:
    assert DEFAULT_WIDTH == 64 and Format.parse("b") == Format.parse("b64")
    assert Format.parse("b", bv_width=64) == Format.parse("b64")
    assert Format.parse("sb", bv_width=16) == Format.parse("sb16")
    assert Format.parse("b4s:1,0", bv_width=16) == Format.parse("b4s:1,0")
    assert Format.parse("bs:1,0", bv_width=3).level_types[0].width == 3
    assert Format.parse("ss", bv_width=8) == Format.parse("ss")
    with pytest.raises(FormatError, match="width 65 is outside 1..64"):
        Format.parse("b", bv_width=65)


def test_custard_bv_width_equals_the_letter() -> None:
    line = "x(i)=b(i)*c(i) -f=x:s -f=b:b -f=c:b"
    assert dumps(graph_from_command_line(line + " --bv-width 64")) == \
        dumps(graph_from_command_line(line.replace(":b ", ":b64 ") + "64")) == \
        dumps(graph_from_command_line(line))
    graph = graph_from_command_line(line + " --bv-width 4")
    assert graph.formats["b"] == Format.parse("b4") and graph.formats["c"] == Format.parse("b4")
    merge = next(b for b in graph.blocks.values() if b.dot_type == "bvintersect")
    assert merge.attrs["width"] == "4"
    rng = np.random.default_rng(5)
    b = np.where(rng.random(23) < 0.4, rng.integers(1, 9, 23), 0).astype(float)
    c = np.where(rng.random(23) < 0.4, rng.integers(1, 9, 23), 0).astype(float)
    for engine in ("reference", "fast"):
        res = run_program([graph], {"b": Tensor.from_dense(b), "c": Tensor.from_dense(c)},
                          engine=engine)
        np.testing.assert_array_equal(res.outputs["x"].to_dense(), b * c)


def test_sam_sim_tensor_bv_width(capsys) -> None:
    from sam.cli import main

    assert main(["tensor", "random:0.5:2:12", "-f", "b", "--bv-width", "4"]) == 0
    four = capsys.readouterr().out
    assert "format b4:0" in four and "words (binary, lowest coordinate rightmost) = [" \
        "0101, 0011, 1010]" in four  # 12 coordinates: three 4-bit words
    assert main(["tensor", "random:0.5:2:12", "-f", "b4"]) == 0
    assert capsys.readouterr().out == four
    assert main(["tensor", "random:0.5:2:12", "-f", "b", "--bv-width", "64"]) == 0
    sixty_four = capsys.readouterr().out
    assert main(["tensor", "random:0.5:2:12", "-f", "b"]) == 0
    assert capsys.readouterr().out == sixty_four != four


def test_help_mentions_bv_width(capsys) -> None:
    from custard.cli import build_parser

    text = build_parser().format_help() + "".join(
        a.format_help() for a in build_parser()._subparsers._group_actions[0].choices.values())
    assert "--bv-width" in text and "default 64" in text
