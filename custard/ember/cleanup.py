"""Clean-up rewrite patterns run after each Ember pass (xDSL's pattern rewriter): unused
constant streams (``slc.to_stream``) and unused constants that the passes leave behind."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from custard.ember import slc


class DeadToStream(RewritePattern):
    """``%s = slc.to_stream %v`` whose stream nobody reads."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: slc.ToStreamOp, rewriter: PatternRewriter) -> None:
        if not op.stream.uses:
            rewriter.erase(op)


class DeadConstant(RewritePattern):
    """``arith.constant`` whose value nobody uses."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter) -> None:
        if not op.result.uses:
            rewriter.erase(op)


def cleanup(mod: ModuleOp) -> ModuleOp:
    """Remove dead constant streams and constants in place; returns ``mod``."""
    PatternRewriteWalker(GreedyRewritePatternApplier([DeadToStream(), DeadConstant()]),
                         apply_recursively=True).rewrite_module(mod)
    return mod
