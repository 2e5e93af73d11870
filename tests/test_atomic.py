"""Writers of results never leave a half-written file: a failed write keeps the old one intact.

Failures are simulated by raising from inside the writers (a full disk, an interrupt, a value
that cannot be converted); the streamed ``.mtx``/``.tns`` output is byte for byte what the
one-string writer produced.
"""

from __future__ import annotations

import errno
import os
import stat
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import formats.mtx
from formats.atomic import atomic_write, write_bytes
from formats.errors import FormatError, ToolkitError
from formats.frostt import read_tns, write_tns
from formats.io import load_tensor, save_tensor
from formats.mtx import read_mtx, write_mtx
from formats.tensor import Tensor

OLD = b"the old file\n"


def matrix(n: int = 20, nnz: int = 60, seed: int = 0) -> Tensor:
    rng = np.random.default_rng(seed)
    flat = rng.choice(n * n, nnz, replace=False)
    vals = rng.standard_normal(nnz) * 10.0 ** rng.integers(-20, 20, nnz)
    vals[:4] = [np.inf, -np.inf, np.nan, -0.0]
    return Tensor.from_coo(np.stack(np.unravel_index(flat, (n, n)), 1), vals, (n, n), "ss10",
                           name="M")


def old_mtx_text(t: Tensor) -> str:
    """What the writer produced before it streamed (one string; the reference)."""
    coords, vals = formats.mtx.stored_points(t)
    order = np.lexsort((coords[:, 1], coords[:, 0]))
    coords, vals = coords[order], vals[order]
    out = [formats.mtx.EXAMPLE_HEADER, "% written by sam-toolkit (formats.mtx)"]
    if t.name:
        out.append(f"% name: {t.name}")
    out.append(f"{t.shape[0]} {t.shape[1]} {len(vals)}")
    out.extend(f"{r + 1} {c + 1} {v!r}" for (r, c), v in zip(coords.tolist(), vals.tolist(),
                                                             strict=True))
    return "\n".join(out) + "\n"


def old_tns_text(t: Tensor, base: int) -> str:
    coords, vals = formats.mtx.stored_points(t)
    if len(vals) and t.order:
        order = np.lexsort(coords.T[::-1])
        coords, vals = coords[order], vals[order]
    shape = " ".join(str(s) for s in t.shape) or "scalar"
    out = [f"# {t.name or 'tensor'}: shape {shape}, {len(vals)} points, {base}-based "
           "(written by sam-toolkit)"]
    for point, value in zip((coords + base).tolist(), vals.tolist(), strict=True):
        out.append(" ".join([*(str(c) for c in point), repr(value)]))
    return "\n".join(out) + "\n"


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


# --------------------------------------------------------------------------- byte identity
@pytest.mark.parametrize("fmt", ["ss01", "ss10", "ds01", "dd10", "sd01"])
def test_streamed_mtx_is_the_old_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      fmt: str) -> None:
    monkeypatch.setattr(formats.mtx, "CHUNK", 7)  # many chunks
    t = matrix().with_format(fmt)
    t.name = "M"
    write_mtx(t, tmp_path / "m.mtx")
    assert (tmp_path / "m.mtx").read_text() == old_mtx_text(t)
    back = read_mtx(tmp_path / "m.mtx", fmt)
    assert back.to_dense().tobytes() == t.to_dense().tobytes()  # exact, NaN included
    if "d" not in fmt:  # every stored value comes back, -0.0 included
        assert back.vals.tobytes() == t.vals.tobytes()


@pytest.mark.parametrize("base", [0, 1])
def test_streamed_tns_is_the_old_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      base: int) -> None:
    monkeypatch.setattr(formats.mtx, "CHUNK", 5)
    rng = np.random.default_rng(3)
    coords = np.unique(rng.integers(0, 6, (40, 3)), axis=0)
    t = Tensor.from_coo(coords, rng.standard_normal(len(coords)), (6, 6, 6), "sss:2,0,1",
                        name="T")
    write_tns(t, tmp_path / "t.tns", zero_based=base == 0)
    assert (tmp_path / "t.tns").read_text() == old_tns_text(t, base)
    assert read_tns(tmp_path / "t.tns", "sss:2,0,1", shape=(6, 6, 6),
                    zero_based=base == 0) == t
    for scalar in (Tensor.scalar(2.5, "s"), Tensor.from_coo(np.zeros((0, 2)), [], (3, 4))):
        write_tns(scalar, tmp_path / "s.tns")
        assert (tmp_path / "s.tns").read_text() == old_tns_text(scalar, 1)


def test_names_with_line_breaks_stay_one_comment_line(tmp_path: Path) -> None:
    """A tensor name is written into a comment line; a line break in it would have broken the
    file (and a non-ASCII name made an internal error)."""
    t = matrix()
    t.name = "two\nlines ü"
    write_mtx(t, tmp_path / "m.mtx")
    assert "% name: two\\nlines \\xfc\n" in (tmp_path / "m.mtx").read_text()
    assert read_mtx(tmp_path / "m.mtx", "ss10").vals.tobytes() == t.vals.tobytes()
    write_tns(t, tmp_path / "t.tns")
    assert (tmp_path / "t.tns").read_text().startswith("# two\\nlines \\xfc: shape 20 20")


def test_streaming_keeps_memory_small() -> None:
    """Writing 300,000 points: the arrays of stored points and a chunk of lines, not one string
    for the whole file (which took about 300 bytes a point)."""
    rng = np.random.default_rng(0)
    n = 300_000
    m = sp.coo_matrix((rng.standard_normal(n), (rng.integers(0, 4000, n),
                                                rng.integers(0, 4000, n))), shape=(4000, 4000))
    t = Tensor.from_scipy(m.tocsr(), "ss01")
    tracemalloc.start()
    try:
        write_mtx(t, os.devnull)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * len(t.vals)


