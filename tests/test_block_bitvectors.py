"""Bitvector streams and blocks (SAM paper Sec. 4.3, Def. 4.2, Figure 6) and the split /
flatten blocks (Sec. 4.1): ``sam.blocks.bitvectors``, ``sam.blocks.splits``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import Tensor
from sam.blocks.bitvectors import (
    BitvectorChunker,
    BitvectorConverter,
    BitvectorDropper,
    BitvectorIntersecter,
    BitvectorScanner,
    BitvectorToCrd,
    BitvectorUnioner,
    BitvectorWriter,
    popcount,
    words_to_crd,
)
from sam.blocks.splits import ChunkSelector, Flatten, Split
from sam.errors import SimulationError
from sam.graph.registry import BLOCK_TYPES
from sam.runtime.tokens import parse_stream
from sam.sim.harness import run_block

from helpers.streamtrees import level_stream, same_on_both_engines, trees


def words(text: str) -> str:
    """``"0101, 0100, S0, D"`` (binary words, most significant bit first) as a bv stream."""
    return ", ".join(str(int(t, 2)) if t.strip().isdigit() else t.strip()
                     for t in text.split(","))


FIG6_CRD = "0, 2, 6, 8, 9, S0, D"
FIG6_BV = words("0101, 0100, 0011, S0, D")
FIG6_REF = "0, 2, 3, S0, D"


def test_registered() -> None:
    for name in ("bvlookup", "crdtobv", "bvchunk", "bvintersect", "bvunion", "bvtocrd",
                 "bvwrite", "bvdrop", "split", "flatten", "chunkselect"):
        assert name in BLOCK_TYPES


def test_figure_6_scanner() -> None:
    b = Tensor.from_coo([[0], [2], [6], [8], [9]], [1.0, 2, 3, 4, 5], [10], "b4")
    out = same_on_both_engines(
        lambda: BitvectorScanner("0", {"tensor": "b", "mode": "0", "root": "true"}), {},
        {"b": b})
    assert out["bv"] == FIG6_BV and out["ref"] == FIG6_REF


def test_figure_6_converter() -> None:
    out = same_on_both_engines(lambda: BitvectorConverter("0", {"size": "10", "width": "4"}),
                               {"crd": FIG6_CRD})
    assert out["bv"] == FIG6_BV and out["ref"] == FIG6_REF
    # 5 coordinates, 3 words, 1 stop, then D: one firing each.
    assert out.st[2] == 10


def test_converter_one_word_per_fiber_then_chunker() -> None:
    out = same_on_both_engines(lambda: BitvectorConverter("0", {"size": "10"}),
                               {"crd": "0, 2, 6, 8, 9, S0, 1, S1, D"})
    assert out["bv"] == words("1101000101, S0, 10, S1, D") and out["ref"] == "0, S0, 5, S1, D"
    out = same_on_both_engines(lambda: BitvectorChunker("0", {"size": "10", "width": "4"}),
                               {"bv": words("1101000101, S0, 10, S1, D")})
    assert out["bv"] == words("0101, 0100, 0011, S0, 0010, 0000, 0000, S1, D")
    assert out["ref"] == "0, 2, 3, S0, 5, 6, 6, S1, D"


def test_converter_zero_words_and_empty_fibers() -> None:
    out = same_on_both_engines(lambda: BitvectorConverter("0", {"size": "12", "width": "4"}),
                               {"crd": "9, S0, S1, D"})
    assert out["bv"] == words("0000, 0000, 0010, S0, 0000, 0000, 0000, S1, D")
    assert out["ref"] == "0, 0, 0, S0, 1, 1, 1, S1, D"


def test_converter_under_original_timing_holds_words_until_the_stop() -> None:
    """``--timing original`` (docs/timing-model.md, rule 12): the same tokens, but a fiber's
    words wait for its stop, as the original's BV (the fiber as one integer, out at its stop)
    followed by ChunkBV (one word per cycle): coordinates in cycles 0-4, the stop taken in 5,
    words out in 6-8, the stop in 9, done in 10 (arrivals one later). Without it, a word goes
    out once a coordinate of a later word arrives."""
    conv = lambda: BitvectorConverter("0", {"size": "10", "width": "4"})  # noqa: E731
    out = same_on_both_engines(conv, {"crd": FIG6_CRD}, timing="original")
    assert out["bv"] == FIG6_BV and out["ref"] == FIG6_REF
    assert out.times["bv"] == [7, 8, 9, 10, 11] and out.st[2] == 11
    assert run_block(conv(), {"crd": FIG6_CRD}).times["bv"] == [3, 5, 8, 9, 10]
    out = same_on_both_engines(lambda: BitvectorConverter("0", {"size": "12", "width": "4"}),
                               {"crd": "9, S0, S1, D"}, timing="original")
    assert out["bv"] == words("0000, 0000, 0010, S0, 0000, 0000, 0000, S1, D")
    assert out["ref"] == "0, 0, 0, S0, 1, 1, 1, S1, D" and out.st[2] == 12
    # More words than the held buffer starts with (it grows): the same tokens.
    big = lambda: BitvectorConverter("0", {"size": "260", "width": "2"})  # noqa: E731
    crd = ", ".join([str(x) for x in range(200, 259)] + ["S0", "D"])
    out = same_on_both_engines(big, {"crd": crd}, timing="original")
    assert dict(out) == dict(run_block(big(), {"crd": crd}))
    assert len(out.tokens["bv"]) == 130 + 2 and out.st[2] == 59 + 1 + 130 + 1 + 1
    # One word per fiber: the original's BV alone, as without the rule.
    one = lambda: BitvectorConverter("0", {"size": "10"})  # noqa: E731
    crd = "0, 2, 6, 8, 9, S0, 1, S1, D"
    assert run_block(one(), {"crd": crd}, timing="original").times == \
        run_block(one(), {"crd": crd}).times


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_converter_hold_gives_the_same_tokens(data) -> None:
    size = data.draw(st.integers(1, 20))
    width = data.draw(st.integers(1, 8))
    fibers = data.draw(st.lists(st.sets(st.integers(0, size - 1), max_size=size), min_size=1,
                                max_size=3))
    toks = []
    for k, f in enumerate(fibers):
        toks += [str(x) for x in sorted(f)] + [f"S{1 if k == len(fibers) - 1 else 0}"]
    crd = ", ".join(toks + ["D"])
    conv = lambda: BitvectorConverter("0", {"size": str(size), "width": str(width)})  # noqa
    held = same_on_both_engines(conv, {"crd": crd}, timing="original")
    plain = run_block(conv(), {"crd": crd})
    assert dict(held) == dict(plain)
    assert held.st[2] == plain.st[2] + (len(fibers) if -(-size // width) > 1 else 0)


def test_intersecter_and_unioner() -> None:
    ins = {"bv:in-B": FIG6_BV, "ref:in-B": FIG6_REF,
           "bv:in-C": words("0111, 0110, 0001, S0, D"), "ref:in-C": "0, 3, 5, S0, D"}
    out = same_on_both_engines(lambda: BitvectorIntersecter("i", {"width": "4"}, ["B", "C"]),
                               ins)
    assert out["bv"] == words("0101, 0100, 0001, S0, D")
    assert out["crd"] == "0, 2, 6, 8, S0, D"
    assert out["ref:out-B"] == "0, 1, 2, 3, S0, D" and out["ref:out-C"] == "0, 2, 4, 5, S0, D"
    # Words 0101 (2 bits), 0100 (1), 0001 (1): 4 cycles; S0, D: 2 more.
    assert out.st[2] == 6
    out = same_on_both_engines(lambda: BitvectorUnioner("i", {"width": "4"}, ["B", "C"]), ins)
    assert out["bv"] == words("0111, 0110, 0011, S0, D")
    assert out["crd"] == "0, 1, 2, 5, 6, 8, 9, S0, D"
    assert out["ref:out-B"] == "0, N, 1, N, 2, 3, 4, S0, D"
    assert out["ref:out-C"] == "0, 1, 2, 3, 4, 5, N, S0, D"


def test_zero_word_costs_one_cycle() -> None:
    ins = {"bv:in-B": words("0001, 0000, S0, D"), "ref:in-B": "0, 1, S0, D",
           "bv:in-C": words("0010, 0001, S0, D"), "ref:in-C": "0, 1, S0, D"}
    out = same_on_both_engines(lambda: BitvectorIntersecter("i", {"width": "4"}, ["B", "C"]),
                               ins)
    assert out["bv"] == "0, 0, S0, D" and out["crd"] == "S0, D" and out.st[2] == 4


def test_misaligned_inputs_refused() -> None:
    ins = {"bv:in-B": "5, S0, D", "ref:in-B": "0, S0, D", "bv:in-C": "5, 5, S0, D",
           "ref:in-C": "0, 2, S0, D"}
    with pytest.raises(SimulationError, match="misaligned"):
        run_block(BitvectorIntersecter("i", {"width": "4"}, ["B", "C"]), ins)


def test_bv_to_crd_and_writer() -> None:
    out = same_on_both_engines(lambda: BitvectorToCrd("0", {"width": "4"}),
                               {"bv": FIG6_BV, "ref": FIG6_REF})
    assert out["crd"] == FIG6_CRD and out["ref"] == "0, 1, 2, 3, 4, S0, D"
    rec = words_to_crd([5, 4, 3, 2, 0], [3, 5], [0, 1], 4)
    assert rec["crd"].tolist() == [0, 2, 6, 8, 9, 1] and rec["stop_at"].tolist() == [5, 6]
    res = run_block(BitvectorWriter("w", {"tensor": "x", "mode": "0", "width": "4"}),
                    {"bv": FIG6_BV})
    got = res.mem  # the writer recorded the words
    assert got["words"][:3].tolist() == [5, 4, 3]


def test_figure_split_example() -> None:
    out = same_on_both_engines(lambda: Split("0", {"split": "4"}),
                               {"crd": "0, 2, 3, 9, 11, 12, S0, D"})
    assert out["crd:outer"] == "0, 2, 3, S0, D"
    assert out["crd:inner"] == "0, 2, 3, S0, 9, 11, S0, 12, S1, D"
    out = same_on_both_engines(lambda: Split("0", {"split": "4", "orig_crd": "false"}),
                               {"crd": "0, 2, 3, 9, 11, 12, S0, D"})
    assert out["crd:inner"] == "0, 2, 3, S0, 1, 3, S0, 0, S1, D"
    back = same_on_both_engines(
        lambda: Flatten("0", {"split": "4"}),
        {"crd:outer": "0, 2, 3, S0, D", "crd:inner": "0, 2, 3, S0, 9, 11, S0, 12, S1, D"})
    assert back["crd"] == "0, 2, 3, 9, 11, 12, S0, D"


def test_popcount_helper() -> None:
    assert popcount(0) == 0 and popcount(-1) == 64 and popcount(-(2 ** 63)) == 1
    assert popcount(0b1011) == 3


def _bits(stream: str, width: int) -> list:
    """Reference bitvector stream of a coordinate stream: words per fiber of ``width`` bits."""
    out: list = []
    fiber: list[int] = []
    for tok in parse_stream(stream):
        if isinstance(tok, int):
            fiber.append(tok)
            continue
        if repr(tok).startswith("S"):
            out += [sum(1 << (c - j * width) for c in fiber if c // width == j)
                    for j in range(-(-16 // width))]
            fiber = []
        out.append(tok)
    return out


@settings(max_examples=40, deadline=None)
@given(tree=trees(2, max_crd=15, max_fiber=5), width=st.sampled_from([1, 3, 4, 16]))
def test_crd_to_bv_to_crd_round_trip(tree, width: int) -> None:
    crd = level_stream(tree, 1)
    conv = same_on_both_engines(
        lambda: BitvectorConverter("c", {"size": "16", "width": str(width)}), {"crd": crd})
    assert conv["bv"] == ", ".join(map(repr, _bits(crd, width))).replace("'", "")
    back = same_on_both_engines(lambda: BitvectorToCrd("b", {"width": str(width)}),
                                {"bv": conv["bv"], "ref": conv["ref"]})
    assert back["crd"] == crd
    n = sum(1 for t in parse_stream(crd) if isinstance(t, int))
    refs = [t for t in parse_stream(back["ref"]) if isinstance(t, int)]
    assert refs == list(range(n))  # running popcounts give every coordinate its position


@settings(max_examples=40, deadline=None)
@given(tree=trees(2, max_crd=40, max_fiber=6), s=st.integers(1, 9),
       orig=st.sampled_from(["true", "false"]))
def test_split_flatten_round_trip(tree, s: int, orig: str) -> None:
    crd = level_stream(tree, 1)
    attrs = {"split": str(s), "orig_crd": orig}
    parts = same_on_both_engines(lambda: Split("s", attrs), {"crd": crd})
    # Reference: chunk ids and inner fibers computed directly from the tree.
    outer = []
    for c0, fiber in tree:
        chunks: dict[int, list[int]] = {}
        for c, _ in fiber:
            chunks.setdefault(c // s, []).append(c if orig == "true" else c % s)
        outer.append((c0, [(q, [(x, 0.0) for x in xs]) for q, xs in sorted(chunks.items())]))
    assert parts["crd:outer"] == level_stream(outer, 1)
    assert parts["crd:inner"] == level_stream(outer, 2)
    back = same_on_both_engines(lambda: Flatten("f", attrs),
                                {"crd:outer": parts["crd:outer"],
                                 "crd:inner": parts["crd:inner"]})
    assert back["crd"] == crd


# ----------------------------------------------------------------------------- bvdrop
def _tree_streams(fibers: list[list[tuple[int, list[list[int]]]]]) -> tuple[str, str]:
    """Outer and inner bv streams of outer fibers; each outer fiber is a list of (word, inner
    fibers of its set bits), each inner fiber a list of words. The outer fibers are siblings
    (closed by S0, the last by S1); an inner fiber closes with S0, the last one of an outer
    fiber with the outer stop plus one (a bare stop when the outer fiber has no bits)."""
    outer: list[str] = []
    inner: list[str] = []
    for k, fiber in enumerate(fibers):
        level = 1 if k == len(fibers) - 1 else 0
        children = [f for _, fs in fiber for f in fs]
        outer += [str(wd) for wd, _ in fiber] + [f"S{level}"]
        for j, child in enumerate(children):
            inner += [str(x) for x in child]
            inner.append(f"S{level + 1}" if j == len(children) - 1 else "S0")
        if not children:
            inner.append(f"S{level + 1}")
    return ", ".join(outer + ["D"]), ", ".join(inner + ["D"])


def test_bitvector_dropper_examples() -> None:
    out = same_on_both_engines(lambda: BitvectorDropper("d"),
                               {"bv:outer": "5, S0, D", "bv:inner": "0, S0, 2, S1, D"})
    assert out["bv:outer"] == words("0100, S0, D") and out["bv:inner"] == "2, S1, D"
    out = same_on_both_engines(lambda: BitvectorDropper("d"),
                               {"bv:outer": "1, 1, S0, D", "bv:inner": "0, 0, S0, 0, 3, S1, D"})
    assert out["bv:outer"] == "0, 1, S0, D" and out["bv:inner"] == "0, 3, S1, D"
    with pytest.raises(SimulationError, match="one fiber per set outer bit"):
        run_block(BitvectorDropper("d"), {"bv:outer": "1, S0, D", "bv:inner": "S1, D"})


def test_bitvector_dropper_under_original_timing() -> None:
    """``--timing original`` (rule 12): the same tokens; a zero inner word costs no firing
    (the original's bit-tree intersecter emits none) and a held inner stop of level >= 1 goes
    out in the firing that makes it, beside the outer word (the original's dropper runs its
    inner and outer stop droppers side by side)."""
    ins = {"bv:outer": "1, S0, D", "bv:inner": "0, S1, D"}
    plain = same_on_both_engines(lambda: BitvectorDropper("d"), ins)
    orig = same_on_both_engines(lambda: BitvectorDropper("d"), ins, timing="original")
    assert dict(plain) == dict(orig) == {"bv:outer": "0, S0, D", "bv:inner": "S1, D"}
    # outer word taken in 0; default: zero word 1, stop 2 (outer word out), outer S0 3,
    # held S1 4, done 5; original: stop 1 (outer word and S1 out), outer S0 2, done 3.
    assert plain.st[2] == 6 and plain.times["bv:inner"] == [5, 6]
    assert orig.st[2] == 4 and orig.times["bv:inner"] == [2, 4]
    ins = {"bv:outer": "3, S0, D", "bv:inner": "5, S0, 0, S1, D"}
    plain = run_block(BitvectorDropper("d"), ins)
    orig = same_on_both_engines(lambda: BitvectorDropper("d"), ins, timing="original")
    assert dict(plain) == dict(orig) == {"bv:outer": "1, S0, D", "bv:inner": "5, S1, D"}
    assert orig.st[2] == plain.st[2] - 2


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_bitvector_dropper_against_reference(data) -> None:
    w_in = data.draw(st.integers(1, 3))
    inner_word = st.sampled_from([0, 0, 1, 6, -(2 ** 63)])
    fibers = data.draw(st.lists(st.lists(st.integers(0, 2 ** 6 - 1), min_size=1, max_size=2),
                                min_size=1, max_size=3))
    tree = []
    for fiber in fibers:
        tree.append([(wd, [data.draw(st.lists(inner_word, min_size=w_in, max_size=w_in))
                           for k in range(64) if wd >> k & 1]) for wd in fiber])
    kept = []
    for fiber in tree:
        row = []
        for wd, fs in fiber:
            bits = [k for k in range(64) if wd >> k & 1]
            keep = [(k, f) for k, f in zip(bits, fs, strict=True) if any(f)]
            row.append((sum(1 << k for k, _ in keep), [f for _, f in keep]))
        kept.append(row)
    o_in, i_in = _tree_streams(tree)
    o_want, i_want = _tree_streams(kept)
    for timing in ("sam", "original"):
        out = same_on_both_engines(lambda: BitvectorDropper("d"),
                                   {"bv:outer": o_in, "bv:inner": i_in}, timing=timing)
        assert out["bv:outer"] == o_want and out["bv:inner"] == i_want


def test_split_with_references_and_chunk_selector() -> None:
    out = same_on_both_engines(lambda: Split("0", {"split": "4"}),
                               {"crd": "0, 2, 3, 9, 11, 12, S0, D",
                                "ref": "0, 1, 2, 3, 4, 5, S0, D"})
    assert out["ref:outer"] == "0, 1, 2, S0, D"  # chunk ordinals
    assert out["ref:inner"] == "0, 1, 2, S0, 3, 4, S0, 5, S1, D"
    inner = {"crd:inner": out["crd:inner"], "ref:inner": out["ref:inner"]}
    for refs, crd, ref, cycles in [
            ("0, 2, S0, D", "0, 2, 3, S0, 12, S1, D", "0, 1, 2, S0, 5, S1, D", 14),
            ("1, S0, D", "9, 11, S1, D", "3, 4, S1, D", 12),
            ("N, 2, S0, D", "S0, 12, S1, D", "S0, 5, S1, D", 14),
            ("S0, D", "S1, D", "S1, D", 11)]:
        got = same_on_both_engines(lambda: ChunkSelector("c"), {"ref": refs, **inner})
        assert (got["crd"], got["ref"], got.st[2]) == (crd, ref, cycles), refs
    with pytest.raises(SimulationError, match="must increase"):
        run_block(ChunkSelector("c"), {"ref": "2, 1, S0, D", **inner})
    with pytest.raises(SimulationError, match="past the split's last chunk"):
        run_block(ChunkSelector("c"), {"ref": "5, S0, D", **inner})


@settings(max_examples=30, deadline=None)
@given(tree=trees(2, max_crd=30, max_fiber=6), s=st.integers(1, 7), data=st.data())
def test_chunk_selector_picks_any_chunks(tree, s: int, data) -> None:
    """Split a level (with references), choose chunks by ordinal, compare with the tree."""
    crd = level_stream(tree, 1)
    refs = level_stream([(c0, [(pos, 0.0) for pos in range(len(f))]) for c0, f in tree], 1)
    parts = run_block(Split("s", {"split": str(s)}), {"crd": crd, "ref": refs})
    chunks = [(k, [c for c, _ in f if c // s == q])
              for k, (q, f) in enumerate((q, f) for _, f in tree
                                          for q in sorted({c // s for c, _ in f}))]
    chosen = sorted(data.draw(st.sets(st.sampled_from(range(len(chunks))))) if chunks else [])
    want = level_stream([(k, [(c, 0.0) for c in chunks[k][1]]) for k in chosen], 1)
    ins = {"ref": ", ".join([*map(str, chosen), "S0", "D"]), "crd:inner": parts["crd:inner"],
           "ref:inner": parts["ref:inner"]}
    got = same_on_both_engines(lambda: ChunkSelector("c"), ins)
    assert got["crd"] == want
