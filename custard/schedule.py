"""TACO's scheduling language (``-s=...``), read and given a SAM meaning.

TACO's command line takes ``-s=CMD(ARGS),CMD(ARGS)`` (repeatable); each command rewrites the
loop nest of concrete index notation. Custard's schedule is the SAM graph's dataflow order (SAM
paper Sec. 5: the order in which the index variables' levels are iterated), so here a schedule is
interpreted on a list of *loops*, each standing for one or more of the expression's index
variables, and yields that order plus what the graph should record:

==============  =========================================================================
``reorder``     ``reorder(k,i,j)``: the listed loops take the listed order among the places
                they hold; loops not listed stay put (TACO's ``reorder`` of directly nested
                loops; a list of every variable is a whole loop order). Commands compose.
``fuse``        ``fuse(i,j,f)``: the loops i and j (i directly outside j) become one loop f
                over the (i,j) pairs in order. That is the order in which the nested scans of
                i and j (Def. 3.1) already produce them, so f is compiled as i then j.
``pos``         ``pos(i,ip,B)``: loop i runs over the positions of B's (compressed) level
                storing i. SAM's level scanner of B already walks those positions and an
                intersection (Def. 3.2) with B only keeps B's coordinates, so the graph is the
                coordinate one; refused where B is not compressed there (as TACO) or where i
                merges B by a union (position iteration would skip the other operands).
``split``,      ``split(i,i0,i1,32)`` / ``divide(i,i0,i1,4)``: iteration splitting (Sec. 4.1).
``divide``      Splitting the iteration (tiling included) never changes the result, so the
                graph iterates i whole, at the place of i's outermost part in the final
                loop nest; the commands and that loop nest are recorded in the graph
                attributes ``split`` and ``split_loops`` with a notice; ``--split-mode``
                emits the split levels and ``custard tile`` runs tile by tile. Fusing or
                ``pos`` of a part works on the whole.
``parallelize`` ``parallelize(i,CPUThread,NoRaces)``: recorded in the graph attribute
                ``parallelize="i:CPUThread:NoRaces"`` with a notice. ``parallelize(i,4)``
                (``parallelize(i,4,range)``): SAM lanes (Sec. 4.4): the sub-graph below i
                replicated over 4 lanes (:mod:`custard.lanes`, docs/lanes.md).
``precompute``  ``precompute(expr,i,iw[,name])``: expr is computed into a temporary (TACO's
                workspace) by a graph of its own that runs first (a program of graphs,
                :mod:`sam.program`); :mod:`custard.api` does that.
``skip``        ``skip(B,c)`` / ``skip()`` (``--skip``): coordinate skipping (Sec. 4.2): the
                intersecters of B and c (or all) send their compressed scanners skip streams
                on feedback edges (:mod:`custard.skipping`).
``bound``,      no dataflow meaning (loop bounds, unrolling, output assembly strategy,
``unroll``,     merge strategy of generated C code): accepted and ignored with a notice;
``assemble``,   ``bound(i,ib,...)`` renames loop i to ib as in TACO.
``mergeby``
==============  =========================================================================

Errors are one-line :class:`CompileError` s naming the command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sam.errors import CompileError

#: TACO's parallel units and output race strategies (``parallelize`` arguments).
PARALLEL_UNITS = ("NotParallel", "DefaultUnit", "GPUBlock", "GPUWarp", "GPUThread", "CPUThread",
                  "CPUVector", "CPUThreadGroupReduction", "GPUBlockReduction",
                  "GPUWarpReduction")
RACE_STRATEGIES = ("IgnoreRaces", "NoRaces", "Atomics", "Temporary", "ParallelReduction")
BOUND_TYPES = ("MinExact", "MinConstraint", "MaxExact", "MaxConstraint")
COMMANDS = ("reorder", "split", "divide", "fuse", "pos", "parallelize", "precompute", "bound",
            "unroll", "assemble", "mergeby", "skip")
#: Graph attribute recording ``parallelize`` commands.
PARALLELIZE_ATTR = "parallelize"
#: Graph attributes recording ``split``/``divide`` commands and the loop nest they make.
SPLIT_ATTR = "split"
SPLIT_LOOPS_ATTR = "split_loops"

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@dataclass
class Directive:
    """One scheduling command: ``split(i,i0,i1,32)`` -> name ``split``, args ``[i,i0,i1,32]``."""

    name: str
    args: list[str]

    def __str__(self) -> str:
        return f"{self.name}({','.join(self.args)})"


def parse_directives(text: str) -> list[Directive]:
    """``reorder(i,j),precompute(B(i,j)*c(j),j,jw)`` -> directives, as TACO's command line
    splits them: commas at depth 0 separate commands, at depth 1 arguments; inner parentheses
    and ``{i,j}`` lists are kept; blanks are dropped. A bare name (no parentheses) comes back
    as a directive with an empty name."""
    spec = "".join(text.split())
    out: list[Directive] = []
    depth = curly = 0
    name: str | None = None
    args: list[str] = []
    cur = ""
    for pos, ch in enumerate(spec):
        if ch == "(":
            if depth == 0:
                name, cur = cur, ""
            else:
                cur += ch
            depth += 1
        elif ch == ")":
            if depth == 0:
                raise CompileError(f"schedule {text!r}: ')' at column {pos + 1} closes nothing")
            depth -= 1
            if depth == 0:
                args.append(cur)
                cur = ""
            else:
                cur += ch
        elif ch == "{":
            curly += 1
            cur += ch
        elif ch == "}":
            if curly == 0:
                raise CompileError(f"schedule {text!r}: '}}' at column {pos + 1} closes nothing")
            curly -= 1
            cur += ch
        elif ch == "," and depth == 0 and curly == 0:
            out.append(_directive(text, name, args, cur))
            name, args, cur = None, [], ""
        elif ch == "," and depth == 1 and curly == 0:
            args.append(cur)
            cur = ""
        else:
            cur += ch
    if depth or curly:
        raise CompileError(f"schedule {text!r}: unbalanced {'parentheses' if depth else 'braces'}")
    if name is not None or cur:
        out.append(_directive(text, name, args, cur))
    return out


def _directive(text: str, name: str | None, args: list[str], rest: str) -> Directive:
    if name is None:  # a bare word: one variable of a shorthand loop order
        if not _NAME.fullmatch(rest):
            raise CompileError(f"schedule {text!r}: {rest!r} is neither a scheduling command "
                               "such as reorder(i,j) nor an index variable")
        return Directive("", [rest])
    if rest:
        raise CompileError(f"schedule {text!r}: unexpected {rest!r} after {name}(...)")
    if not _NAME.fullmatch(name):
        raise CompileError(f"schedule {text!r}: {name!r} is not a scheduling command name")
    if args == [""]:
        args = []
    return Directive(name, args)


def schedule_option(text: str, variables: list[str]) -> list[Directive]:
    """One ``-s`` option: TACO commands (:func:`parse_directives`), or a shorthand loop order
    ``kij`` (every variable one letter), ``k,i,j`` or ``k i j``, read as ``reorder(k,i,j)``."""
    spec = text.strip()
    if spec.startswith("-s="):
        spec = spec[3:]
    if "(" in spec or ")" in spec:
        directives = parse_directives(spec)
        bare = next((d for d in directives if not d.name), None)
        if bare is not None:
            raise CompileError(f"schedule {text!r}: {bare.args[0]!r} is not a scheduling "
                               "command; write e.g. reorder(i,j)")
        return directives
    if "," in spec:
        order = [v.strip() for v in spec.split(",")]
    elif " " not in spec and spec not in variables and all(len(v) == 1 for v in variables):
        order = list(spec)
    else:
        order = spec.split()
    bad = next((v for v in order if not _NAME.fullmatch(v)), None)
    if bad is not None:
        raise CompileError(f"schedule {text!r}: {bad!r} is not an index variable")
    return [Directive("reorder", order)] if order else []


@dataclass
class Loop:
    """A loop of the schedule: its name (``i``, ``i0``, ``f``, ``fpos``), the index variables of
    the expression it iterates, outermost first (a fused loop has several), and, for a part made
    by splits, ``path`` = ((split number, 0 outer | 1 inner), ...)."""

    name: str
    variables: list[str]
    path: tuple[tuple[int, int], ...] = ()


@dataclass
class Precompute:
    """A ``precompute(expr, i, iw[, name])`` command, carried out by :mod:`custard.api`."""

    expr: str
    name: str
    directive: Directive


@dataclass
class Schedule:
    """The outcome of a list of commands: the loop order over the expression's variables and
    what the graph records or the user is told."""

    order: list[str]
    notices: list[str] = field(default_factory=list)
    #: ``parallelize`` entries ``VARS:UNIT:RACES`` (VARS = the graph's index variables)
    parallel: list[str] = field(default_factory=list)
    precomputes: list[Precompute] = field(default_factory=list)
    #: ``parallelize(i, n[, mode])`` lanes: (variable, lanes, mode), see custard.lanes
    lanes: list[tuple[str, int, str]] = field(default_factory=list)
    #: ``pos`` commands to check once the merges are known: (directive, tensor, variable)
    positions: list[tuple[Directive, str, str]] = field(default_factory=list)
    #: ``skip`` commands: the tensors named (empty: every intersecter), see custard.skipping
    skips: list[tuple[str, ...]] = field(default_factory=list)
    #: ``split``/``divide`` commands, each with the index variables of the loop it split
    splits: list[tuple[str, list[str]]] = field(default_factory=list)
    #: the final loop nest when there are splits: (loop name, its index variables)
    loop_nest: list[tuple[str, list[str]]] = field(default_factory=list)


class _Interpreter:
    def __init__(self, start: list[str], tensors: dict[str, tuple[str, ...]],
                 result: str, level_is_full, before: dict[str, set[str]] | None = None) -> None:
        self.before = before or {}
        self.loops = [Loop(v, [v]) for v in start]
        self.variables = list(start)
        self.tensors = tensors
        self.result = result
        self.level_is_full = level_is_full
        self.aliases: dict[str, str] = {}
        #: every index variable name so far (TACO's provenance graph keeps replaced ones)
        self.known: set[str] = set(start)
        self.n_splits = 0
        self.splits: dict[int, Directive] = {}
        self.split_variables: dict[int, list[str]] = {}
        self.out = Schedule([])

    # ---------------------------------------------------------------- helpers
    def find(self, d: Directive, name: str) -> int:
        name = self.aliases.get(name, name)
        for k, loop in enumerate(self.loops):
            if loop.name == name:
                return k
        names = ",".join(loop.name for loop in self.loops)
        raise CompileError(f"{d}: {name!r} is not a loop of the schedule (its loops, outermost "
                           f"first: {names})")

    def find_loop_or_none(self, d: Directive, name: str) -> int | None:
        """Like :meth:`find`, but a variable that once was a loop (before a split, fuse, pos or
        bound replaced it) gives None: TACO then leaves the statement as it is."""
        if name in self.known and not any(
                loop.name == self.aliases.get(name, name) for loop in self.loops):
            self.out.notices.append(f"{d}: ignored: {name} is no longer a loop of the "
                                    "schedule (a split, fuse, pos or bound replaced it), so "
                                    "TACO leaves the statement as it is")
            return None
        return self.find(d, name)

    def new_name(self, d: Directive, name: str) -> str:
        if not _NAME.fullmatch(name):
            raise CompileError(f"{d}: {name!r} is not a name for an index variable")
        if any(loop.name == name for loop in self.loops) or name in self.known:
            raise CompileError(f"{d}: {name!r} already names an index variable")
        self.known.add(name)
        return name

    def arity(self, d: Directive, *counts: int, usage: str) -> None:
        if len(d.args) not in counts:
            raise CompileError(f"{d}: {d.name} takes {' or '.join(map(str, counts))} "
                               f"argument(s): {usage}")

    def integer(self, d: Directive, text: str, what: str) -> int:
        if not text.isdigit() or int(text) < 1:
            raise CompileError(f"{d}: the {what} must be a whole number of 1 or more, not "
                               f"{text}")
        return int(text)

    # ---------------------------------------------------------------- commands
    def run(self, d: Directive) -> None:
        handler = getattr(self, f"cmd_{d.name}", None) if d.name in COMMANDS else None
        if handler is None:
            raise CompileError(f"{d}: unknown scheduling command {d.name!r}; TACO's are "
                               f"{', '.join(COMMANDS)}")
        handler(d)

    def cmd_reorder(self, d: Directive) -> None:
        if not d.args:
            raise CompileError(f"{d}: reorder takes the loops in their new order, e.g. "
                               "reorder(k,i,j)")
        self.reorder(d, d.args)

    def reorder(self, d: Directive, names: list[str]) -> None:
        where = [self.find(d, n) for n in names]
        if len(set(where)) != len(where):
            dup = next(n for n, k in zip(names, where, strict=True) if where.count(k) > 1)
            raise CompileError(f"{d}: the loop order lists {dup} twice")
        chosen = [self.loops[k] for k in where]
        for k, loop in zip(sorted(where), chosen, strict=True):
            self.loops[k] = loop

    def cmd_split(self, d: Directive) -> None:
        self.arity(d, 4, usage=f"{d.name}(i, i_outer, i_inner, factor)")
        k = self.find(d, d.args[0])
        outer, inner = self.new_name(d, d.args[1]), self.new_name(d, d.args[2])
        if outer == inner:
            raise CompileError(f"{d}: the two halves need different names")
        self.integer(d, d.args[3], "split factor" if d.name == "split" else "number of parts")
        loop = self.loops[k]
        self.n_splits += 1
        self.splits[self.n_splits] = d
        self.split_variables[self.n_splits] = list(loop.variables)
        self.loops[k: k + 1] = [
            Loop(outer, loop.variables, (*loop.path, (self.n_splits, 0))),
            Loop(inner, loop.variables, (*loop.path, (self.n_splits, 1))),
        ]

    cmd_divide = cmd_split

    def cmd_fuse(self, d: Directive) -> None:
        self.arity(d, 3, usage="fuse(i, j, fused)")
        a, b = self.find(d, d.args[0]), self.find(d, d.args[1])
        # the fused loop may take the name of one it replaces (TACO's fuse(b,f,f))
        name = d.args[2] if d.args[2] in (self.loops[a].name, self.loops[b].name) \
            else self.new_name(d, d.args[2])
        if b != a + 1:
            raise CompileError(f"{d}: the loops {d.args[0]} and {d.args[1]} are not directly "
                               f"nested ({d.args[1]} directly inside {d.args[0]}); reorder first")
        parts = bool(self.loops[a].path or self.loops[b].path)
        joined = list(dict.fromkeys(self.loops[a].variables + self.loops[b].variables))
        self.loops[a: b + 1] = [Loop(name, joined)]
        if parts:
            self.out.notices.append(
                f"{d}: fuses parts of split loops (tiling): recorded with the splits; the "
                f"graph iterates {','.join(joined)} whole (the split notices say where)")
            return
        self.out.notices.append(
            f"{d}: SAM iterates the fused loop {name} as {d.args[0]} then {d.args[1]}, which "
            "visits the same coordinates in the same order")

    def cmd_pos(self, d: Directive) -> None:
        self.arity(d, 3, usage="pos(i, i_pos, tensor)")
        k = self.find(d, d.args[0])
        name = self.new_name(d, d.args[1])
        tensor = d.args[2]
        if tensor not in self.tensors:
            raise CompileError(f"{d}: {tensor!r} is not an operand of the expression")
        loop = self.loops[k]
        var = loop.variables[-1]
        indices = self.tensors[tensor]
        if any(v not in indices for v in loop.variables):
            raise CompileError(f"{d}: index variable {var} does not appear in {tensor}"
                               f"({','.join(indices)})")
        if self.level_is_full(tensor, indices.index(var)):
            raise CompileError(f"{d}: {tensor} stores {var} in a dense level, whose positions "
                               "are its coordinates; pos needs a compressed level (as in TACO)")
        loop.name = name
        self.out.positions.append((d, tensor, var))
        self.out.notices.append(
            f"{d}: SAM's level scanner of {tensor} already iterates the positions of its "
            f"{var} level; the graph is the coordinate one")

    def cmd_parallelize(self, d: Directive) -> None:
        if len(d.args) in (2, 3) and d.args[1].lstrip("+-").isdigit():
            self.lanes_command(d)
            return
        self.arity(d, 3, usage="parallelize(i, unit, race_strategy) or parallelize(i, lanes)")
        k = self.find_loop_or_none(d, d.args[0])
        unit, races = d.args[1], d.args[2]
        if unit not in PARALLEL_UNITS:
            raise CompileError(f"{d}: unknown parallel unit {unit!r}; TACO's are "
                               f"{', '.join(PARALLEL_UNITS)}")
        if races not in RACE_STRATEGIES:
            raise CompileError(f"{d}: unknown race strategy {races!r}; TACO's are "
                               f"{', '.join(RACE_STRATEGIES)}")
        if k is None:
            return
        if unit == "NotParallel":
            self.out.notices.append(f"{d}: NotParallel: nothing to do")
            return
        variables = ",".join(self.loops[k].variables)
        self.out.parallel.append(f"{variables}:{unit}:{races}")
        self.out.notices.append(
            f"{d}: recorded in the graph ({PARALLELIZE_ATTR}={variables}:{unit}:{races}); the "
            "thread kind and race strategy are C-code notions; for SAM lanes (parallelizer and "
            f"serializer blocks, paper Sec. 4.4) write parallelize({d.args[0]},N) "
            "(docs/lanes.md)")

    def lanes_command(self, d: Directive) -> None:
        """``parallelize(i, n[, rr|range])``: SAM lanes (Sec. 4.4), carried out by
        :mod:`custard.lanes` on the compiled graph."""
        n = self.integer(d, d.args[1], "number of lanes")
        mode = d.args[2] if len(d.args) == 3 else "rr"
        if mode not in ("rr", "range"):
            raise CompileError(f"{d}: lanes are dealt 'rr' (round robin) or 'range' (by "
                               f"coordinate range), not {mode!r}")
        k = self.find(d, d.args[0])
        if len(self.loops[k].variables) != 1:
            raise CompileError(f"{d}: {d.args[0]} is a fused loop; parallelize one of its "
                               "variables")
        if self.out.lanes:
            raise CompileError(f"{d}: the graph already has lanes "
                               f"(parallelize({self.out.lanes[0][0]},...)); give one")
        self.out.lanes.append((self.loops[k].variables[0], n, mode))

    def cmd_bound(self, d: Directive) -> None:
        self.arity(d, 4, usage="bound(i, i_bound, bound, bound_type)")
        k = self.find(d, d.args[0])
        name = d.args[1] if d.args[1] == self.loops[k].name else self.new_name(d, d.args[1])
        if not d.args[2].isdigit():
            raise CompileError(f"{d}: the bound {d.args[2]!r} is not a non-negative integer")
        if d.args[3] not in BOUND_TYPES:
            raise CompileError(f"{d}: unknown bound type {d.args[3]!r}; TACO's are "
                               f"{', '.join(BOUND_TYPES)}")
        self.loops[k].name = name
        self.out.notices.append(f"{d}: ignored: a loop bound for generated C code; a SAM "
                                "graph's iteration follows the data")

    def cmd_unroll(self, d: Directive) -> None:
        self.arity(d, 2, usage="unroll(i, factor)")
        if not d.args[1].isdigit():  # TACO reads any size_t, 0 included
            raise CompileError(f"{d}: the unroll factor {d.args[1]!r} is not a non-negative "
                               "integer")
        if self.find_loop_or_none(d, d.args[0]) is None:
            return
        self.out.notices.append(f"{d}: ignored: loop unrolling is a C-code transformation; a "
                                "SAM block fires once per token")

    def cmd_assemble(self, d: Directive) -> None:
        self.arity(d, 2, 3, usage="assemble(result, Append|Insert[, true|false])")
        if d.args[0] != self.result:
            raise CompileError(f"{d}: {d.args[0]!r} is not the result tensor ({self.result})")
        if d.args[1] not in ("Append", "Insert"):
            raise CompileError(f"{d}: unknown assembly strategy {d.args[1]!r}; TACO's are "
                               "Append, Insert")
        if len(d.args) == 3 and d.args[2] not in ("true", "false"):
            raise CompileError(f"{d}: the third argument is true or false")
        self.out.notices.append(f"{d}: ignored: how generated C code assembles the result; "
                                "SAM level writers (Def. 3.8) always append")

    def cmd_mergeby(self, d: Directive) -> None:
        self.arity(d, 2, usage="mergeby(i, TwoFinger|Gallop)")
        if d.args[1] not in ("TwoFinger", "Gallop"):
            raise CompileError(f"{d}: unknown merge strategy {d.args[1]!r}; TACO's are "
                               "TwoFinger, Gallop")
        if self.find_loop_or_none(d, d.args[0]) is None:
            return
        self.out.notices.append(f"{d}: ignored: SAM's intersecters (Def. 3.2) merge two "
                                "fingers; galloping is coordinate skipping, a later issue")

    def cmd_skip(self, d: Directive) -> None:
        """``skip(B,c)``: the intersecters merging B and c send their scanners skips
        (coordinate skipping, SAM Sec. 4.2; :mod:`custard.skipping`); ``skip()``: every
        intersecter, to every compressed operand."""
        if len(d.args) == 1:
            raise CompileError(f"{d}: skip takes no tensor or at least two: skip(B,c) makes the "
                               "intersection of B and c skip")
        for name in d.args:
            if name not in self.tensors:
                raise CompileError(f"{d}: {name!r} is not an operand of the expression "
                                   f"(operands: {', '.join(self.tensors)})")
        self.out.skips.append(tuple(d.args))

    def cmd_precompute(self, d: Directive) -> None:
        self.arity(d, 3, 4, usage="precompute(expr, i, iw[, workspace]) or "
                   "precompute(expr, {i,j}, {iw,jw}[, workspace])")
        inner = _var_list(d, d.args[1])
        outer = _var_list(d, d.args[2])
        if len(inner) != len(outer):
            raise CompileError(f"{d}: the lists {d.args[1]} and {d.args[2]} differ in length")
        for name in inner:
            if name not in self.known and name not in self.aliases:
                self.find(d, name)  # says which loops there are
        for name, alias in zip(inner, outer, strict=True):
            if alias != name and alias not in self.aliases and alias not in self.known:
                if not _NAME.fullmatch(alias):
                    raise CompileError(f"{d}: {alias!r} is not a name for an index variable")
                self.aliases[alias] = self.aliases.get(name, name)
        ws = d.args[3] if len(d.args) == 4 else "workspace"
        if not _NAME.fullmatch(ws):
            raise CompileError(f"{d}: {ws!r} is not a tensor name")
        self.out.precomputes.append(Precompute(d.args[0], ws, d))

    # ---------------------------------------------------------------- the end
    def flatten(self) -> list[str]:
        """The loops as an order of index variables, each variable once: at the outermost loop
        holding it (a part of a split loop) if every variable a tensor stores before it
        (``self.before``) is placed by then, else at the next loop holding it, and at its last
        one in any case (a fused loop keeps its variables' order)."""
        last = {v: t for t, loop in enumerate(self.loops) for v in loop.variables}
        order: list[str] = []
        for t, loop in enumerate(self.loops):
            waiting = [v for v in loop.variables if v not in order]
            grew = True
            while grew:
                grew = False
                for v in list(waiting):
                    if last[v] == t or self.before.get(v, set()) - {v} <= set(order):
                        order.append(v)
                        waiting.remove(v)
                        grew = True
        return order

    def finish(self) -> Schedule:
        """The loop order over the expression's variables (:meth:`flatten`). Splitting never
        changes the result (Sec. 4.1), so the graph iterates split variables whole; the
        splits are recorded in the graph (``--split-mode`` and ``custard tile`` carry them
        out)."""
        self.out.order = self.flatten()
        if self.splits:
            self.out.loop_nest = [(loop.name, list(loop.variables)) for loop in self.loops]
            nest = ",".join(loop.name for loop in self.loops)
        for n in sorted(self.splits):
            d = self.splits[n]
            variables = self.split_variables[n]
            self.out.splits.append((str(d), variables))
            self.out.notices.append(
                f"{d}: recorded in the graph ({SPLIT_ATTR}, {SPLIT_LOOPS_ATTR}={nest}); "
                f"splitting never changes the result, so the graph iterates "
                f"{','.join(variables)} whole; for split levels (SAM paper Sec. 4.1) add "
                "--split-mode stored|online, to run tile by tile use custard tile")
        return self.out


def _var_list(d: Directive, text: str) -> list[str]:
    names = text[1:-1].split(",") if text.startswith("{") and text.endswith("}") else [text]
    names = [n for n in names if n]
    if not names or not all(_NAME.fullmatch(n) for n in names):
        raise CompileError(f"{d}: {text!r} is not an index variable or a list {{i,j}}")
    return names


def interpret(directives: list[Directive], start: list[str],
              tensors: dict[str, tuple[str, ...]], result: str,
              level_is_full, before: dict[str, set[str]] | None = None) -> Schedule:
    """Apply ``directives`` in order to the loop order ``start`` (see module docstring).

    ``tensors`` maps each operand to its index variables; ``level_is_full(tensor, mode)`` says
    whether the tensor stores that mode in a dense (full) level; ``before`` maps an index
    variable to those that tensors store before it (where a split leaves a choice, the order
    follows them)."""
    it = _Interpreter(start, tensors, result, level_is_full, before)
    for d in directives:
        it.run(d)
    return it.finish()