# --------------------------------------------------------------------------- failed writes
def disk_full(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def half_then(error: BaseException):
    """A write_points that writes some lines, then fails with ``error``."""
    def write(out, coords, vals, base) -> None:
        out.write(b"1 1 1.0\n" * 1000)
        raise error
    return write


@pytest.mark.parametrize("suffix", [".mtx", ".tns"])
@pytest.mark.parametrize("error, expected", [
    (OSError(errno.ENOSPC, "No space left on device"), ToolkitError),
    (KeyboardInterrupt(), KeyboardInterrupt),
    (ValueError("cannot convert"), ValueError),
])
def test_failed_text_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              suffix: str, error: BaseException,
                                              expected: type) -> None:
    path = tmp_path / f"X{suffix}"
    path.write_bytes(OLD)
    monkeypatch.setattr(f"formats.{'mtx' if suffix == '.mtx' else 'frostt'}.write_points",
                        half_then(error))
    with pytest.raises(expected) as err:
        save_tensor(matrix(), path)
    if expected is ToolkitError:
        assert str(err.value) == f"{path}: cannot write: No space left on device"
    assert path.read_bytes() == OLD and leftovers(tmp_path) == []


@pytest.mark.parametrize("suffix, target", [(".npy", "numpy.save"),
                                            (".npz", "scipy.sparse.save_npz")])
def test_failed_binary_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                suffix: str, target: str) -> None:
    path = tmp_path / f"X{suffix}"
    path.write_bytes(OLD)
    monkeypatch.setattr(target, disk_full)
    with pytest.raises(ToolkitError, match=f"^{path}: cannot write: No space left on device$"):
        save_tensor(matrix(), path)
    assert path.read_bytes() == OLD and leftovers(tmp_path) == []


def test_refused_tensor_keeps_the_old_file(tmp_path: Path) -> None:
    """The issue's case: an order-3 result to .mtx or .npz fails before anything is written."""
    t = load_tensor("splatt-small")
    for suffix in (".mtx", ".npz"):
        path = tmp_path / f"X{suffix}"
        path.write_bytes(OLD)
        with pytest.raises(FormatError):
            save_tensor(t, path)
        assert path.read_bytes() == OLD
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("suffix", [".mtx", ".tns", ".npy", ".npz"])
def test_successful_write_replaces_and_keeps_permissions(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"X{suffix}"
    path.write_bytes(OLD)
    path.chmod(0o640)
    save_tensor(matrix(), path)
    assert path.read_bytes() != OLD and stat.S_IMODE(path.stat().st_mode) == 0o640
    np.testing.assert_array_equal(load_tensor(path).to_dense(), matrix().to_dense())
    assert leftovers(tmp_path) == []


def test_new_file_gets_the_usual_permissions(tmp_path: Path) -> None:
    mask = os.umask(0o027)
    try:
        save_tensor(matrix(), tmp_path / "new.mtx")
        reference = tmp_path / "ref"
        reference.write_text("x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.mtx").stat().st_mode) == 0o640
    assert stat.S_IMODE(reference.stat().st_mode) == 0o640


def test_symlink_is_followed(tmp_path: Path) -> None:
    real = tmp_path / "real.mtx"
    real.write_bytes(OLD)
    link = tmp_path / "link.mtx"
    link.symlink_to(real)
    save_tensor(matrix(), link)
    assert link.is_symlink() and real.read_bytes().startswith(b"%%MatrixMarket")


def test_unwritable_places(tmp_path: Path) -> None:
    with pytest.raises(ToolkitError, match="missing/X.mtx: cannot write: No such file or "
                                           "directory$"):
        save_tensor(matrix(), tmp_path / "missing" / "X.mtx")
    (tmp_path / "d.npy").mkdir()
    with pytest.raises(ToolkitError, match=r"d\.npy: cannot write: it is a directory$"):
        save_tensor(matrix(), tmp_path / "d.npy")
    assert leftovers(tmp_path) == []


def test_devices_are_written_directly() -> None:
    write_mtx(matrix(), os.devnull)  # no temporary file in /dev, no rename over /dev/null
    with atomic_write(os.devnull) as out:
        out.write(b"x")
    assert Path(os.devnull).exists() and not Path(os.devnull).is_file()


def test_write_bytes(tmp_path: Path) -> None:
    write_bytes(tmp_path / "a", b"abc")
    write_bytes(tmp_path / "a", b"de")
    assert (tmp_path / "a").read_bytes() == b"de" and leftovers(tmp_path) == []


def test_atomic_path_gives_a_named_file_the_rules_of_atomic_write(tmp_path: Path) -> None:
    """A writer that wants a file name (matplotlib) gets a temporary with the suffix; the
    result has the replaced file's permissions (a new one: 0o666 less the umask), and a failed
    write leaves the old file and no temporary."""
    from formats.atomic import atomic_path

    old = tmp_path / "t.png"
    old.write_bytes(b"old")
    os.chmod(old, 0o640)
    with atomic_path(old) as temp:
        assert temp.suffix == ".png" and temp.parent == tmp_path
        temp.write_bytes(b"new")
    assert old.read_bytes() == b"new" and stat.S_IMODE(old.stat().st_mode) == 0o640
    new = tmp_path / "n.svg"
    with atomic_path(new) as temp:
        temp.write_bytes(b"<svg/>")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~mask
    with pytest.raises(RuntimeError), atomic_path(old) as temp:
        temp.write_bytes(b"half")
        raise RuntimeError("the writer failed")
    assert old.read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == \
        ["n.svg", "t.png"]
