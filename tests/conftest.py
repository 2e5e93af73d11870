"""Test-suite settings: the engine's warm-up, Hypothesis profiles, and the test tiers.

``engine="fast"`` runs the compiled kernels from the first call in tests (the default 0.03 s of
interpreting first would leave most small test graphs on the Python kernels, and the
differential tests would then compare Python with Python; see ``docs/performance.md``).

Hypothesis profiles, chosen by ``HYPOTHESIS_PROFILE`` (default ``ci``):

* ``ci``: every test's own example count, derandomized (a CI run is reproducible);
* ``dev``: at most :data:`DEV_MAX_EXAMPLES` examples per test, random (``make test-fast``);
* ``fuzz``: the ``ci`` counts, random (``SAM_FUZZ_SCALE=50 HYPOTHESIS_PROFILE=fuzz pytest -m
  fuzz`` explores new inputs on every run).

Tiers: the markers ``slow``, ``fuzz`` and ``subprocess`` are given by the table in
``tests/helpers/tiers.py`` (one place, checked by ``tests/test_suite_structure.py``);
``make test-fast`` runs ``-m "not slow and not fuzz and not subprocess"``. Every test that
starts a process must be marked ``subprocess``: a test that starts one unmarked fails.
"""

from __future__ import annotations

import _posixsubprocess
import os
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import settings

from helpers import tiers

os.environ.setdefault("SAM_INTERPRET_SECONDS", "0")
# kernels a test needs compile in the test's own process (workers are processes: only tests
# marked ``subprocess`` start them; tests/test_warm.py does)
os.environ.setdefault("SAM_COMPILE_JOBS", "1")

#: the ``dev`` profile's cap on any test's example count
DEV_MAX_EXAMPLES = 10

settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.register_profile("dev", max_examples=DEV_MAX_EXAMPLES, deadline=None, print_blob=True)
settings.register_profile("fuzz", deadline=None, print_blob=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)  # before the test modules are imported: their @settings inherit


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--module-report", action="store_true",
                     help="name the modules of sam/, custard/ and formats/ none of whose "
                          "functions ran in a test (tests/conftest.py)")


def pytest_configure(config: pytest.Config) -> None:
    global _ran
    if config.getoption("module_report"):
        _ran = set()


def pytest_report_header(config: pytest.Config) -> str:
    return f"hypothesis profile: {PROFILE}"


@pytest.hookimpl(tryfirst=True)  # before -m selects on the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        _items[item.nodeid] = item
        for marker in tiers.markers(item.nodeid):
            item.add_marker(marker)
        if PROFILE == "dev":
            _cap_examples(item)


def _cap_examples(item: pytest.Item) -> None:
    """A test's explicit ``@settings(max_examples=N)`` wins over the profile; cap it here.
    (Hypothesis keeps a test's settings in ``_hypothesis_internal_use_settings``.)"""
    fn = getattr(item, "obj", None)
    if not getattr(fn, "is_hypothesis_test", False):
        return
    own = fn._hypothesis_internal_use_settings
    if own.max_examples > DEV_MAX_EXAMPLES:
        fn._hypothesis_internal_use_settings = settings(own, max_examples=DEV_MAX_EXAMPLES)


# ----------------------------------------------------------------------- processes and times
_PROCESS_EVENTS = {"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.system",
                   "os.exec", "os.spawn"}
_current: list[pytest.Item] = []
_started: dict[str, str] = {}  # unmarked test -> the first process event it raised
_durations: dict[str, float] = {}  # CPU seconds (setup, call, teardown): no load counted
_items: dict[str, pytest.Item] = {}


def _audit(event: str, args: tuple) -> None:
    if event in _PROCESS_EVENTS and _current:
        item = _current[-1]
        if item.get_closest_marker("subprocess") is None:
            _started.setdefault(item.nodeid, f"{event} {str(args[:2])[:120]}")


sys.addaudithook(_audit)


def _audited(original):
    """``multiprocessing`` (Dask's local cluster) starts its processes with
    ``_posixsubprocess.fork_exec``, which raises no audit event of its own."""

    def fork_exec(*args):
        sys.audit("os.posix_spawn", "_posixsubprocess.fork_exec")
        return original(*args)

    return fork_exec


if hasattr(_posixsubprocess, "fork_exec"):
    _posixsubprocess.fork_exec = _audited(_posixsubprocess.fork_exec)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    _current.append(item)
    start = time.process_time()
    if _ran is not None:
        sys.setprofile(_record_call)
        threading.setprofile(_record_call)
    try:
        return (yield)
    finally:
        if _ran is not None:
            sys.setprofile(None)
            threading.setprofile(None)
        _durations[item.nodeid] = time.process_time() - start
        _current.pop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    result = yield
    if item.nodeid in _started:
        pytest.fail(f"this test starts a process ({_started[item.nodeid]}) but is not marked "
                    "subprocess (tests/helpers/tiers.py)", pytrace=False)
    return result


# ------------------------------------------------------------------- modules whose code ran
ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sam", "custard", "formats")
_ran: set[str] | None = None  # files of the functions called in tests (--module-report)


def _record_call(frame, event: str, arg) -> None:
    code = frame.f_code
    if event == "call" and (code.co_name != "<module>" or code.co_filename.endswith(
            "__main__.py")):  # a __main__ module is all module-level code, run by runpy
        _ran.add(code.co_filename)


def _module_report(terminalreporter) -> None:
    """Every project module, imported or not, and whether a function of it ran in a test
    (module-level code runs at import, during collection, and does not count, but for
    ``__main__`` modules run by a test)."""
    files = sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))
    imported = {str(Path(m.__file__).resolve()) for m in list(sys.modules.values())
                if getattr(m, "__file__", None)}
    ran = {str(Path(f).resolve()) for f in _ran if f.endswith(".py")}
    never = [p for p in files if str(p) not in imported and str(p) not in ran]
    idle = [p for p in files if str(p) in imported and str(p) not in ran]
    terminalreporter.write_sep("-", f"module report: {len(files)} modules, code of "
                                    f"{len(files) - len(never) - len(idle)} ran in tests")
    for label, paths in (("never imported", never), ("imported, no function ran", idle)):
        terminalreporter.write_line(f"{label} ({len(paths)}): "
                                    + " ".join(str(p.relative_to(ROOT)) for p in paths))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if _ran is not None:
        _module_report(terminalreporter)
    _report_unmarked_slow(terminalreporter)


def _report_unmarked_slow(terminalreporter) -> None:
    """Name the unmarked tests that took more than ``tiers.SLOW_SECONDS`` of CPU time (setup,
    call and teardown; a module's fixtures count in its first test). A Hypothesis test counts
    on the ``dev`` profile's few examples, the fast tier's: other profiles do not name it."""
    long = sorted((t, nid) for nid, t in _durations.items()
                  if t > tiers.SLOW_SECONDS and nid in _items and (PROFILE == "dev" or not
                      getattr(getattr(_items[nid], "obj", None), "is_hypothesis_test", False))
                  and not any(_items[nid].get_closest_marker(m) for m in tiers.MARKERS))
    if long:
        terminalreporter.write_sep("-", f"{len(long)} unmarked tests over "
                                        f"{tiers.SLOW_SECONDS:g} CPU s (tests/helpers/tiers.py)")
        for t, nid in reversed(long):
            terminalreporter.write_line(f"{t:7.2f}s {nid}")

