"""Malformed and edge-case files (``tests/data/bad-input``, see ``/shared/data/README.md``).

Invalid files must raise one :class:`ReadError` line ``FILE:LINE: problem``; valid edge cases
must load equal to ``scipy.io.mmread``; the judgement calls behave as ``formats/mtx.py`` says.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats import ReadError, Tensor, data
from formats.frostt import read_tns
from formats.mtx import read_mtx

BAD = Path(__file__).parent / "data" / "bad-input"

#: file -> (line number in the message, or None; a fragment of the problem)
INVALID = {
    "bad_dimensions": (3, "the file ends before the size line"),
    "bad_header": (1, "unknown symmetry 'bogus'"),
    "bad_matrix_type": (1, "complex values are not supported"),
    "full_noheader": (1, "missing the Matrix Market header line"),
    "mangle1": (1, "unknown object 'junk'"),
    "mangle2": (1, "unknown format 'junk'"),
    "mangle3": (1, "unknown field 'junk'"),
    "mangle4": (1, "unknown symmetry 'junk'"),
    "mangled1": (1, "unknown object 'mangled'"),
    "mangled2": (1, "unknown format 'mangled'"),
    "mangled3": (1, "unknown field 'mangled'"),
    "mangled4": (1, "unknown symmetry 'mangled'"),
    "mangled5": (1, "'hermitian' needs complex values but the field is 'pattern'"),
    "mangled6": (1, "'hermitian' needs complex values but the field is 'real'"),
    "mangled7": (5, "expected 3 fields (ROW COL VALUE in a real file), found 2"),
    "mangled8": (4, "the size line of a coordinate file needs 3 numbers"),
    "mangled9": (4, "a symmetric matrix must be square, the size line says 3x4"),
    "mangled10": (6, "the file ends after 2 entries; the size line (line 4) declares 3"),
    "mangled11": (5, "column index 'zero' is not an integer"),
    "mangled12": (5, "expected 3 fields (ROW COL VALUE in a real file), found 2"),
    "mangled13": (7, "column index 9999 is outside 1..4"),
    "mangled15": (5, "expected 1 field (one value a line in an array file), found 2"),
    "mangled16": (5, "expected 1 field (one value a line in an array file), found 2"),
    "mangled_format": (1, "'array pattern' is not a Matrix Market combination"),
    "west0067_noheader": (1, "missing the Matrix Market header line"),
}

VALID = [
    "comments_cover", "comments_full", "comments_west0067", "empty", "matrix_bool",
    "matrix_int8", "sample", "sample2", "skew_fp32", "skew_fp64", "skew_int8", "skew_int16",
    "skew_int32", "skew_int64", "structure", "mangled_bool", "mangled_int8", "mangled_int16",
    "mangled_int32", "mangled_uint8", "mangled_uint16", "mangled_uint32", "mangled_skew",
]

JUDGEMENT = ["mangled14", "complex", "west0067_jumbled"]


def test_every_file_is_classified() -> None:
    files = {p.stem for p in BAD.glob("*.mtx")}
    assert files == set(INVALID) | set(VALID) | set(JUDGEMENT)


def assert_read_error(err: ReadError, path: Path, line: int | None, fragment: str) -> None:
    message = str(err)
    assert "\n" not in message
    assert path.name in message
    prefix = f"{path}:{line}: " if line is not None else f"{path}: "
    assert message.startswith(prefix), message
    assert err.line == line and err.path == str(path)
    assert fragment in message, message


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_files_are_refused_with_file_and_line(name: str) -> None:
    line, fragment = INVALID[name]
    path = BAD / f"{name}.mtx"
    with pytest.raises(ReadError) as info:
        read_mtx(path)
    assert_read_error(info.value, path, line, fragment)


def scipy_points(path: Path) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    ref = scipy.io.mmread(path)
    if sp.issparse(ref):
        coo = ref.tocoo()
        return np.stack([coo.row, coo.col], axis=1), coo.data.astype(float), coo.shape
    nz = np.argwhere(ref != 0)
    return nz, ref[tuple(nz.T)].astype(float), ref.shape


def assert_equals_scipy(t: Tensor, path: Path) -> None:
    coords, vals, shape = scipy_points(path)
    assert t.shape == shape
    got_c, got_v = t.to_coo()
    if any(level.letter == "d" for level in t.levels):  # dense levels: compare nonzeros only
        keep = got_v != 0
        got_c, got_v = got_c[keep], got_v[keep]
        keep = vals != 0
        coords, vals = coords[keep], vals[keep]
    a, b = np.lexsort(got_c.T[::-1]), np.lexsort(coords.T[::-1])
    np.testing.assert_array_equal(got_c[a], coords[b])
    np.testing.assert_array_equal(got_v[a], vals[b])  # nan == nan here, -0.0 == 0.0


@pytest.mark.parametrize("name", VALID)
@pytest.mark.parametrize("fmt", ["ss01", "ds", "ss10"])
def test_valid_edge_cases_equal_scipy(name: str, fmt: str) -> None:
    path = BAD / f"{name}.mtx"
    t = read_mtx(path, fmt)
    assert_equals_scipy(t, path)


def test_valid_edge_case_details() -> None:
    # explicit zeros are kept as stored zeros, like scipy
    t = read_mtx(BAD / "matrix_bool.mtx")
    assert len(t.vals) == 12 and t.nnz == 7
    # skew-symmetric: mirrored with the sign flipped; inf and int64 extremes survive
    d = read_mtx(BAD / "skew_fp64.mtx").to_dense()
    assert d[4, 0] == np.inf and d[0, 4] == -np.inf and d[3, 0] == -d[0, 3] != 0
    d = read_mtx(BAD / "skew_int64.mtx").to_dense()
    assert d[4, 0] == 9223372036854775807 and d[0, 4] == -9223372036854775807
    # nan values load as nan
    assert np.isnan(read_mtx(BAD / "comments_west0067.mtx").to_dense()[0, 0])
    # pattern entries are 1.0; an empty matrix keeps its shape
    assert set(read_mtx(BAD / "structure.mtx").vals.tolist()) == {1.0}
    e = read_mtx(BAD / "empty.mtx")
    assert e.shape == (3, 4) and len(e.vals) == 0
    # a dense array file (column-major values)
    full = read_mtx(BAD / "comments_full.mtx").to_dense()
    assert full[0].tolist() == [0.646, 0.276, 0.162]


# ------------------------------------------------------------------ judgement calls
def test_duplicates_are_refused_or_summed_on_request() -> None:
    path = BAD / "mangled14.mtx"
    with pytest.raises(ReadError) as info:
        read_mtx(path)
    assert_read_error(info.value, path, 8, "entry (2, 2) repeats the entry on line 7")
    assert "sum_duplicates=True" in str(info.value)
    t = read_mtx(path, sum_duplicates=True)
    assert t.to_dense().tolist() == [[3.0, 0, 0, 0], [0, 3.4 + 7.1, 0, 0], [0, 0, 0, 0]]


def test_complex_is_refused() -> None:
    path = BAD / "complex.mtx"
    with pytest.raises(ReadError) as info:
        read_mtx(path)
    assert_read_error(info.value, path, 1, "complex values are not supported")


def test_jumbled_entries_blank_lines_and_comments_are_accepted() -> None:
    jumbled = read_mtx(BAD / "west0067_jumbled.mtx")
    assert jumbled == read_mtx(data.path("west0067"))
    assert len(jumbled.vals) == 294


# ------------------------------------------------------------------ what scipy lets through
HEAD = "%%MatrixMarket matrix coordinate real general\n"
CRAFTED = {
    "extra_field": (HEAD + "3 3 1\n1 1 2 7\n", 3, "expected 3 fields"),
    "skew_diagonal": ("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 5\n", 3,
                      "skew-symmetric matrix has a zero diagonal"),
    "both_triangles": ("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 5\n1 2 2\n",
                       4, "same element of a symmetric matrix"),
    "too_many": (HEAD + "3 3 1\n1 1 1\n2 2 2\n", 4, "more entries than the 1 declared"),
    "zero_index": (HEAD + "3 3 1\n0 1 1\n", 3, "row index 0 is outside 1..3 (size line 2) "
                   "(Matrix Market indices are 1-based)"),
    "int_overflow": ("%%MatrixMarket matrix coordinate integer general\n3 3 1\n"
                     "1 1 99999999999999999999\n", 3, "does not fit in 64 bits"),
    "float_in_integer": ("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3,
                         "integer value '1.5' is not an integer"),
    "negative_size": (HEAD + "3 -3 0\n", 2, "negative size"),
    "text_size": (HEAD + "% c\n3 x 0\n", 3, "size 'x' is not an integer"),
    "array_count": ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5,
                    "declares 4"),
    "not_number": (HEAD + "3 3 1\n1 1 1,5\n", 3, "value '1,5' is not a number"),
    "trailing_junk": (HEAD + "3 3 1\n1 1 1x\n", 3, "value '1x' is not a number"),
    "underscore": (HEAD + "3 3 1\n1 1 1_5\n", 3, "value '1_5' is not a number"),
    "short_header": ("%%MatrixMarket matrix coordinate real\n3 3 0\n", 1, "needs 5 words"),
    "pattern_skew": ("%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 0\n", 1,
                     "cannot be skew-symmetric"),
    "header_only": (HEAD, 1, "the file ends before the size line"),
    "empty_file": ("", None, "empty file"),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_crafted_invalid_files(tmp_path: Path, case: str) -> None:
    text, line, fragment = CRAFTED[case]
    path = tmp_path / f"{case}.mtx"
    path.write_text(text)
    with pytest.raises(ReadError) as info:
        read_mtx(path)
    assert_read_error(info.value, path, line, fragment)


def test_crafted_valid_files(tmp_path: Path) -> None:
    cases = {
        # upper triangle only: out of the spec's habit but unambiguous; mirrored like scipy
        "upper": "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 2 5\n3 3 1\n",
        # a zero on a skew-symmetric diagonal is allowed
        "skew_zero": "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 2 0\n2 1 4\n",
        "array_sym": "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n",
        "array_skew": "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n",
        "crlf": HEAD.replace("\n", "\r\n") + "2 2 1\r\n1 2 3.5\r\n",
        "latin1_comment": HEAD + "% author: Jos\xe9\n2 2 1\n1 2 3.5\n",
    }
    for name, text in cases.items():
        path = tmp_path / f"{name}.mtx"
        path.write_bytes(text.encode("latin-1"))
        assert_equals_scipy(read_mtx(path), path)
    d = read_mtx(tmp_path / "array_skew.mtx").to_dense()
    assert d.tolist() == [[0, -1, -2], [1, 0, -3], [2, 3, 0]]
    # case-insensitive header words, comment between entries
    path = tmp_path / "loose.mtx"
    path.write_text("%%MatrixMarket MATRIX Coordinate Real General\n2 2 2\n1 1 1\n% c\n\n2 2 2\n")
    assert read_mtx(path).to_dense().tolist() == [[1, 0], [0, 2]]


def test_inputs_that_crash_scipy_are_safe(tmp_path: Path) -> None:
    """scipy 1.17's mmread segfaults on these; read_mtx only hands scipy checked, clean text."""
    path = tmp_path / "no_final_newline.mtx"
    path.write_bytes(HEAD.encode() + b"2 2 1\n1 1 1.5 ")  # trailing blank, no final newline
    assert read_mtx(path).to_dense().tolist() == [[1.5, 0], [0, 0]]
    path = tmp_path / "nul.mtx"
    path.write_bytes(HEAD.encode() + b"% a NUL \0 in a comment is fine\n2 2 1\n1 1 1.5e-0\0\n")
    with pytest.raises(ReadError) as info:
        read_mtx(path)
    assert_read_error(info.value, path, 4, "value '1.5e-0\\x00' is not a number")
    path = tmp_path / "junk.mtx"
    path.write_bytes(HEAD.encode() + b"6 6 10\n4 1 -.1\n1 1 infe6 1 -.37")
    with pytest.raises(ReadError) as info:
        read_mtx(path)
    assert_read_error(info.value, path, 4, "expected 3 fields")


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.mtx"
    with pytest.raises(ReadError, match=re.escape(f"{path}: no such file")):
        read_mtx(path)


