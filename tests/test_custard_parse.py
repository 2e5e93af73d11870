"""Custard's inputs: the expression parser, format and schedule options, the einsum form, the
compile options (formats, loop order, their errors and suggestions), fuzzing (only
``ToolkitError`` may escape, and its message names the offending part), and the ``custard``
command line run as a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import custard
from custard.api import default_order, graphs_of, notices_of
from custard.cli import graph_from_command_line, main
from custard.counts import row
from custard.parser import parse_format_option, parse_schedule
from formats.errors import ToolkitError
from formats.format import Format
from sam.errors import CompileError
from sam.graph.dot import load
from sam.notation.expr import Add, Mul, Neg, Sum, place_reductions
from sam.notation.parse import einsum_expression, parse_expression

ROOT = Path(__file__).resolve().parents[1]
FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def error_of(fn, *args, **kw) -> str:
    with pytest.raises(CompileError) as info:
        fn(*args, **kw)
    msg = str(info.value)
    assert "\n" not in msg, "error messages are one line"
    return msg


# ----------------------------------------------------------------------------- expressions
def test_parse_matmul():
    a = parse_expression("X(i,j) = B(i,k) * C(k,j)")
    assert a.lhs.name == "X" and a.lhs.indices == ("i", "j")
    assert isinstance(a.rhs, Mul)
    assert [(x.name, x.indices) for x in a.rhs.accesses()] == [("B", ("i", "k")),
                                                              ("C", ("k", "j"))]
    assert str(a) == "X(i,j) = B(i,k) * C(k,j)"


def test_precedence_and_unary_minus():
    a = parse_expression("x(i)=b(i)-C(i,j)*d(j)+-e(i)")
    assert isinstance(a.rhs, Add) and not a.rhs.sub
    assert isinstance(a.rhs.right, Neg)
    left = a.rhs.left
    assert isinstance(left, Add) and left.sub and isinstance(left.right, Mul)
    assert isinstance(parse_expression("X(i,j)=(B(i,j)+C(i,j))*D(i,j)").rhs.left, Add)


def test_scalars_and_whitespace():
    a = parse_expression("  x =\tB(i, j, k) * C(i,j,k) ")
    assert a.lhs.indices == () and a.lhs.name == "x"
    b = parse_expression("x(i)=a*B(j,i)*c(j)+b*d(i)")
    assert [x.name for x in b.rhs.accesses() if not x.indices] == ["a", "b"]
    assert parse_expression("x(i)=b()*c(i)").rhs.accesses()[0].indices == ()


def test_reduction_placement():
    """Residual sums j over C*d only; MTTKRP sums k,l over the whole product."""
    r = place_reductions(parse_expression("x(i)=b(i)-C(i,j)*d(j)"))
    assert isinstance(r.rhs, Add) and isinstance(r.rhs.right, Sum)
    assert r.rhs.right.vars_ == ("j",)
    m = place_reductions(parse_expression("X(i,j)=B(i,k,l)*C(j,k)*D(j,l)"))
    assert isinstance(m.rhs, Sum) and set(m.rhs.vars_) == {"k", "l"}


@pytest.mark.parametrize("text, column, part", [
    ("X(i,j)=B(i,k)*", 15, "found the end"),
    ("X(i,j)=B(i,k)**C(k,j)", 15, "found '*'"),
    ("X(i,j)B(i,k)", 7, "expected '='"),
    ("X(i,j)=B(i,k C(k,j)", 14, "found 'C'"),
    ("X(i,,j)=B(i,j)", 5, "found ','"),
    ("X(i,j)=B(i,j))", 14, "unexpected ')'"),
    ("X(i,j)=(B(i,j)+C(i,j)", 22, "close the parenthesis"),
    ("X(i,j)=B(i,j)+3 C(i,j)", 17, "unexpected 'C'"),
    ("X(i,j)=B(i,j)$C(i,j)", 14, "unexpected '$'"),
    ("=B(i)", 1, "expected a tensor name"),
    ("X(i,i)=B(i,i)", 5, "index i appears twice in X"),
    ("x(i)=b(i)+x(i,j)", 11, "x is used with 2 indices here but 1 at column 1"),
    ("x(i)=B(i,j)*B(j)", 13, "B is used with 1 indices here but 2 at column 6"),
])
def test_syntax_errors_name_the_column(text, column, part):
    msg = error_of(parse_expression, text)
    assert f"column {column}:" in msg
    assert part in msg


def test_semantic_errors_name_the_part():
    assert "empty expression" in error_of(parse_expression, "   ")


# ----------------------------------------------------------------------------- options
@pytest.mark.parametrize("text, name, fmt", [
    ("B:ss:1,0", "B", Format(("s", "s"), (1, 0))),
    ("-f=B:ss:1,0", "B", Format(("s", "s"), (1, 0))),
    ("C:ds", "C", Format(("d", "s"), (0, 1))),
    ("D:dd:1,0", "D", Format(("d", "d"), (1, 0))),
    ("T:sss:2,0,1", "T", Format(("s", "s", "s"), (2, 0, 1))),
    ("x:s", "x", Format(("s",), (0,))),
    ("B:ss10", "B", Format(("s", "s"), (1, 0))),
    (" X_2:ss ", "X_2", Format(("s", "s"), (0, 1))),
])
def test_format_options(text, name, fmt):
    assert parse_format_option(text) == (name, fmt)


@pytest.mark.parametrize("text, part", [
    ("B", "expected NAME:LEVELS"),
    (":ss", "expected NAME:LEVELS"),
    ("2B:ss", "expected NAME:LEVELS"),
    ("B:xs", "unknown level format 'x'"),
    ("B:ss:0,0", "not a permutation"),
    ("B:ss:1,0,2", "2 level(s) but a mode order of 3"),
    ("B:ss:a,b", "cannot parse format"),
    ("B:ss:1,0:3", "mode order"),
])
def test_bad_format_options_are_quoted(text, part):
    msg = error_of(parse_format_option, text)
    assert repr(text) in msg and part in msg


@pytest.mark.parametrize("text, order", [
    ("reorder(k,i,j)", ["k", "i", "j"]),
    ("-s=reorder(k,i,j)", ["k", "i", "j"]),
    (" reorder( i , j ) ", ["i", "j"]),
    ("reorder(i)", ["i"]),
])
def test_schedules(text, order):
    assert parse_schedule(text) == order


@pytest.mark.parametrize("text", ["split(i)", "reorder(i,,j)", "reorder(i", "reorder i,j", "",
                                  "reorder(i,j) reorder(j,i)", "reorder(1,2)"])
def test_bad_schedules_are_quoted(text):
    msg = error_of(parse_schedule, text)
    assert repr(text) in msg and "reorder(" in msg


# ----------------------------------------------------------------------------- compiling
MATMUL = "X(i,j)=B(i,k)*C(k,j)"


@pytest.mark.parametrize("order", ["ikj", ["i", "k", "j"], "reorder(i,k,j)", "-s=reorder(i,k,j)",
                                   "i,k,j", ("i", "k", "j")])
def test_order_spellings(order):
    assert custard.compile(MATMUL, order=order).attrs["order"] == "i,k,j"


def test_default_order():
    """First appearance, adjusted so each tensor is read in its mode order."""
    def order(expr, **fmts):
        return custard.compile(expr, fmts).attrs["order"]

    assert order(MATMUL) == "i,k,j"
    assert order(MATMUL, B="ss:1,0") == "k,i,j"
    assert order("x(j)=B(i,j)") == "i,j"
    assert order("x(i)=B(i,j)*c(j)") == "i,j"
    assert order("X(i,j,k)=B(i,j,l)*C(k,l)") == "i,j,k,l"
    assert default_order(parse_expression("x(j)=B(i,j)"), {"B": Format.parse("ss:1,0")}) == \
        ["j", "i"]


def test_default_formats_are_compressed_in_mode_order():
    g = custard.compile("X(i,j,k)=B(i,j,l)*C(k,l)*d(l)")
    assert {n: str(f) for n, f in g.formats.items()} == {"X": "sss012", "B": "sss012",
                                                          "C": "ss01", "d": "s0"}


def test_formats_as_strings_or_objects():
    a = custard.compile(MATMUL, {"B": "ss:1,0"}, "kij")
    b = custard.compile(MATMUL, {"B": Format.parse("ss10")}, "kij")
    assert a.signature() == b.signature()


@pytest.mark.parametrize("fmts, parts", [
    ({"B": "sss"}, ["B", "sss:0,1,2", "3 level(s)", "order 2"]),
    ({"X": "s"}, ["X", "1 level(s)", "order 2"]),
    ({"C": "none"}, ["C", "0 level(s)", "order 2"]),
    ({"Q": "ss"}, ["format given for Q", "tensors: X, B, C"]),
    ({"B": "sx"}, ["format of B", "unknown level format 'x'"]),
])
def test_wrong_formats(fmts, parts):
    msg = error_of(custard.compile, MATMUL, fmts, "ikj")
    for part in parts:
        assert part in msg


@pytest.mark.parametrize("order, parts", [
    ("reorder(i,q,j)", ["'q'", "its loops, outermost first: i,k,j"]),
    (["i", "k", "z"], ["'z'"]),
    ("reorder(i,k,k,j)", ["lists k twice"]),
    ("split(i,i0,i1)", ["split(i,i0,i1): split takes 4 argument(s)"]),
])
def test_bad_schedules_in_compile(order, parts):
    msg = error_of(custard.compile, MATMUL, {}, order)
    for part in parts:
        assert part in msg


@pytest.mark.parametrize("expr, fmts, order, restored", [
    (MATMUL, {}, "ijk", "C=ss10"),
    (MATMUL, {}, "kij", "B=ss10"),
    (MATMUL, {}, "jik", "X=ss10"),
    (MATMUL, {"B": "ss:1,0"}, "ikj", "B=ss01"),
    ("x(i)=B(i,j)*c(j)", {}, "ji", "B=ss10"),
    ("X(i,j,k)=B(i,j,l)*C(k,l)", {}, "lijk", "B=sss201"),
    ("x(i)=b(i)-C(i,j)*d(j)", {}, "ji", "C=ss10"),
])
def test_discordant_formats_are_stored_concordantly_with_a_notice(expr, fmts, order, restored):
    """A tensor stored against the loop order is stored in loop order by the graph (the
    simulator re-stores what is bound to it; a result is converted back), with a notice."""
    result = custard.compile(expr, fmts, order)
    g = graphs_of(result)[-1] if name_in_last(result, restored) else graphs_of(result)[0]
    name, fmt = restored.split("=")
    assert str(g.formats[name]) == fmt
    assert any(n.startswith(("operand", "result")) and f"{name}(" in n
               for n in notices_of(result))
    if name == parse_expression(expr).lhs.name:
        assert g.attrs["output_formats"] == f"{name}={(fmts.get(name) or 'ss:0,1')}"


def name_in_last(result, restored: str) -> bool:
    return restored.split("=")[0] in graphs_of(result)[-1].formats


@pytest.mark.parametrize("expr, fmts", [
    ("X(i,j)=B(i,j)+C(j,i)", {}),
    ("X(i,j,k)=B(i,j,l)*C(k,l)", {"B": "sss:0,2,1"}),
])
def test_no_order_fits_every_tensor_compiles(expr, fmts):
    g = custard.compile(expr, fmts)
    assert any("the loop order" in n for n in g.notices), g.notices


# ----------------------------------------------------------------------------- einsum
def test_einsum():
    a = custard.compile_einsum("ik,kj->ij", ["B", "C"])
    b = custard.compile("X(i,j)=B(i,k)*C(k,j)")
    assert a.signature() == b.signature()
    assert einsum_expression("ik,kj->ij", ["B", "C"]) == "X(i,j)=B(i,k)*C(k,j)"
    assert einsum_expression("ijk,ijk->", ["B", "C"], "x") == "x=B(i,j,k)*C(i,j,k)"
    c = custard.compile_einsum("ij,j->i", ["B", "c"], "x", {"B": "ss:1,0"}, "ji")
    assert c.attrs["order"] == "j,i" and str(c.formats["B"]) == "ss10"
    assert row(c) == row(custard.compile("x(i)=B(i,j)*c(j)", {"B": "ss:1,0"}, "ji"))


@pytest.mark.parametrize("spec, operands, part", [
    ("ik,kj", ["B", "C"], "explicit output"),
    ("ik,kj->ij", ["B"], "2 operand(s) but 1 name(s)"),
    ("i1,kj->ij", ["B", "C"], "'i1' must be index letters only"),
    ("ik,kj->iz", ["B", "C"], "output index z is in no operand"),
])
def test_einsum_errors(spec, operands, part):
    assert part in error_of(custard.compile_einsum, spec, operands)


# ----------------------------------------------------------------------------- fuzzing
VALID = [MATMUL, "x(i)=b(i)-C(i,j)*d(j)", "x=B(i,j,k)*C(i,j,k)", "x(i)=a*B(j,i)*c(j)+b*d(i)",
         "X(i,j)=B(i,k,l)*C(j,k)*D(j,l)", "X(i,j)=-(B(i,j)+C(i,j))*D(i,j)"]
ALPHABET = "XBCDxbcd ijkl(),=+-*_0123.\t#é"
SYNTAX = re.compile(r"column (\d+): (?:.*?found (?:the end|'(.*?)')|unexpected '(.*?)')")


@st.composite
def mutated(draw, seeds=tuple(VALID), alphabet=ALPHABET) -> str:
    text = list(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from("idr"))
        if op == "i":
            text.insert(pos, draw(st.sampled_from(alphabet)))
        elif text and op == "d":
            del text[min(pos, len(text) - 1)]
        elif text:
            text[min(pos, len(text) - 1)] = draw(st.sampled_from(alphabet))
    return "".join(text)


EXPRESSIONS = st.one_of(st.text(ALPHABET, max_size=30), st.text(max_size=20), mutated())
ORDERS = st.one_of(st.none(), st.sampled_from(["ijk", "kij", "reorder(i,j)", "ij", "ijkl",
                                                "lkji", "i,j", "reorder(", "q"]),
                   st.lists(st.sampled_from("ijklq"), max_size=5))
FORMATS = st.dictionaries(st.sampled_from(["X", "B", "C", "x", "b", "c", "Q"]),
                          st.sampled_from(["s", "ss", "ss:1,0", "ds", "sss:2,0,1", "d", "none",
                                           "sq", "ss:0,0", ""]), max_size=3)


def check_message(msg: str, text: str, extra: tuple[str, ...] = ()) -> None:
    """One line, naming a column (a syntax error, checked against the text) or a part."""
    assert "\n" not in msg
    m = SYNTAX.match(msg)
    if m:
        col = int(m.group(1))
        assert 1 <= col <= len(text) + 1, msg
        tok = m.group(2) if m.group(2) is not None else m.group(3)
        if tok is None:
            assert col == len(text) + 1, msg
        elif len(tok) == 1 or tok.isidentifier() or tok.isdigit():
            assert text[col - 1:col - 1 + len(tok)] == tok, msg
        return
    if msg.startswith("column "):
        return
    if "empty expression" in msg:
        assert not text.strip()
        return
    names = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text) + [x for x in extra if x]
    assert any(n in msg for n in names), f"{msg!r} names nothing of {text!r}"


@FUZZ
@given(EXPRESSIONS)
@example("x(i)=" + "+".join(f"b{k}(i)" for k in range(60)))
@example("X(i,j)=B(i,k)*C(k,j)#")
def test_fuzz_parse_expression(text):
    try:
        parse_expression(text)
    except CompileError as err:
        check_message(str(err), text)


@FUZZ
@given(EXPRESSIONS, FORMATS, ORDERS)
def test_fuzz_compile(text, fmts, order):
    try:
        custard.compile(text, fmts, order)
    except ToolkitError as err:
        extra = tuple(str(v) for v in fmts.values()) + tuple(fmts) + (
            tuple(order) if isinstance(order, list) else (order or "",))
        check_message(str(err), text, extra)


@FUZZ
@given(st.one_of(st.text("Bxsdq:,012 -f=", max_size=14), st.text(max_size=10),
                 mutated(("B:ss:1,0", "-f=B:ss", "x:s", "T:sss:2,0,1"), "Bsdq:,0123-f= ")))
def test_fuzz_format_option(text):
    try:
        name, fmt = parse_format_option(text)
    except CompileError as err:
        assert repr(text) in str(err) and "\n" not in str(err)
    else:
        assert name.isidentifier() and name in text
        assert isinstance(fmt, Format)


@FUZZ
@given(st.one_of(st.text("reordijk(), -s=", max_size=20), st.text(max_size=10),
                 mutated(("reorder(i,j,k)", "-s=reorder(k,i,j)"), "reordijk(), -s=q")))
def test_fuzz_schedule(text):
    try:
        order = parse_schedule(text)
    except CompileError as err:
        assert repr(text) in str(err) and "\n" not in str(err)
    else:
        assert all(v.isidentifier() for v in order)


@FUZZ
@given(st.text("ijk,->. X", max_size=12),
       st.lists(st.sampled_from(["B", "C", "D", "1"]), max_size=3))
def test_fuzz_einsum(spec, operands):
    try:
        custard.compile_einsum(spec, operands)
    except ToolkitError as err:
        assert "\n" not in str(err)


@pytest.mark.parametrize("text", [
    pytest.param("x(i)=" + "(" * 500 + "b(i)" + ")" * 500, id="500-parentheses"),
    pytest.param("x(i)=" + "-" * 1000 + "b(i)", id="1000-unary-minus"),
    pytest.param("x(i)=" + "+".join(f"b{k}(i)" for k in range(1000)), id="1000-term-sum"),
])
def test_deep_expressions_raise_compile_errors_or_compile(text):
    try:
        custard.compile(text)
    except CompileError as err:
        assert "nested too deeply" in str(err)


# ----------------------------------------------------------------------------- command line
def test_graph_from_command_line_is_the_suite_path():
    g = graph_from_command_line("X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss "
                                "-s=reorder(k,i,j)")
    assert g.attrs["order"] == "k,i,j" and str(g.formats["B"]) == "ss10"
    assert "unrecognized arguments: -q" in error_of(graph_from_command_line, "x(i)=b(i) -q")
    assert "given twice" in error_of(graph_from_command_line, "x(i)=b(i) -f=b:s -f=b:d")
    assert "No closing quotation" in error_of(graph_from_command_line, 'x(i)=b(i) "-s=')


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["compile", "counts", "table1", "-f", "-s", "-o",
                                           "--draw", "--counts", "-f=B:ss:1,0", "--format",
                                           "-s=reorder(k,i,j)", "reorder(i,j)", MATMUL,
                                           "x(i)=b(i", "B:sq", "--by-type"]),
                          st.text("Xxb(i,j)=*+-:s", max_size=8)), max_size=6))
def test_fuzz_main_in_process(argv):
    """Any argument list: exit 0, 1 (one error line) or 2 (usage), never an exception."""
    argv = [a for a in argv if a not in ("-o", "--draw")]  # no files from the fuzzer
    try:
        status = main(argv)
    except SystemExit as exc:  # --help
        status = exc.code
    assert status in (0, 1, 2)


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "custard.cli", *args], capture_output=True,
                          text=True, timeout=120, env=env, cwd=cwd)


def test_cli_compile_to_file_and_reload(tmp_path):
    out = tmp_path / "matmul.dot"
    p = cli("compile", MATMUL, "-f=X:ss", "-f=B:ss:1,0", "-f=C:ss", "-s=reorder(k,i,j)",
            "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stdout == "" and p.stderr == ""
    g = load(out)
    ours = custard.compile(MATMUL, {"B": "ss:1,0"}, "kij")
    assert g.count() == ours.count()
    assert {n: str(f) for n, f in g.formats.items()} == {"X": "ss01", "B": "ss10", "C": "ss01"}
    assert g.attrs["order"] == "k,i,j"


def test_cli_long_options_stdout_and_counts(tmp_path):
    p = cli("compile", "x(i)=B(i,j)*c(j)", "--format", "B:ss", "--format=c:s",
            "--schedule", "reorder(i,j)", "--counts")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("digraph SAM {")
    (tmp_path / "g.dot").write_text(p.stdout)
    assert load(tmp_path / "g.dot").count() == custard.compile("x(i)=B(i,j)*c(j)").count()
    header, line = p.stderr.strip().splitlines()
    assert "Lvl Scan" in header and line.split()[1:] == ["3", "1", "1", "1", "1", "1", "2",
                                                         "2"]


def test_cli_draw_svg(tmp_path):
    svg = tmp_path / "g.svg"
    p = cli("compile", MATMUL, "-s=reorder(i,k,j)", "-o", str(tmp_path / "g.dot"),
            "--draw", str(svg))
    assert p.returncode == 0, p.stderr
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert "fiberlookup" in svg.read_text().lower() or "FiberLookup" in svg.read_text()


def test_cli_counts_and_table1():
    p = cli("counts", "X(i,j)=B(i,j)*C(i,k)*D(j,k)", "-s=reorder(i,j,k)")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[1].split()[1:] == ["6", "3", "3", "2", "1", "2", "3", "3"]
    p = cli("table1")
    assert p.returncode == 0, p.stderr
    assert "all rows equal the paper's Table 1" in p.stdout


def test_cli_help_documents_syntax_defaults_and_examples():
    p = cli("compile", "--help")
    assert p.returncode == 0
    for part in ["-f=B:ss:1,0", "reorder(k,i,j)", "default: every level compressed",
                 "order of first appearance", "mode order", "examples:", "--draw", "-o"]:
        assert part in p.stdout, part


@pytest.mark.parametrize("args, part", [
    (["compile", "X(i,j)=B(i,k)*"], "column 15"),
    (["compile", MATMUL, "-f=B:ss", "-f=B:ds"], "format of B given twice"),
    (["compile", MATMUL, "-f=B:sss"], "B has order 2"),
    (["compile", MATMUL, "-f=B:qx"], "unknown level format 'x'"),
    (["compile", MATMUL, "-s=split(i)"], "split(i): split takes 4 argument(s)"),
    (["compile", MATMUL, "-s=reorder(i,z,j)"], "'z'"),
    (["compile", MATMUL, "-o", "/nonexistent-dir/x.dot"], "/nonexistent-dir/x.dot"),
    (["compile", MATMUL, "--draw", "x.gif"], "x.gif"),
    (["compile", "x(i)=" + "(" * 5000 + "b(i)" + ")" * 5000], "nested too deeply"),
    (["counts", "x(i)=b(j)", "-d=j:2,3"], "an index variable takes one size"),
])
def test_cli_errors_are_one_line(args, part, capsys):
    assert main(args) == 1
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("custard: error: "), err
    assert part in lines[0]


@pytest.mark.parametrize("args, part", [
    (["compile", "X(i,j)=B(i,k)*"], "column 15"),
    (["compile", MATMUL, "-o", "/nonexistent-dir/x.dot"], "/nonexistent-dir/x.dot"),
    (["compile", "x(i)=" + "(" * 5000 + "b(i)" + ")" * 5000], "nested too deeply"),
])
def test_cli_errors_in_a_subprocess(args, part):
    p = cli(*args)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("custard: error: "), p.stderr
    assert part in lines[0]


@pytest.mark.parametrize("args", [["compile"], ["compile", MATMUL, "--bogus"],
                                  ["nosuchcommand"], [], ["compile", MATMUL, "-f"]])
def test_cli_usage_errors_exit_2(args, capsys):
    assert main(args) == 2
    err = capsys.readouterr()
    assert "Traceback" not in err.err and "usage: custard" in err.err + err.out


def test_cli_usage_error_in_a_subprocess():
    p = cli("compile", MATMUL, "--bogus")
    assert p.returncode == 2
    assert "Traceback" not in p.stderr and "unrecognized arguments: --bogus" in p.stderr


def test_draw_without_sam_graph_draw_uses_graphviz(tmp_path, monkeypatch):
    """--draw falls back on graphviz `dot` over the DOT text when sam.graph.draw is absent."""
    import custard.cli as cli_module

    real = cli_module.importlib.util.find_spec
    monkeypatch.setattr(cli_module.importlib.util, "find_spec",
                        lambda name, *a: None if name == "sam.graph.draw" else real(name, *a))
    svg = tmp_path / "g.svg"
    cli_module.draw(custard.compile(MATMUL), str(svg))
    assert ET.parse(svg).getroot().tag.endswith("svg")
    with pytest.raises(CompileError, match="could not draw"):
        cli_module.draw(custard.compile(MATMUL), str(tmp_path / "missing" / "g.svg"))
