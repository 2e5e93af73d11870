"""Table 2's Coordinate Dropper row explained (custard/reproduce/dropper_reasons.py): the paper
artifact's syntactic rule, and why our compiled graphs hold droppers."""

from __future__ import annotations

import pytest

from custard.cli import graph_from_command_line
from custard.reproduce.dropper_reasons import (
    artifact_needs_dropper,
    cleans_compressed_output,
    dropper_reasons,
)
from custard.reproduce.table2 import primitive_flags


@pytest.mark.parametrize("line, needs", [
    ('"X(i,j)=B(i,k)*C(k,j)" -f=X:ss:0,1 -f=B:ss:0,1 -f=C:ss:0,1', True),  # k co-iterated
    ('"y(i)=A(i,j)*x(j)" -f=y:d:0 -f=A:ds:0,1 -f=x:d:0', False),  # x dense
    ('"x(i)=b(i)*c(i)" -f=x:s:0 -f=b:s:0 -f=c:s:0', False),  # i is the first variable
    ('"X(i,j)=B(i,j)+C(i,j)" -f=X:ss:0,1 -f=B:ss:0,1 -f=C:ss:0,1', False),  # no product
    ('"y(i)=A(i,j)*x(j)" -f=y:s:0 -f=A:sd:1,0 -f=x:s:0', True),  # A's j: its 1st level, s
    ('"y(i)=A(i,j" -f=y:s:0', None),  # does not parse
])
def test_artifact_rule(line, needs):
    assert artifact_needs_dropper(line) is needs


def _flags(line: str) -> tuple[set[str], set[str], bool]:
    graph = graph_from_command_line(line)
    return dropper_reasons(graph), set(primitive_flags(graph)), cleans_compressed_output(graph)


def test_coiteration_dropper_is_counted():
    reasons, flags, needed = _flags("X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0")
    assert "coiteration" in reasons and needed
    assert {"crddrop", "crddrop_any", "crddrop_coiteration"} <= flags


def test_dropper_above_a_dense_output_level_is_not_counted():
    """y dense: the dropper below A's compressed rows changes nothing in y."""
    reasons, flags, needed = _flags("y(i)=A(i,j)*x(j) -f=y:d -f=A:ds -f=x:d")
    assert reasons == {"single"} and not needed
    assert "crddrop_any" in flags and "crddrop" not in flags
    reasons, flags, needed = _flags("y(i)=A(i,j)*x(j) -f=y:s -f=A:ds -f=x:d")
    assert needed and "crddrop" in flags


def test_union_dropper():
    reasons, flags, needed = _flags("X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ds -f=C:ds")
    assert "union" in reasons and needed and "crddrop" in flags


@pytest.mark.parametrize("line, rows", [
    # SpGEMM, all sparse: every row but union and add; written compressed
    ('"X(i,j)=B(i,k)*C(k,j)" -f=X:ss:0,1 -f=B:ss:0,1 -f=C:ss:0,1',
     {"scan_c", "scan", "repeat", "inter", "inter2", "mul", "reduce", "crddrop", "write_c",
      "write"}),
    # dense SpMV: no compressed scanner, no co-iteration, no compressed writer
    ('"y(i)=A(i,j)*x(j)" -f=y:d:0 -f=A:dd:0,1 -f=x:d:0',
     {"scan", "repeat", "mul", "reduce", "write"}),
    # a subtraction is not a '+' for the artifact; x has no -f: not dense for row 1
    ('"a(i)=b(i)-c(i)" -f=a:s:0 -f=b:s:0', {"scan_c", "scan", "write_c", "write"}),
    ('"a(i)=b(i)+c(i)" -f=a:s:0 -f=b:s:0 -f=c:d:0',
     {"scan_c", "scan", "union", "add", "write_c", "write"}),
    ('"a=b(i" -f=a:s:0', None),
])
def test_artifact_rows(line, rows):
    """The artifact's syntactic rules, row by row (custard/reproduce/artifact_rules.py)."""
    from custard.reproduce.artifact_rules import artifact_rows

    assert artifact_rows(line) == rows
