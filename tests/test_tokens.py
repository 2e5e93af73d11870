"""Stream tokens and their printed notation (SAM paper Sec. 3.2): ``sam.runtime.tokens``."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.errors import ToolkitError
from sam.runtime.tokens import (
    DATA,
    DONE,
    EMPTY,
    STOP,
    D,
    N,
    R,
    Stop,
    StreamError,
    decode,
    describe_token,
    encode,
    format_stream,
    parse_stream,
)

FIG1_VALS = "1, S0, 2, 3, S0, 4, 5, S1, D"


def test_parse_figure1_value_stream():
    """Sec. 3.2: the value stream of Figure 1d is the nested list ((1), (2, 3), (4, 5))."""
    toks = parse_stream(FIG1_VALS, "val")
    assert toks == [1.0, Stop(0), 2.0, 3.0, Stop(0), 4.0, 5.0, Stop(1), D]
    assert all(isinstance(t, float) for t in toks if not isinstance(t, Stop) and t is not D)
    assert format_stream(toks) == FIG1_VALS


def test_parse_crd_gives_ints_and_control_tokens():
    toks = parse_stream("0, 1, S0, N, S12, R, D")
    assert toks == [0, 1, Stop(0), N, Stop(12), R, D]
    assert isinstance(toks[0], int)
    assert format_stream(toks) == "0, 1, S0, N, S12, R, D"


def test_parse_tolerates_spacing_and_empty_items():
    assert parse_stream(" 3 ,S1,  D ,") == [3, Stop(1), D]
    assert parse_stream("") == []
    assert format_stream([]) == ""


def test_format_values():
    assert format_stream([2.5, -1.0, 0.0, 7.0, Stop(0), D]) == "2.5, -1, 0, 7, S0, D"
    assert format_stream([math.inf, -math.inf, math.nan, D]) == "inf, -inf, nan, D"


@pytest.mark.parametrize("bad", ["1, x, D", "S, D", "1.5, D", "s0, D", "S-1, D"])
def test_parse_rejects_unknown_tokens(bad):
    with pytest.raises(StreamError, match="cannot read stream token"):
        parse_stream(bad)
    assert issubclass(StreamError, ToolkitError)


def test_val_stream_rejects_words():
    with pytest.raises(StreamError):
        parse_stream("1.5, abc, D", "val")


def test_control_tokens_print_and_pickle():
    assert (repr(N), repr(D), repr(R), repr(Stop(3))) == ("N", "D", "R", "S3")
    assert pickle.loads(pickle.dumps(N)) is N
    assert pickle.loads(pickle.dumps(D)) is D
    assert Stop(2) == Stop(2) and Stop(2) != Stop(1)


def test_encode_decode_crd():
    toks = parse_stream("4, 0, S0, N, S2, D")
    kinds, data = encode(toks)
    assert kinds.tolist() == [DATA, DATA, STOP, EMPTY, STOP, DONE]
    assert data.tolist() == [4, 0, 0, 0, 2, 0]
    assert kinds.dtype == np.int8 and data.dtype == np.int64
    assert decode(kinds, data) == toks


def test_encode_decode_val_uses_float_bits():
    toks = parse_stream("2.5, -1, N, S0, D", "val")
    kinds, data = encode(toks, "val")
    assert data.view(np.float64)[0] == 2.5
    assert decode(kinds, data, "val") == toks
    # The same payloads read as coordinates are the raw bits, not the values.
    assert decode(kinds, data)[0] != 2


def test_encode_decode_repsig():
    toks = parse_stream("R, R, S0, R, S1, D")
    kinds, data = encode(toks, "repsig")
    assert kinds.tolist() == [DATA, DATA, STOP, DATA, STOP, DONE]
    assert format_stream(decode(kinds, data, "repsig")) == "R, R, S0, R, S1, D"


def test_describe_token():
    assert describe_token(STOP, 3) == "S3"
    assert describe_token(DATA, 7) == "7"
    assert describe_token(EMPTY, 0) == "N"
    assert describe_token(DONE, 0) == "D"
    bits = int(np.array([2.5]).view(np.int64)[0])
    assert describe_token(DATA, bits, "val") == "2.5"
    assert describe_token(DATA, 0, "repsig") == "R"


_control = st.one_of(st.builds(Stop, st.integers(0, 5)), st.just(N))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 10**12), _control), max_size=30))
def test_crd_round_trip(toks):
    toks = toks + [D]
    text = format_stream(toks)
    assert parse_stream(text) == toks
    assert decode(*encode(toks)) == toks


@settings(max_examples=50, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=False, width=64), _control), max_size=30))
def test_val_round_trip(toks):
    toks = toks + [D]
    assert decode(*encode(toks, "val"), "val") == toks
    assert parse_stream(format_stream(toks), "val") == toks
