"""Programs of index-notation statements: the input of ``custard dag`` (GOGETA, Sec. 2.2).

A program file holds one statement per line, run in order; a statement reads the inputs of the
program and the results of earlier statements by name::

    # one iteration of block CG (GOGETA Alg. 1)
    out: X R P Gamma
    S(i,n) = A(i,k)*P(k,n)          -f=A:ds -s=reorder(i,k,n)
    Delta(a,n) = P(k,a)*S(k,n)      -s=reorder(k,a,n)
    host: Lambda = solve(Delta, Gamma)
    X(i,n) += P(i,j)*Lambda(j,n)

* **tensor statements** are Custard index notation (:mod:`sam.notation.parse`); ``T(..) += e`` and
  ``T(..) -= e`` mean ``T(..) = T(..) + (e)`` / ``T(..) - (e)`` (the old value is an input);
* **options** after the statement, as ``custard compile`` spells them: ``-f=NAME:LEVELS[:ORDER]``
  (a tensor's format; it holds for that tensor in every statement, so it is given once) and one
  ``-s=reorder(...)`` (the statement's loop order; default: :func:`custard.api.default_order`);
  ``-u=OP`` (``exp``, ``relu``, ``abs``, ``neg``; repeatable, applied in order): the result's
  values pass through that unary ALU before they are written (:mod:`custard.splice`; on the
  entries the statement computes: ``E(i,j) = S(i,j) -u=exp`` is exp of S's stored entries);
  A tensor no ``-f`` names is dense (``d`` per mode): chains of skewed GEMMs are dense but for
  the sparse operand;
* **host steps** ``host: NAME = numpy-expression`` run on the host in numpy, for small dense ops
  (inverses of N x N matrices): operators ``+ - * / @``, ``.T``, numbers and the functions
  ``inv solve pinv diag sqrt abs eye``;
* ``out: NAME ...`` names the tensors the program keeps (results, loop-carried tensors); by
  default the tensors written and not read afterwards;
* ``#`` starts a comment; blank lines are skipped.

Every error is a :class:`~sam.errors.CompileError` naming the line.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from custard.dag.progress import track
from custard.parser import parse_format_option, parse_schedule
from custard.splice import check_unary
from sam.errors import CompileError
from sam.notation.expr import Assignment
from sam.notation.parse import parse_expression

#: functions a host step may call (numpy)
HOST_FUNCTIONS = ("inv", "solve", "pinv", "diag", "sqrt", "abs", "eye")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@dataclass
class Statement:
    """One line of a program: a tensor statement (compiled to SAM) or a host step (numpy)."""

    line: int
    text: str  #: the statement as written, without options
    target: str  #: the tensor it writes
    reads: tuple[str, ...]  #: the tensors it reads, in order of first appearance
    host: bool = False
    #: tensor statements: the Custard expression (updates expanded) and its assignment
    expression: str = ""
    assignment: Assignment | None = None
    #: the loop order given with -s (None: Custard's default order)
    order: list[str] | None = None
    #: host steps: the numpy expression
    host_expr: str = ""
    #: unary post-ops (-u), applied in order to the result's values before they are written
    unary: tuple[str, ...] = ()

    @property
    def indices(self) -> tuple[str, ...]:
        """The target's index variables (none for a host step)."""
        return tuple(self.assignment.lhs.indices) if self.assignment else ()

    def access(self, tensor: str) -> tuple[str, ...]:
        """The index variables this statement reads ``tensor`` with (its first access)."""
        if self.assignment is None:
            return ()
        for acc in self.assignment.rhs.accesses():
            if acc.name == tensor:
                return tuple(acc.indices)
        return ()

    @property
    def variables(self) -> list[str]:
        """Every index variable, the target's first."""
        out = list(self.indices)
        if self.assignment is not None:
            for acc in self.assignment.rhs.accesses():
                out += [v for v in acc.indices if v not in out]
        return out

    @property
    def contracted(self) -> set[str]:
        """Index variables summed over (on the right, not on the left)."""
        return set(self.variables) - set(self.indices)

    def where(self) -> str:
        return f"line {self.line}"


