"""``sam-sim reproduce`` as a command (issue 31): the output folder checked before any work, the
files written atomically, ``fig15`` in the help, ``fig15 --quick`` on quick-sized data without
the full-size matrix cache, and that cache drawn with a notice and kept safely."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from custard.reproduce import fig15
from custard.reproduce.common import write_csv, write_picture
from sam.cli import main


def test_missing_output_folder_is_refused_before_any_work(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    deep = tmp_path / "no" / "such" / "dir"
    start = time.monotonic()
    assert main(["reproduce", "fig12", "--quick", "-o", str(deep)]) == 1
    assert time.monotonic() - start < 5  # before any cluster or point
    assert capsys.readouterr().err == (f"sam-sim: error: -o {deep}: folder {deep.parent} does "
                                       "not exist; create it first\n")
    assert not (tmp_path / "no").exists()
    (tmp_path / "file").write_text("x")
    assert main(["reproduce", "fig12", "--quick", "-o", str(tmp_path / "file")]) == 1
    assert "is a file, not a folder" in capsys.readouterr().err
    assert main(["reproduce", "fig12", "--quick", "-o", str(tmp_path / "out"), "--cache",
                 str(deep)]) == 1
    assert capsys.readouterr().err.startswith(f"sam-sim: error: --cache {deep}: folder ")
    assert not (tmp_path / "out").exists() and not (tmp_path / "no").exists()


def test_one_level_of_output_folder_is_created(tmp_path: Path) -> None:
    out = tmp_path / "new"
    assert main(["reproduce", "table1", "-o", str(out), "--scheduler", "sync",
                 "--no-progress"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["table1-claims.md", "table1.csv",
                                                     "table1.png"]


def test_outputs_are_written_atomically(tmp_path: Path) -> None:
    png, csv = tmp_path / "x.png", tmp_path / "x.csv"
    png.write_bytes(b"old picture")
    csv.write_text("old,table\n")

    def broken(path: Path) -> None:
        path.write_bytes(b"half a pic")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_picture(png, broken)
    assert png.read_bytes() == b"old picture"
    write_picture(png, lambda p: p.write_bytes(b"\x89PNG new"))
    assert png.read_bytes() == b"\x89PNG new"
    with pytest.raises(TypeError):
        write_csv(csv, [{"series": "a", "x": 1, "cycles": 2}, None])  # type: ignore[list-item]
    assert csv.read_text() == "old,table\n"
    write_csv(csv, [{"series": "a", "x": 1, "cycles": 2, "more": 0.5}])
    assert csv.read_bytes() == b"series,x,cycles,more\r\na,1,2,0.5\r\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv", "x.png"]


def test_fig15_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    out = capsys.readouterr().out
    name_help = " ".join(out.split("positional arguments:")[1].split("options:")[0].split())
    assert "lanes, mlir-fusion, fig15 (not part of all), or all" in name_help
    assert "\n  fig15    tiled Gustavson" in out


def test_fig15_quick_needs_no_matrix_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A fresh machine (empty cache folder): seconds, quick-sized data, no full-size matrix
    drawn or kept."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-home"))
    start = time.monotonic()
    assert main(["reproduce", "fig15", "--quick", "-o", str(tmp_path / "out"), "--scheduler",
                 "sync", "--no-progress"]) == 0
    assert time.monotonic() - start < 60
    assert not (tmp_path / "cache-home" / "sam-fig15").exists()
    assert "fig15: 5 PASS, 1 FAIL" in capsys.readouterr().out
    br, bc, _, _ = fig15.matrices(15720, 200, exact=False)
    assert len(set(zip(br.tolist(), bc.tolist(), strict=True))) == 200


def test_fig15_matrix_cache_drawn_once_with_a_notice(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The original's matrices are drawn in its order from one generator, once: each point's
    positions and the generator's state after it are kept, so a later point resumes there."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fig15._positions.cache_clear()
    fig15.prepare([1024], [5000, 777], progress=False)  # 777: not a point of the sweep
    err = capsys.readouterr().err
    assert err == ("fig15: drawing the original's matrices once: 1 missing, up to 1 draw(s) "
                   f"of its generator (up to a few minutes; kept in {tmp_path / 'sam-fig15'})\n")
    assert sorted(p.name for p in (tmp_path / "sam-fig15").iterdir()) == [
        "chain-5000-1024-state.npy", "chain-5000-1024.npy"]
    rs = np.random.RandomState(0)
    want = rs.permutation(1024 * 1024)[:5000]
    assert np.array_equal(np.load(fig15.positions_file(5000, 1024)), want)
    want2 = rs.permutation(2360 * 2360)[:5000]  # the next draw of the same generator
    fig15.prepare([1024], [5000], progress=False)  # kept: nothing to draw
    assert capsys.readouterr().err == ""
    fig15.prepare([2360], [5000], progress=False)  # resumes from the kept state
    assert "1 missing, up to 2 draw(s)" in capsys.readouterr().err
    assert np.array_equal(np.load(fig15.positions_file(5000, 2360)), want2)
    # a kept state is where the next draw starts: a foreign one shows it
    _, key, at, _, _ = np.random.RandomState(1).get_state()
    np.save(fig15.state_file(5000, 1024), np.append(key.astype(np.int64), at))
    fig15.positions_file(5000, 2360).unlink()
    fig15._positions.cache_clear()
    fig15.prepare([2360], [5000], progress=False)
    capsys.readouterr()
    assert np.array_equal(np.load(fig15.positions_file(5000, 2360)),
                          np.random.RandomState(1).permutation(2360 * 2360)[:5000])
    fig15.positions_file(5000, 2360).write_bytes(b"not an npy file")  # damaged: drawn again
    np.save(fig15.positions_file(5000, 1024), np.arange(5))  # wrong shape: drawn again
    fig15._positions.cache_clear()
    fig15.prepare([1024, 2360], [5000], progress=False)
    assert "2 missing, up to 2 draw(s)" in capsys.readouterr().err
    assert np.array_equal(np.load(fig15.positions_file(5000, 2360)), want2)
    assert np.array_equal(fig15.matrices(1024, 5000)[0], want % 1024)
    fig15._positions.cache_clear()
