"""custard dag at scale (issue 31): a statement of many factors and a program of a thousand
statements are analysed in time about linear in the program, with the same results as before.

Alg. 3's loop-order choice no longer tries every permutation (:mod:`custard.dag.orders`); the
exhaustive search it replaces is kept here as the reference and compared on random programs.
The scale tests assert the printed values (labels, units, intensities, DRAM words, computed by
hand below); their alarm is only a hang guard, not a speed assertion.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import random
import re
import signal
from collections.abc import Iterator

import pytest

import custard.dag.labels as labels
from custard.dag.labels import (
    STREAMED,
    build_dag,
    describe,
    format_violations,
    full_order,
    pipeline_violation,
    swizzled,
)
from custard.dag.orders import OrderProblem, best_order, mode_pairs
from custard.dag.program import parse_program
from custard.dag.run import MAX_CHAIN
from custard.dag.shapes import TensorInfo
from sam.errors import CompileError

#: seconds a scale test may run before it counts as hung (they take a few seconds)
HANG = 300


@contextlib.contextmanager
def _hang_guard(seconds: int = HANG) -> Iterator[None]:
    def hung(signum, frame):  # pragma: no cover - only on a hang
        raise TimeoutError(f"ran longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _cli(*argv: str) -> tuple[int, str, str]:
    from custard.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _hang_guard():
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------ the exhaustive reference
def _exhaustive_assign_orders(dag: labels.Dag) -> None:
    """Alg. 3 as it was: every permutation scored, the first best kept."""
    formats = dag.program.formats
    for node in dag.nodes:
        st = node.statement
        if st.host:
            continue
        default = full_order(st, formats)
        if st.order is not None:
            node.order = list(st.order) if set(st.order) == set(default) else default
            continue
        candidates = [default] + [list(p) for p in itertools.permutations(default)
                                  if list(p) != default]
        best = None
        for k, cand in enumerate(candidates):
            violations = swizzles = 0
            for e in dag.in_edges(node.index):
                src = dag.nodes[e.src]
                if src.op != "tensor_mac":
                    continue
                if e.label in STREAMED:
                    violations += bool(pipeline_violation(dag, e, src.order, cand))
                else:
                    swizzles += swizzled(dag, e, src.order, cand)
            for e in dag.out_edges(node.index):
                if e.label in STREAMED and cand and cand[0] in st.contracted:
                    violations += 1
            score = (violations, format_violations(st, cand, formats), swizzles, k)
            if best is None or score < best[0]:
                best = (score, cand)
        assert best is not None
        node.order = best[1]
    labels.label_by_orders(dag)


def _exhaustive_longest_path(dag: labels.Dag, src: int, dst: int) -> list[int]:
    """longest_path as it was: whole paths copied along the statements."""
    succ: dict[int, set[int]] = {n.index: set() for n in dag.nodes}
    for e in dag.edges:
        succ[e.src].add(e.dst)
    best: dict[int, list[int]] = {src: [src]}
    for k in range(src, dst + 1):
        if k not in best:
            continue
        for nxt in sorted(succ[k]):
            if nxt <= dst and len(best[k]) + 1 > len(best.get(nxt, [])):
                best[nxt] = best[k] + [nxt]
    return best.get(dst, [])


#: index variables and their sizes: 'a' can dominate (> 1000 and 100x the others)
SIZES = {"a": 2000, "b": 4, "c": 4, "d": 4, "e": 3}


def _random_program(rng: random.Random) -> tuple[str, dict[str, TensorInfo]]:
    """Up to five statements of up to three factors over at most four variables: transposed
    reads, stored mode orders, repeated variables, rewritten tensors and host steps."""
    shapes: dict[str, tuple[int, ...]] = {}
    infos: dict[str, TensorInfo] = {}
    formats: dict[str, str] = {}
    lines: list[str] = []

    def perm_format(order: int) -> str:
        perm = list(range(order))
        rng.shuffle(perm)
        return "d" * order + ":" + ",".join(map(str, perm))

    for s in range(rng.randint(1, 5)):
        factors = []
        for _ in range(rng.randint(1, 3)):
            chosen = None
            for t in rng.sample(sorted(shapes), len(shapes)):
                if rng.random() < 0.3:
                    continue
                idx: list[str] = []
                for size in shapes[t]:
                    options = [v for v in SIZES if SIZES[v] == size and v not in idx]
                    if idx and SIZES[idx[-1]] == size and rng.random() < 0.1:
                        options = [idx[-1]]
                    if not options:
                        break
                    idx.append(rng.choice(options))
                else:
                    chosen = (t, idx)
                    break
            if chosen is None:
                name = f"I{len(shapes)}"
                idx = rng.sample(sorted(SIZES), rng.randint(1, 3))
                shapes[name] = tuple(SIZES[v] for v in idx)
                infos[name] = TensorInfo.dense(*shapes[name])
                if len(idx) >= 2 and rng.random() < 0.4:
                    formats[name] = perm_format(len(idx))
                chosen = (name, idx)
            factors.append(chosen)
        variables: list[str] = []
        for _, idx in factors:
            variables += [v for v in idx if v not in variables]
        lhs = [v for v in variables if rng.random() < 0.6]
        if len(lhs) > 1 and rng.random() < 0.3:
            rng.shuffle(lhs)
        target = f"T{s}"
        written = [ln.split("(")[0] for ln in lines if not ln.startswith("host")]
        if written and rng.random() < 0.2:
            old = rng.choice(written)
            if shapes[old] == tuple(SIZES[v] for v in lhs):
                target = old
        shapes[target] = tuple(SIZES[v] for v in lhs)
        line = f"{target}({','.join(lhs)}) = " + "*".join(
            f"{t}({','.join(idx)})" for t, idx in factors)
        if target not in formats and len(lhs) >= 2 and rng.random() < 0.3:
            formats[target] = perm_format(len(lhs))
            line += f" -f={target}:{formats[target]}"
        lines.append(line)
        if lhs and rng.random() < 0.15:
            lines.append(f"host: H{s} = {target} * 2")
            shapes[f"H{s}"] = shapes[target]
    if rng.random() < 0.3:
        lines.append("out: " + rng.choice([ln.split("(")[0] for ln in lines
                                             if not ln.startswith("host")]))
    given = " ".join(f"-f={n}:{f}" for n, f in formats.items() if n.startswith("I"))
    if given:
        lines[0] += " " + given
    return "\n".join(lines) + "\n", infos


def _summary(dag: labels.Dag) -> tuple:
    return ([(n.order, n.dominance, n.parallel_multicast) for n in dag.nodes],
            [(e.src, e.dst, e.tensor, e.label, e.transitive, e.multicast, e.swizzled, e.reason)
             for e in dag.edges], dag.swizzle_penalty)


def test_orders_and_labels_equal_the_exhaustive_search(monkeypatch) -> None:
    rng = random.Random(31)
    compared = searched = 0
    while compared < 250:
        text, infos = _random_program(rng)
        try:
            prog = parse_program(text)
            fast = build_dag(prog, infos)
        except CompileError:
            continue
        with monkeypatch.context() as m:
            m.setattr(labels, "assign_orders", _exhaustive_assign_orders)
            m.setattr(labels, "longest_path", _exhaustive_longest_path)
            slow = build_dag(prog, infos)
        assert _summary(fast) == _summary(slow), text
        for e in fast.edges:
            assert labels.longest_path(fast, e.src, e.dst) == \
                _exhaustive_longest_path(fast, e.src, e.dst), text
        compared += 1
        searched += sum(not n.statement.host for n in fast.nodes)
    assert searched > 400


def test_mode_pairs() -> None:
    # modes sorted by loop position must come as the producer wrote them
    assert mode_pairs([0, 1], ("i", "j")) == (("i", "j"),)
    assert mode_pairs([1, 0], ("i", "j")) == (("j", "i"),)
    assert mode_pairs([0, 1, 2], ("i", "i", "j")) == (("i", "j"),)
    assert mode_pairs([1, 0], ("i", "i")) is None  # a repeated variable keeps mode order
    assert mode_pairs([], ()) == ()


def test_best_order_without_clauses_is_the_default() -> None:
    default = [f"v{k}" for k in range(200)]
    found = best_order(OrderProblem(default))
    assert found.order == default and found.score == (0, 0, 0) and found.tried == 0


def test_pipelined_in_edge_picks_the_first_order_that_streams() -> None:
    # the outermost loop must be a rank of the streamed tensor (c or d) and read (d, c):
    # the first such order in permutation order is d first, then the default's a, b, c
    problem = OrderProblem(["a", "b", "c", "d"],
                           first_in=[(frozenset({"c", "d"}), (("d", "c"),))])
    found = best_order(problem)
    assert found.order == ["d", "a", "b", "c"] and found.score == (0, 0, 0)
    exhaustive = min(itertools.permutations("abcd"),
                     key=lambda p: (problem.score(p), ["abcd".index(v) for v in p]))
    assert found.order == list(exhaustive)


def _transposes(pairs: int, streamed: bool) -> tuple[str, dict[str, TensorInfo]]:
    """X(i0,..) = A0(i0,j0)*B0(j0,i0)*...: each pair of factors stores i_t and j_t in opposite
    orders, so every order violates one stored-before pair per factor pair; with ``streamed``
    a pipelined P(j3,i3) makes j3 the outermost loop."""
    factors = "*".join(f"A{t}(i{t},j{t})*B{t}(j{t},i{t})" for t in range(pairs))
    lhs = ",".join(f"i{t}" for t in range(pairs))
    infos = {f"{n}{t}": TensorInfo.dense(4, 4) for t in range(pairs) for n in "AB"}
    if not streamed:
        return f"X({lhs}) = {factors}\n", infos
    infos["C"] = TensorInfo.dense(4, 4)
    return f"P(j3,i3) = C(j3,i3)*C(j3,i3)\nX({lhs}) = P(j3,i3)*{factors}\n", infos


def test_conflicting_formats_small_equal_the_exhaustive_search(monkeypatch) -> None:
    text, infos = _transposes(3, streamed=False)
    fast = build_dag(parse_program(text), infos)
    with monkeypatch.context() as m:
        m.setattr(labels, "assign_orders", _exhaustive_assign_orders)
        slow = build_dag(parse_program(text), infos)
    assert fast.nodes[0].order == slow.nodes[0].order == ["i0", "i1", "i2", "j0", "j1", "j2"]


def test_many_conflicts_are_bounded() -> None:
    # 30 independent conflicts: the bound (one violation per clause-disjoint cycle) proves the
    # default order best at once
    text, infos = _transposes(30, streamed=False)
    with _hang_guard():
        dag = build_dag(parse_program(text), infos)
    node = dag.nodes[0]
    assert node.order == full_order(node.statement) and not node.order_cut
    # with P streamed the best orders all tie (2^29 ways to settle the other conflicts): the
    # search stops at its budget with an order of the lowest score, and says so
    text, infos = _transposes(30, streamed=True)
    with _hang_guard():
        dag = build_dag(parse_program(text), infos)
    node = dag.nodes[1]
    assert node.order[0] == "j3" and node.order_cut
    assert format_violations(node.statement, node.order, {}) == 30  # one per pair: the least
    assert "loop-order search cut" in describe(dag)


# ------------------------------------------------------------------------ scale, CLI
def _bindings(names: list[str], shape: str = "4x4") -> list[str]:
    out: list[str] = []
    for k, name in enumerate(names):
        out += ["-t", f"{name}=random:1:{k}:{shape}"]
    return out


def _table(out: str) -> list[list[int]]:
    rows = out.split("DRAM words", 1)[1].splitlines()[2:]
    return [[int(x) for x in row.split()[1:]] for row in rows if row.strip()]


def test_elementwise_statement_of_30_factors(tmp_path) -> None:
    n = 30
    prog = tmp_path / "ew.dag"
    prog.write_text("X(i,j) = " + "*".join(f"A{k}(i,j)" for k in range(n)) + "\n")
    code, out, err = _cli("dag", str(prog), *_bindings([f"A{k}" for k in range(n)]))
    assert code == 0, err
    assert "-- small order i,j" in out and "[1] X: 1 graph(s)" in out
    # 16 multiplications (one per point, GOGETA's count) over 30 operands and the result of
    # 16 words each; nothing to reuse
    words = (n + 1) * 16
    assert f"[1] X: {16 / words:.4g}" in out
    assert f"program: {16 / words:.4g} op-by-op, {16 / words:.4g} with" in out
    assert _table(out) == [[words] * 4] * 3


def test_contraction_chain_statement_of_30_factors(tmp_path) -> None:
    n = 30
    v = ["i", *(f"k{k}" for k in range(1, n)), "j"]
    prog = tmp_path / "mm.dag"
    prog.write_text("X(i,j) = " + "*".join(f"A{k}({v[k]},{v[k + 1]})" for k in range(n)) + "\n")
    code, out, err = _cli("dag", str(prog), *_bindings([f"A{k}" for k in range(n)]))
    assert code == 0, err
    # every operand stored row-major: the loops nest in chain order (no permutation tried)
    assert f"-- small order {','.join(v)}" in out and "[1] X: 1 graph(s)" in out
    mults, words = 4 ** (n + 1), (n + 1) * 16
    assert f"[1] X: {mults / words:.4g}" in out
    assert _table(out) == [[words] * 4] * 3


def test_chain_of_1000_statements(tmp_path) -> None:
    n = 1000
    lines = ["T1(i,j) = A(i,k)*B(k,j) -f=T1:ss"]
    lines += [f"T{k}(i,j) = T{k - 1}(i,k)*B(k,j) -f=T{k}:ss" for k in range(2, n + 1)]
    prog = tmp_path / "chain.dag"
    prog.write_text("\n".join(lines) + "\n")
    code, out, err = _cli("dag", str(prog), *_bindings(["A", "B"]))
    assert code == 0, err
    assert f"({n} operations)" in out
    assert out.count("-- small order i,k,j") == n
    edges = re.findall(r"\[(\d+)\] -> \[(\d+)\] T\d+: (\S+)", out)
    assert edges == [(str(k), str(k + 1), "pipelineable") for k in range(1, n)]
    # the pipelineable edges fuse in chains of MAX_CHAIN statements, each one graph
    fused = [re.findall(r"\[(\d+)\] T\d+", line) for line in out.splitlines()
             if ": fused, " in line]
    assert fused == [[str(j) for j in range(k, min(k + MAX_CHAIN, n + 1))]
                     for k in range(1, n + 1, MAX_CHAIN)]
    # each product: 4^3 multiplications over two operands and a result of 16 words; with
    # reuse only A, B and the kept T1000 move
    assert out.count(f": {64 / 48:.4g}\n") == n
    assert f"program: {64 / 48:.4g} op-by-op, {64 * n / 48:.4g} with" in out
    assert _table(out) == [[48 * n, 48, 48, 48]] * 3


# -------------------------------------------------------------- the command layer
CG = ["-t", "A=LFAT5", "-t", "P=random:1:0:14x2", "-t", "R=P", "-t", "X=random:1:1:14x2",
      "-t", "Gamma=random:1:2:2x2"]


@pytest.mark.parametrize("option", ["-o", "--graphs"])
def test_output_that_is_the_program_is_refused(tmp_path, option) -> None:
    prog = tmp_path / "cg.dot"  # a program named like an output
    prog.write_text(open("custard/dag/examples/cg.dag").read())
    before = prog.read_bytes()
    code, out, err = _cli("dag", str(prog), *CG, option, str(prog))
    assert code == 1 and err.count("\n") == 1 and "that is an input" in err
    assert prog.read_bytes() == before and out == ""


@pytest.mark.parametrize("argv, message", [
    (["-o", "{tmp}/cg.dag"], "-o writes .dot, .gv, .svg, .png, .pdf"),
    (["--graphs", "{tmp}/g.svg"], "--graphs writes .gv, .dot"),
    (["-o", "{tmp}/no/such/x.dot"], "does not exist"),
    (["-o", "{tmp}/x.dot", "--graphs", "{tmp}/x.dot"], "writes the same file"),
    (["--iterations", str(10**9)], "--iterations 1,000,000,000: at most"),
    (["--iterations", "30000"], "unrolls the program's 9 statement(s)"),
    (["--sram", "inf"], "--sram inf"),
    (["--sram", "1e12"], "--sram 1,000,000,000,000: at most"),
])
def test_refusals_are_one_line_before_work(tmp_path, argv, message) -> None:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = _cli("dag", "custard/dag/examples/cg.dag", *CG, *argv)
    assert code == 1 and err.count("\n") == 1 and err.startswith("custard: error:"), err
    assert message in err and out == ""


def test_bad_program_files_are_one_line(tmp_path) -> None:
    bad = tmp_path / "bad.dag"
    bad.write_bytes(b"X(i) = A(i)\n\xff\xfe\n")
    empty = tmp_path / "empty.dag"
    empty.write_bytes(b"")
    comments = tmp_path / "comments.dag"
    comments.write_text("# nothing but a comment\n")
    for path, message in ((bad, "bad.dag:2:1: the program is not UTF-8 text (byte 0xff)"),
                          (empty, "the program is empty"),
                          (comments, "the program has no statements")):
        code, out, err = _cli("dag", str(path), "-t", "A=random:1:0:4")
        assert code == 1 and err.count("\n") == 1 and message in err, err


def test_outputs_are_written_whole(tmp_path) -> None:
    dot, svg, graphs = tmp_path / "d.gv", tmp_path / "d.svg", tmp_path / "g.dot"
    code, out, err = _cli("dag", "custard/dag/examples/cg.dag", *CG, "-o", str(dot),
                          "--graphs", str(graphs))
    assert code == 0, err
    assert dot.read_text().startswith("digraph DAG") and dot.read_text().endswith("}\n")
    assert graphs.read_text().count("digraph") >= 7
    code, out, err = _cli("dag", "custard/dag/examples/cg.dag", *CG, "-o", str(svg))
    assert code == 0, err
    assert svg.read_text().lstrip().startswith("<?xml") and "</svg>" in svg.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_progress_bars_only_when_on(monkeypatch, capsys) -> None:
    import custard.dag.progress as progress

    monkeypatch.setattr(progress, "DELAY", 0)
    assert list(progress.track(range(3), "counting")) == [0, 1, 2]
    with progress.bars(False):
        assert list(progress.track(range(3), "counting")) == [0, 1, 2]
    assert capsys.readouterr().err == ""
    with progress.bars(True):
        assert list(progress.track(range(3), "counting")) == [0, 1, 2]
    assert "counting" in capsys.readouterr().err
    with pytest.raises(KeyboardInterrupt), progress.bars(True):  # noqa: PT012
        for _ in progress.track(range(3), "stopped"):
            raise KeyboardInterrupt
    assert capsys.readouterr().err.endswith("\r\x1b[K")