@dataclass
class DagProgram:
    """A parsed program: statements in order, program-wide formats, the kept tensors."""

    statements: list[Statement]
    formats: dict[str, str] = field(default_factory=dict)
    declared_out: list[str] | None = None
    source: str = "<program>"

    def inputs(self) -> list[str]:
        """Tensors read before any statement writes them (bound by the caller)."""
        written: set[str] = set()
        out: list[str] = []
        for st in self.statements:
            out += [t for t in st.reads if t not in written and t not in out]
            written.add(st.target)
        return out

    def outputs(self) -> list[str]:
        """The kept tensors: ``out:`` or those written and not read by a later statement."""
        if self.declared_out is not None:
            return list(self.declared_out)
        last_read: dict[str, int] = {}
        last_write: dict[str, int] = {}
        for k, st in enumerate(self.statements):
            for t in st.reads:
                last_read[t] = k
            last_write[st.target] = k
        return [st.target for k, st in enumerate(self.statements)
                if last_write[st.target] == k and last_read.get(st.target, -1) <= k]

    def format_of(self, tensor: str, order: int) -> str:
        """The tensor's format string (``-f``), else dense (``d`` per mode)."""
        return self.formats.get(tensor, "d" * order)


def parse_program(text: str, source: str = "<program>") -> DagProgram:
    """Parse a program (see module docstring)."""
    statements: list[Statement] = []
    formats: dict[str, tuple[str, int]] = {}
    declared: list[str] | None = None
    lines = text.splitlines()
    for number, raw in track(enumerate(lines, 1), "parsing", total=len(lines), unit="line"):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{source} line {number}"
        if line.startswith("out:"):
            names = line[4:].replace(",", " ").split()
            bad = [n for n in names if not _NAME.fullmatch(n)]
            if bad or not names:
                raise CompileError(f"{where}: 'out:' takes tensor names, e.g. out: X R")
            declared = (declared or []) + names
            continue
        if line.startswith("host:"):
            statements.append(_host_statement(number, line[5:].strip(), where))
            continue
        statements.append(_tensor_statement(number, line, where, formats))
    if not statements:
        raise CompileError(f"{source}: the program has no statements")
    prog = DagProgram(statements, {n: f for n, (f, _) in formats.items()}, declared, source)
    _check_program(prog)
    return prog


def load_program(path: str | Path) -> DagProgram:
    """Parse the program file at ``path`` (read as :func:`sam.command.files.read_text` does:
    one line for a missing, empty or undecodable file)."""
    from sam.command.files import read_text

    return parse_program(read_text(path, "program"), str(path))


def _split_options(line: str, where: str) -> tuple[str, list[str]]:
    """The statement text and its ``-f``/``-s`` options (the first word starting with ``-``
    followed by a letter begins the options)."""
    m = re.search(r"\s-[A-Za-z-]", " " + line)
    if m is None:
        return line, []
    cut = m.start()  # index in " " + line == index of the space before it in line
    stmt, rest = line[:cut].strip(), line[cut:]
    try:
        words = shlex.split(rest)
    except ValueError as err:
        raise CompileError(f"{where}: options {rest.strip()!r}: {err}") from None
    return stmt, words


def _tensor_statement(number: int, line: str, where: str,
                      formats: dict[str, tuple[str, int]]) -> Statement:
    text, words = _split_options(line, where)
    order: list[str] | None = None
    unary: list[str] = []
    short = {"-f": "-f=", "--format": "-f=", "-s": "-s=", "--schedule": "-s=", "-u": "-u=",
             "--unary": "-u="}
    k = 0
    while k < len(words):
        w = words[k]
        if w in short:
            if k + 1 >= len(words):
                raise CompileError(f"{where}: option {w} needs a value")
            w = short[w] + words[k + 1]
            k += 1
        k += 1
        if w.startswith(("-f=", "--format=")):
            spec = w.split("=", 1)[1]
            try:
                name, fmt = parse_format_option(spec)
            except CompileError as err:
                raise CompileError(f"{where}: {err}") from None
            levels = spec.split(":", 1)[1]
            if name in formats and formats[name][0] != levels:
                raise CompileError(
                    f"{where}: format {levels} of {name} differs from {formats[name][0]} given "
                    f"on line {formats[name][1]}; a tensor has one format in a program")
            formats[name] = (levels, number)
            del fmt
        elif w.startswith(("-s=", "--schedule=")):
            if order is not None:
                raise CompileError(f"{where}: give one -s=reorder(...) per statement")
            try:
                order = parse_schedule(w.split("=", 1)[1])
            except CompileError as err:
                raise CompileError(f"{where}: {err}") from None
        elif w.startswith(("-u=", "--unary=")):
            try:
                unary.append(check_unary(w.split("=", 1)[1]))
            except CompileError as err:
                raise CompileError(f"{where}: -u: {err}") from None
        else:
            raise CompileError(f"{where}: unknown option {w!r}; a statement takes "
                               "-f=NAME:LEVELS, -s=reorder(...) and -u=OP")
    update = None
    m = re.match(r"^(.*?)([+-])=(.*)$", text)
    if m and "=" not in m.group(1):
        update = m.group(2)
        lhs, rhs = m.group(1).strip(), m.group(3).strip()
        expression = f"{lhs} = {lhs} {update} ({rhs})"
    else:
        expression = text
    if "=" not in expression:
        raise CompileError(f"{where}: expected a statement 'T(i,j) = ...' (or +=, -=, or "
                           f"'host: T = ...'), got {text!r}")
    try:
        assign = parse_expression(expression)
    except CompileError as err:
        raise CompileError(f"{where}: {err}") from None
    reads: list[str] = []
    for acc in assign.rhs.accesses():
        if acc.name not in reads:
            reads.append(acc.name)
    if order is not None:
        variables = set(assign.lhs.indices)
        for acc in assign.rhs.accesses():
            variables |= set(acc.indices)
        unknown = [v for v in order if v not in variables]
        if unknown:
            raise CompileError(f"{where}: reorder names {unknown[0]}, which is not an index "
                               f"variable of the statement ({', '.join(sorted(variables))})")
    return Statement(number, text, assign.lhs.name, tuple(reads), False, expression, assign,
                     order, unary=tuple(unary))