# ------------------------------------------------------------------ .tns errors
TNS = {
    "ragged": ("1 1 1 1.0\n2 2 2.0\n", None, 2, "expected 4 fields (3 coordinates and a value, as "
               "on line 1), found 3"),
    "text": ("# c\n1 1 1 1.0\n1 a 1 1.0\n", None, 3, "mode-1 coordinate 'a' is not an integer"),
    "value": ("1 1 1 x\n", None, 1, "value 'x' is not a number"),
    "zero": ("1 1 1 1.0\n\n1 0 1 1.0\n", None, 3,
             "mode-1 coordinate 0 is below 1; FROSTT coordinates are 1-based: if this file is "
             "0-based read it with zero_based=True"),
    "negative": ("1 -1 1.0\n", None, 1, "mode-1 coordinate -1 is below 1"),
    "beyond": ("1 1 1.0\n3 1 1.0\n", (2, 2), 2, "mode-0 coordinate 3 is beyond the given shape "
               "(2, 2)"),
    "order": ("1 1 1.0\n", (2, 2, 2), 1, "shape (2, 2, 2) has 3 modes"),
    "empty": ("# nothing\n\n", None, None, "no entries, so the order and shape are unknown"),
    "repeat": ("1 2 1.0\n2 2 1.0\n1 2 3.0\n", None, 3, "coordinates 1 2 repeat line 1"),
}


