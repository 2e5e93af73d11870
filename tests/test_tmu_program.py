"""The TMU's program layout (``sam.blocks.tmu_program``): records with named fields."""

from __future__ import annotations

import pytest

from sam.blocks.tmu_program import (
    H_OFF_STREAM,
    H_S,
    S_TU,
    SR_LAYER,
    SR_TYPE,
    STREAM,
    Record,
    compile_config,
)
from sam.tmu_ops import sls_config


def test_record_numbers_fields_in_order_and_encodes_by_name():
    rec = Record("kind", "lanes", "first", size=4)
    assert rec.fields == (0, 1, 2)
    assert rec.size == 4
    assert rec.encode(lanes=3, first=7) == [0, 3, 7, 0]
    with pytest.raises(ValueError, match="no field 'lane'"):
        rec.encode(lane=3)


def test_program_streams_read_by_field_name():
    """Each stream's record of the sls program holds its layer and type (a TU's own stream:
    ``S_TU``) in the fields the kernel reads."""
    from formats.synthetic import random_tensor

    cfg = sls_config("dae", 1)
    tensors = {"A": random_tensor((6, 4), 0.5, 1), "B": random_tensor((4, 3), 1.0, 2)}
    prog = compile_config(cfg, tensors).prog
    tus = {tu.name for tu in cfg.tus()}
    streams = cfg.all_streams()
    assert prog[H_S] == len(streams)
    at = int(prog[H_OFF_STREAM])
    for k, (name, layer, _) in enumerate(streams):
        rec = prog[at + k * STREAM.size: at + (k + 1) * STREAM.size]
        assert rec[SR_LAYER] == layer
        assert (rec[SR_TYPE] == S_TU) == (name in tus)