def _host_statement(number: int, text: str, where: str) -> Statement:
    target, sep, expr = text.partition("=")
    target = target.strip()
    if not sep or not _NAME.fullmatch(target):
        raise CompileError(f"{where}: expected 'host: NAME = numpy-expression', e.g. "
                           "host: Lambda = solve(Delta, Gamma)")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as err:
        raise CompileError(f"{where}: host expression {expr.strip()!r}: {err.msg}") from None
    reads: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in HOST_FUNCTIONS:
                raise CompileError(f"{where}: a host step calls only {', '.join(HOST_FUNCTIONS)}")
            if node.keywords:
                raise CompileError(f"{where}: host functions take no keyword arguments")
        elif isinstance(node, ast.Attribute):
            if node.attr != "T":
                raise CompileError(f"{where}: the only attribute in a host step is .T")
        elif isinstance(node, ast.Name):
            if node.id not in HOST_FUNCTIONS and node.id not in reads:
                reads.append(node.id)
        elif isinstance(node, ast.BinOp):
            if not isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult)):
                raise CompileError(f"{where}: a host step uses only + - * / @")
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                raise CompileError(f"{where}: a host step uses only + - * / @")
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
                raise CompileError(f"{where}: a host step's constants are numbers")
        elif not isinstance(node, (ast.Expression, ast.Load, ast.operator, ast.unaryop)):
            raise CompileError(f"{where}: {type(node).__name__} is not allowed in a host step")
    return Statement(number, f"{target} = {expr.strip()}", target, tuple(reads), True,
                     host_expr=expr.strip())


def _check_program(prog: DagProgram) -> None:
    """Each tensor keeps one order (number of modes) everywhere it appears."""
    orders: dict[str, tuple[int, int]] = {}

    def see(name: str, order: int, line: int) -> None:
        if name in orders and orders[name][0] != order:
            raise CompileError(
                f"{prog.source} line {line}: {name} has {order} index variable(s) here but "
                f"{orders[name][0]} on line {orders[name][1]}")
        orders.setdefault(name, (order, line))

    for st in prog.statements:
        if st.assignment is None:
            continue
        see(st.target, len(st.indices), st.line)
        for acc in st.assignment.rhs.accesses():
            see(acc.name, len(acc.indices), st.line)
    for name, levels in prog.formats.items():
        fmt_order = len(levels.split(":")[0])
        if name in orders and orders[name][0] != fmt_order:
            raise CompileError(f"{prog.source}: format {levels} of {name} has {fmt_order} "
                               f"level(s) but {name} has {orders[name][0]} mode(s)")
    if prog.declared_out is not None:
        known = {st.target for st in prog.statements} | set(prog.inputs())
        for name in prog.declared_out:
            if name not in known:
                raise CompileError(f"{prog.source}: out: names {name}, which no statement "
                                   "writes or reads")


def unroll(prog: DagProgram, iterations: int) -> DagProgram:
    """The program run ``iterations`` times in a row (a loop's body unrolled: a statement of
    one iteration reads the tensors the previous iteration wrote last)."""
    if iterations < 1:
        raise CompileError(f"iterations must be at least 1, got {iterations}")
    return DagProgram(list(prog.statements) * iterations, dict(prog.formats),
                      prog.declared_out, prog.source)