@pytest.mark.parametrize("case", sorted(TNS))
def test_tns_errors(tmp_path: Path, case: str) -> None:
    text, shape, line, fragment = TNS[case]
    path = tmp_path / f"{case}.tns"
    path.write_text(text)
    with pytest.raises(ReadError) as info:
        read_tns(path, shape=shape)
    assert_read_error(info.value, path, line, fragment)


def test_tns_comments_blank_lines_and_options(tmp_path: Path) -> None:
    path = tmp_path / "ok.tns"
    path.write_text("# head\n\n1 2 3.5   # trailing comment\n  \n2 1 -1\n")
    t = read_tns(path, "ds")
    assert t.shape == (2, 2) and t.to_dense().tolist() == [[0, 3.5], [-1, 0]]
    assert read_tns(path, shape=(5, 4)).shape == (5, 4)
    z = read_tns(path, zero_based=True)
    assert z.shape == (3, 3) and z.to_dense()[1, 2] == 3.5
    empty = tmp_path / "e.tns"
    empty.write_text("")
    assert read_tns(empty, shape=(2, 3)).shape == (2, 3)


# ------------------------------------------------------------------ fuzzing
SEEDS = [BAD / "sample.mtx", BAD / "skew_fp64.mtx", BAD / "comments_full.mtx",
         BAD / "matrix_int8.mtx", data.path("LFAT5")]
FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def mutate(blob: bytes, draw) -> bytes:
    op = draw(st.sampled_from(["truncate", "replace", "insert", "delete"]))
    at = draw(st.integers(0, max(len(blob) - 1, 0)))
    byte = bytes([draw(st.integers(0, 255) | st.sampled_from(list(b" \n%-.0123456789e")))])
    if op == "truncate":
        return blob[:at]
    if op == "replace":
        return blob[:at] + byte + blob[at + 1:]
    if op == "insert":
        return blob[:at] + byte + blob[at:]
    return blob[:at] + blob[at + 1:]


@FUZZ
@given(st.sampled_from(SEEDS), st.data())
def test_mutated_mtx_gives_a_matrix_or_a_read_error(tmp_path: Path, seed: Path, data_) -> None:
    blob = seed.read_bytes()
    for _ in range(data_.draw(st.integers(1, 3))):
        blob = mutate(blob, data_.draw)
    path = tmp_path / "fuzz.mtx"
    path.write_bytes(blob)
    try:
        t = read_mtx(path)
    except ReadError as err:
        assert "\n" not in str(err) and str(err).startswith(str(path))
        return
    if b"\0" in blob:
        return  # scipy 1.17 can crash on NUL bytes: no reference (we refused or skipped them)
    reference = tmp_path / "reference.mtx"
    reference.write_bytes(blob.rstrip() + b"\n")  # see test_inputs_that_crash_scipy_are_safe
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scipy_points(reference)
    except Exception:  # scipy refuses some files we accept (e.g. a comment among entries)
        return
    assert_equals_scipy(t, reference)  # when both accept a file they agree


@FUZZ
@given(st.sampled_from([data.path("splatt-small"), data.path("sttid-Rnd1-zerobased")]),
       st.data())
def test_mutated_tns_gives_a_tensor_or_a_read_error(tmp_path: Path, seed: Path, data_) -> None:
    blob = seed.read_bytes()
    for _ in range(data_.draw(st.integers(1, 3))):
        blob = mutate(blob, data_.draw)
    path = tmp_path / "fuzz.tns"
    path.write_bytes(blob)
    try:
        t = read_tns(path, zero_based=data_.draw(st.booleans()))
    except ReadError as err:
        assert "\n" not in str(err) and str(err).startswith(str(path))
        return
    assert len(t.vals) >= 1
