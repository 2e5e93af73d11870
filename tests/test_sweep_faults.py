"""Dask sweeps under faults (issue 31), with real ``dask scheduler`` and ``dask worker`` processes
on 127.0.0.1 started here: workers running other code are refused, naming them; a worker, the
client or the scheduler killed mid-sweep leaves a cache from which the rerun's CSV is byte for
byte a clean run's; a non-Dask address fails within seconds; a wrong-shape cache entry is
computed again with a notice; two writers of one point both succeed; Ctrl-C is one line.

The sweep (``tests/helpers/sweep_driver.py``) is :data:`POINTS` through :func:`slow_point` (each
point sleeps ``SWEEP_TEST_SLEEP`` seconds on the workers, so there is a "mid-sweep"), driven by
:func:`main`, a command that goes through the toolkit's top-level error handler like ``sam-sim``.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from custard.sweeps.errors import SweepError
from custard.sweeps.sweep import Sweeper

from helpers.sweep_driver import POINTS, main, slow_point

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
#: seconds each point takes on the cluster's workers
SLEEP = 0.3


# ---------------------------------------------------------------------------- processes
def _env(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DASK_", "SWEEP_TEST"))}
    env.update(PYTHONPATH=f"{root}{os.pathsep}{TESTS}", **extra)
    return env


def _dask(*args: str) -> list[str]:
    cli = Path(sys.executable).with_name("dask")
    if cli.exists():
        return [str(cli), *args]
    return [sys.executable, "-m", f"distributed.cli.dask_{args[0]}", *args[1:]]


def _driver(scheduler: str, cache: Path, out: Path) -> list[str]:
    """The command line of :func:`main` in a process of its own."""
    return [sys.executable, "-c", "import sys, helpers.sweep_driver as t; sys.exit(t.main())",
            "--scheduler", scheduler, "--cache", str(cache), "--out", str(out)]


class Cluster:
    """A ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1, killed at the end."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.procs: dict[str, subprocess.Popen] = {}
        self.address = ""
        self.workers: dict[str, str] = {}  # name -> address

    def start(self, name: str, cmd: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = (self.tmp / f"{name}.log").open("w")
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs[name] = proc
        return proc

    def scheduler(self) -> None:
        info = self.tmp / "scheduler.json"
        self.start("scheduler", _dask("scheduler", "--host", "127.0.0.1", "--port", "0",
                                      "--dashboard-address", "127.0.0.1:0", "--no-dashboard",
                                      "--scheduler-file", str(info)), _env(ROOT))
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.address = json.loads(info.read_text())["address"]

    def worker(self, name: str, root: Path, *extra: str) -> None:
        self.start(name, _dask("worker", self.address, "--host", "127.0.0.1", "--nthreads", "1",
                               "--no-nanny", "--no-dashboard", "--dashboard-address",
                               "127.0.0.1:0", "--name", name, *extra),
                   _env(root, SWEEP_TEST_SLEEP=str(SLEEP)))

    def wait_for(self, names: set[str]) -> None:
        from distributed import Client

        with Client(self.address, timeout="60s", set_as_default=False) as client:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                info = client.scheduler_info()["workers"]
                self.workers = {w["name"]: a for a, w in info.items()}
                if set(self.workers) == names:
                    return
                time.sleep(0.1)
        raise AssertionError(f"workers {sorted(self.workers)} != {sorted(names)}")

    def run_on_workers(self, fn: Any) -> dict[str, Any]:
        from distributed import Client

        with Client(self.address, timeout="60s", set_as_default=False) as client:
            return client.run(fn)

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        proc.kill()
        proc.wait()

    def close(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _copy_toolkit(dest: Path) -> Path:
    for pkg in ("formats", "sam", "custard"):
        shutil.copytree(ROOT / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """S + W1, W2 (this toolkit) + W3 (a copy of it, ``formats`` imported at start)."""
    tmp = tmp_path_factory.mktemp("cluster")
    copy = _copy_toolkit(tmp / "copy-a")
    c = Cluster(tmp)
    try:
        c.scheduler()
        c.worker("w1", ROOT)
        c.worker("w2", ROOT)
        c.worker("w3", copy, "--preload", "formats")
        c.wait_for({"w1", "w2", "w3"})
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def clean_csv(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The CSV of a clean run (in this process, no cluster)."""
    tmp = tmp_path_factory.mktemp("clean")
    assert main(["--scheduler", "sync", "--cache", str(tmp / "c"), "--out",
                 str(tmp / "clean.csv")]) == 0
    return (tmp / "clean.csv").read_bytes()


def _wait_for_entries(cache: Path, n: int, proc: subprocess.Popen, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while len(list(cache.glob("*/*.json"))) < n:
        assert proc.poll() is None, "the sweep ended before it could be interrupted"
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.02)


def _run(cmd: list[str], env: dict[str, str], timeout: float = 120
         ) -> subprocess.CompletedProcess:
    """``cmd`` run from the tests' folder (``python -c`` puts the current folder first on
    the path: not the repository's root, whose packages would shadow a copy's)."""
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd=TESTS)


#: processes :func:`_start` started, ended after each test if still running
STARTED: list[subprocess.Popen] = []


def _terminal_sigint() -> None:
    """In the child before it runs: SIGINT back to its default (Python then raises
    KeyboardInterrupt), whatever the test process inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(cmd: list[str], env: dict[str, str], **kw: Any) -> subprocess.Popen:
    """``cmd`` started from the tests' folder (see :func:`_run`), its output captured, in a
    session of its own (its local cluster's workers are ended with it), with Ctrl-C handled as
    on a terminal even when the tests run in the background (which ignores SIGINT)."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, stdin=subprocess.DEVNULL, cwd=TESTS,
                            start_new_session=True, preexec_fn=_terminal_sigint, **kw)
    STARTED.append(proc)
    return proc


@pytest.fixture(autouse=True)
def _end_started() -> Iterator[None]:
    """A test that fails half-way leaves no sweep running."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


# ---------------------------------------------------------------------------- the tests
def test_workers_with_other_code_are_refused(cluster: Cluster, tmp_path: Path) -> None:
    """A client whose code differs from W1's and W2's files, and W3 whose files equal the
    client's but changed after W3 loaded them (it runs the old code): all three named, nothing
    computed or cached."""
    cluster.run_on_workers(lambda: __import__("formats").LOADED_AT)  # every worker has loaded
    client_copy = _copy_toolkit(tmp_path / "copy-b")
    for root in (client_copy, cluster.tmp / "copy-a"):
        with (root / "formats" / "errors.py").open("a") as fh:
            fh.write("# a change after the workers started\n")
    cache = tmp_path / "cache"
    start = time.monotonic()
    res = _run(_driver(cluster.address, cache, tmp_path / "x.csv"),
               _env(client_copy))
    assert res.returncode == 1, res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"sweep-test: error: --scheduler "
                                                   f"{cluster.address}: 3 of 3 worker(s)")
    w = cluster.workers
    for name in ("w1", "w2"):
        assert f"{w[name]} (other toolkit files" in lines[0]
    assert f"{w['w3']} (its files changed after it loaded them (formats/errors.py)" in lines[0]
    w3 = lines[0].split(w["w3"])[1].split("; tcp://")[0].split("; restart")[0]
    assert "other toolkit files" not in w3  # its files are the client's: its loaded code is not
    assert not cache.exists() or not list(cache.rglob("*.json"))
    assert not (tmp_path / "x.csv").exists()
    assert time.monotonic() - start < 30
    cluster.kill("w3")
    cluster.wait_for({"w1", "w2"})


def test_client_killed_mid_sweep_resumes(cluster: Cluster, clean_csv: bytes,
                                         tmp_path: Path) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out.csv"
    cmd = _driver(cluster.address, cache, out)
    proc = _start(cmd, _env(ROOT))
    _wait_for_entries(cache, 2, proc)
    proc.kill()
    proc.communicate()
    kept = len(list(cache.glob("*/*.json")))
    assert 2 <= kept < len(POINTS) and not out.exists()
    res = _run(cmd, _env(ROOT))
    assert res.returncode == 0, res.stderr
    assert f"cached {kept}" in res.stdout and res.stderr == ""
    assert out.read_bytes() == clean_csv


def test_worker_killed_mid_sweep(cluster: Cluster, clean_csv: bytes, tmp_path: Path) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out.csv"
    proc = _start(_driver(cluster.address, cache, out), _env(ROOT))
    _wait_for_entries(cache, 2, proc)
    cluster.kill("w2")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert stdout == f"computed {len(POINTS)}, cached 0\n" and stderr == ""
    assert out.read_bytes() == clean_csv


def test_a_worker_address_is_not_a_scheduler(cluster: Cluster, tmp_path: Path) -> None:
    worker = cluster.workers["w1"]
    with pytest.raises(SweepError, match=rf"^--scheduler {worker}: not a Dask scheduler "
                       r"\(a Dask Worker: give the scheduler's address\)$"):
        with Sweeper(tmp_path, worker, progress=False) as s:
            s.run(slow_point, POINTS)
    assert not list(tmp_path.rglob("*.json"))


def test_scheduler_killed_mid_sweep(cluster: Cluster, clean_csv: bytes, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out.csv"
    proc = _start(_driver(cluster.address, cache, out), _env(ROOT))
    _wait_for_entries(cache, 2, proc)
    cluster.kill("scheduler")
    start = time.monotonic()
    stdout, stderr = proc.communicate(timeout=120)
    assert time.monotonic() - start < 15
    assert proc.returncode == 1, stderr
    assert stderr.startswith(f"sweep-test: error: --scheduler {cluster.address}: lost the Dask "
                             "scheduler mid-sweep")
    assert len(stderr.splitlines()) == 1 and "run the command again to resume" in stderr
    kept = len(list(cache.glob("*/*.json")))
    assert kept >= 2 and not out.exists()
    assert main(["--scheduler", "sync", "--cache", str(cache), "--out", str(out)]) == 0
    assert f"cached {kept}" in capsys.readouterr().out
    assert out.read_bytes() == clean_csv


class _Silent(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def test_non_dask_address_fails_in_seconds(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """An HTTP server as --scheduler: one line within the 5 s handshake, not a hang."""
    from sam.cli import main as sam_main

    server = http.server.HTTPServer(("127.0.0.1", 0), _Silent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        address = f"tcp://127.0.0.1:{server.server_address[1]}"
        start = time.monotonic()
        assert sam_main(["reproduce", "fig13", "--quick", "--scheduler", address, "-o",
                         str(tmp_path / "out"), "--no-progress"]) == 1
        took = time.monotonic() - start
    finally:
        server.shutdown()
        server.server_close()
    err = capsys.readouterr().err
    assert err == (f"sam-sim: error: --scheduler {address}: not a Dask scheduler (no Dask "
                   "handshake within 5 s)\n")
    assert took < 10
    assert not list((tmp_path / "out").rglob("*.json"))


def test_wrong_shape_cache_entries_are_computed_again(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    with Sweeper(tmp_path, "sync", progress=False) as s:
        want = s.run(slow_point, POINTS)
    files = sorted((tmp_path / "sweep_driver").glob("*.json"))
    assert len(files) == len(POINTS)
    entry = json.loads(files[0].read_text())
    bad = ["null", "[]", "{}", '"text"', "{ half", json.dumps({**entry, "result": None}),
           json.dumps({**entry, "result": [1, 2]}),
           json.dumps({**entry, "result": {**entry["result"], "square": "9"}}),
           json.dumps({k: v for k, v in entry.items() if k != "checksum"}),
           json.dumps({**entry, "point": {"k": "0"}})]
    for text in bad:
        for f in files:
            f.write_text(text)
        with Sweeper(tmp_path, "sync", progress=False) as s:
            assert s.run(slow_point, POINTS) == want, text
            assert (s.ran, s.cached) == (len(POINTS), 0)
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith("sam-sim reproduce: notice: cache entry "), err
        assert err[0].endswith(f"(and {len(POINTS) - 1} more); computing them again"), err
    with Sweeper(tmp_path, "sync", progress=False) as s:  # and now they are good again
        assert s.run(slow_point, POINTS) == want and (s.ran, s.cached) == (0, len(POINTS))
    assert capsys.readouterr().err == ""


def test_the_key_covers_configurations_data_and_named_files(tmp_path: Path) -> None:
    """The toolkit's hash covers the memory configurations and shipped data, not only code;
    a point naming a file (``--matrices``) is keyed by that file's contents."""
    from custard.sweeps import identity
    from custard.sweeps.sweep import point_key

    files = {str(p.relative_to(identity.ROOT)) for p in identity.toolkit_files()}
    assert {"sam/memory_configs/extensor_17M_llb.yaml", "formats/data/suitesparse/west0067.mtx",
            "custard/sweeps/sweep.py"} <= files
    assert not any("__pycache__" in f for f in files)
    mtx = tmp_path / "a.mtx"
    mtx.write_text("first")
    point = {"source": str(mtx), "engine": "fast"}
    first = point_key(slow_point, point)
    assert point_key(slow_point, point) == first
    mtx.write_text("second, longer")
    assert point_key(slow_point, point) != first
    assert point_key(slow_point, {"source": "a.mtx", "engine": "fast"}) != first


WRITER = """
import sys
from pathlib import Path
from custard.sweeps.sweep import Sweeper
import helpers.sweep_driver as t
s = Sweeper(Path(sys.argv[1]), "sync")
for n in range(int(sys.argv[2])):
    s._store(t.slow_point, t.POINTS[0], {"square": n, "ratio": 0.5, "name": sys.argv[3]})
"""


def test_two_writers_of_one_point_both_succeed(tmp_path: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), "300", name],
                              env=_env(ROOT), stderr=subprocess.PIPE, text=True, cwd=TESTS)
             for name in ("a", "b")]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    files = list(tmp_path.rglob("*"))
    assert [f.name.endswith(".json") for f in files if f.is_file()] == [True]  # no leftovers
    with Sweeper(tmp_path, "sync", progress=False) as s:
        got = s.run(slow_point, POINTS[:1])
        assert s.cached == 1 and got[0]["square"] == 299 and got[0]["name"] in "ab"


def test_a_point_refuses_a_worker_with_other_code() -> None:
    """The check every point makes on its worker before it computes (a worker that joined
    after the sweep started, or whose files changed meanwhile)."""
    from custard.sweeps import sweep

    name = "helpers.sweep_driver:slow_point"
    assert sweep._call(name, {"k": 3}, sweep.code_hash(), {})["square"] == 9
    with pytest.raises(SweepError, match=r"^a worker would compute with other code than "
                       r"this command: other toolkit files \(hash "):
        sweep._call(name, {"k": 3}, "0123456789abcdef", {})


def test_a_point_that_kills_its_workers(tmp_path: Path) -> None:
    """Point 1 kills every worker that runs it (the local cluster's nanny restarts them): one
    line after Dask's allowed failures, exit 1, the other points cached."""
    cache, out = tmp_path / "cache", tmp_path / "out.csv"
    res = _run([*_driver("", cache, out)[:3], "--cache", str(cache), "--out", str(out),
                "--workers", "1", "--crash"], _env(ROOT))
    assert res.returncode == 1, res.stderr
    assert res.stderr.startswith("sweep-test: error: the local Dask cluster: workers died again "
                                 "and again while running point ")
    assert len(res.stderr.splitlines()) == 1 and "run the command again to resume" in res.stderr
    assert not out.exists()


class _Recomputed:
    """A future whose result was lost with its worker (status ``lost``), then computed again."""

    def __init__(self) -> None:
        self.status, self.waits = "lost", 0

    def result(self, timeout: float | None = None) -> dict[str, Any]:
        self.waits += 1
        if self.waits == 1:
            raise TimeoutError  # still being computed again
        self.status = "finished"
        return {"square": 4}


def test_a_result_lost_with_its_worker_is_waited_for(tmp_path: Path) -> None:
    """The race of a worker dying after a point finished there but before its result was
    fetched: Dask computes it again; the sweep waits, it does not call the cluster lost."""
    from types import SimpleNamespace

    s = Sweeper(tmp_path, "sync")
    s._client = SimpleNamespace(status="running", scheduler_info=lambda: {"workers": {"w": {}}})
    fut = _Recomputed()
    assert s._outcome(fut, {"k": 2}) == {"square": 4} and fut.waits == 3


def test_ctrl_c_during_reproduce(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while a local
    cluster computes: exit 130, one line, no worker traceback, no "leaked semaphore" nor "port
    8787 in use" warning (8787 is held here, as another cluster would); the rerun resumes."""
    import socket

    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "sam.cli", "reproduce", "fig13", "--quick", "--engine",
           "reference", "--workers", "1", "-o", str(out), "--no-progress"]
    with socket.socket() as busy:
        with contextlib.suppress(OSError):  # already taken: in use either way
            busy.bind(("127.0.0.1", 8787))
            busy.listen()
        proc = _start(cmd, _env(ROOT))
        _wait_for_entries(out / ".cache", 1, proc)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert stderr == "sam-sim: interrupted\n" and stdout == ""
    kept = len(list((out / ".cache").glob("*/*.json")))
    assert kept >= 1
    res = _run([*cmd[:-1], "--scheduler", "sync", "--no-progress"], _env(ROOT))
    assert res.returncode == 0, res.stderr
    assert f", {kept} from the cache" in res.stdout


def test_interrupted_sync_report_is_dropped() -> None:
    """Tornado's report of distributed's ``sync`` cancel callback failing on an early Ctrl-C
    (a NameError in distributed.utils, logged with a traceback) is dropped once a sweep quiets
    Dask's logs; other tornado errors still pass."""
    import logging

    from custard.sweeps import cluster

    quiet = cluster.QuietLogs()
    try:
        logger = logging.getLogger("tornado.application")

        def record(msg: str) -> logging.LogRecord:
            return logger.makeRecord("tornado.application", logging.ERROR, __file__, 1, msg,
                                     (), None)

        assert not logger.filter(record("Exception in callback functools.partial(<function "
                                        "sync.<locals>.cancel at 0x7f>)"))
        assert logger.filter(record("Exception in callback something else"))
    finally:
        quiet.restore()
