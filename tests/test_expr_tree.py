"""The expression tree's helpers (``sam.notation.expr``): copying a node over new operands,
mapping the leaves, the subtrees, structural equality and search, additions on a path, and the
sums nested in other terms."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sam.notation.expr import (
    Access,
    Add,
    Div,
    Literal,
    Mul,
    Neg,
    Node,
    Sum,
    add_on_path,
    children,
    encloses,
    find_subtree,
    inner_sums,
    map_leaves,
    place_reductions,
    replace,
    same_tree,
    subtrees,
    with_children,
)
from sam.notation.parse import parse_expression, parse_rhs

# ----------------------------------------------------------------------------- random trees
leaves = st.one_of(
    st.builds(lambda n, ix: Access(n, tuple(ix)), st.sampled_from("Bcd"),
              st.lists(st.sampled_from("ijk"), max_size=2, unique=True)),
    st.builds(Literal, st.sampled_from(["2", "2.0", "1.5e-3"])))


def _operators(inner: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    return st.one_of(st.builds(Mul, inner, inner), st.builds(Div, inner, inner),
                     st.builds(Add, inner, inner, st.booleans()), st.builds(Neg, inner),
                     st.builds(lambda v, c: Sum((v,), c), st.sampled_from("ijk"), inner))


trees = st.recursive(leaves, _operators, max_leaves=12)
TREES = settings(max_examples=150, deadline=None)


def path_to(node: Node, target: Node) -> list[Node]:
    """The nodes from ``node`` down to ``target`` (both included), by brute force."""
    if node is target:
        return [node]
    for c in children(node):
        below = path_to(c, target)
        if below:
            return [node, *below]
    return []


# ----------------------------------------------------------------------------- values
def test_subtrees_are_in_pre_order() -> None:
    tree = parse_rhs("B(i,j)*c(j)+-d(i)")
    assert [str(s) for s in subtrees(tree)] == [
        "B(i,j) * c(j) + -d(i)", "B(i,j) * c(j)", "B(i,j)", "c(j)", "-d(i)", "d(i)"]
    leaf = Access("x", ())
    assert subtrees(leaf) == [leaf]


def test_same_tree_compares_structure_not_columns() -> None:
    assert same_tree(parse_rhs("B(i,j)*c(j)"), parse_rhs("  B(i,j) * c(j)"))
    assert not same_tree(parse_rhs("B(i,j)"), parse_rhs("B(j,i)"))
    assert not same_tree(parse_rhs("B(i,j)*c(j)"), parse_rhs("B(i,j)/c(j)"))  # Div is no Mul
    assert not same_tree(parse_rhs("b(i)+c(i)"), parse_rhs("b(i)-c(i)"))
    assert same_tree(parse_rhs("2*b(i)"), parse_rhs("2.0*b(i)"))  # constants by value
    assert not same_tree(Sum(("i",), Access("b", ("i",))), Sum(("j",), Access("b", ("i",))))
    assert same_tree(Access("B", ("i",), label="B#2"), Access("B", ("i",)))


def test_find_subtree_matches_as_written() -> None:
    tree = parse_rhs("B(i,j)*c(j)*2+d(i)")
    found = find_subtree(tree, parse_rhs("B(i,j)*c(j)"))
    assert str(found) == "B(i,j) * c(j)"
    assert found is tree.left.left  # type: ignore[attr-defined]
    assert find_subtree(tree, parse_rhs("c(j)*2")) is None  # * groups left to right
    twice = parse_rhs("b(i)*c(i)+b(i)")
    assert find_subtree(twice, parse_rhs("b(i)")) is twice.left.left  # type: ignore[attr-defined]


def test_add_on_path() -> None:
    tree = parse_rhs("b(i)+C(i,j)*d(j)")
    c = tree.right.left  # type: ignore[attr-defined]
    assert str(c) == "C(i,j)"
    assert add_on_path(tree, c)
    assert not add_on_path(tree.right, c)  # type: ignore[attr-defined]
    assert not add_on_path(tree, tree)  # the target itself is not on the way
    assert add_on_path(Neg(tree), c)


def test_map_leaves_and_with_children() -> None:
    tree = parse_rhs("2*B(i,j)-(c(j)+2.5)")

    def name(leaf: Node) -> Node:
        return Access(f"k{leaf.text}", ()) if isinstance(leaf, Literal) else leaf

    assert str(map_leaves(tree, name)) == "k2 * B(i,j) - (c(j) + k2.5)"
    assert str(tree) == "2 * B(i,j) - (c(j) + 2.5)"  # the input is not changed
    div = parse_rhs("b(i)/c(i)")
    new = with_children(div, [Access("x", ("i",)), Access("y", ("i",))])
    assert type(new) is Div and str(new) == "x(i) / y(i)"
    sub = with_children(parse_rhs("b(i)-c(i)"), [Literal("1"), Literal("2")])
    assert str(sub) == "1 - 2"
    total = with_children(Sum(("j", "k"), Access("B", ("j", "k")), col=7), [Literal("3")])
    assert (total.vars_, str(total.child), total.col) == (("j", "k"), "3", 7)  # type: ignore[attr-defined]


def test_inner_sums() -> None:
    def sums(text: str) -> list[tuple[str, list[str]]]:
        placed = place_reductions(parse_expression(text))
        return [(str(s), outer) for s, outer in inner_sums(placed)]

    assert sums("X(i,j)=B(i,k)*C(k,j)") == []  # a root sum encloses everything
    assert sums("x(i)=b(i)-C(i,j)*d(j)") == [("sum(j, C(i,j) * d(j))", ["i"])]
    assert sums("X(i,j)=B(i,k)*C(k,j)+D(i,l)*E(l,j)") == [
        ("sum(k, B(i,k) * C(k,j))", ["i", "j"]), ("sum(l, D(i,l) * E(l,j))", ["i", "j"])]
    assert sums("x=b(i)*(C(i,j)*d(j)+e(i))") == [("sum(j, C(i,j) * d(j))", ["i"])]


# ----------------------------------------------------------------------------- properties
@TREES
@given(trees)
def test_rebuilding_a_tree_gives_the_same_tree(tree: Node) -> None:
    copy = with_children(tree, children(tree))
    assert same_tree(copy, tree) and str(copy) == str(tree)
    assert (copy is tree) == (not children(tree))
    same = map_leaves(tree, lambda leaf: leaf)
    assert same_tree(same, tree) and str(same) == str(tree)
    assert [s for s in subtrees(same) if not children(s)] == \
        [s for s in subtrees(tree) if not children(s)]  # the leaves are shared


@TREES
@given(trees, st.data())
def test_find_replace_and_paths_agree(tree: Node, data: st.DataObject) -> None:
    nodes = subtrees(tree)
    assert nodes[0] is tree
    assert len(nodes) == 1 + sum(len(subtrees(c)) for c in children(tree))
    target = data.draw(st.sampled_from(nodes))
    found = find_subtree(tree, target)
    assert found is next(n for n in nodes if same_tree(n, target))  # the first, in pre-order
    assert encloses(tree, target)
    assert add_on_path(tree, target) == any(isinstance(n, Add) for n in path_to(tree, target)[:-1])
    assert same_tree(replace(tree, target, target), tree)
    marked = replace(tree, target, Access("T", ()))
    assert len(subtrees(marked)) == len(nodes) - len(subtrees(target)) + 1
    assert find_subtree(marked, Access("T", ())) is not None
