"""The peer suite: the MLIR sparsifier's integration tests run by ``--entry`` and checked with
their own ``CHECK`` lines (the PyPI ``filecheck`` package, in process).

``tests/data/mlir-sparsifier/CPU/*.mlir`` are the tests (llvm/llvm-project, Apache-2.0 with
LLVM exception), ``data/`` their tensor files, ``classify-*.tsv`` the classification (file,
yes/no, reason, kernel ops, driver ops, ``TENSOR0=wide.mtx ...``), ``expected.tsv`` the outcome
per file (file, pass/fail, reason) recorded by ``scripts/mlir_peers.py``.
"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "data" / "mlir-sparsifier"
CPU = SUITE / "CPU"
DATA = SUITE / "data"
EXPECTED = SUITE / "expected.tsv"


@dataclass(frozen=True)
class Entry:
    """One classified test file."""

    file: str
    verdict: str  #: ``yes`` (expressible on SAM) or ``no``
    reason: str
    kernel_ops: str
    driver_ops: str
    env: str  #: ``TENSOR0=wide.mtx TENSOR1=...``

    def environment(self) -> dict[str, str]:
        """``TENSORn`` -> the data file's path."""
        out = {}
        for part in self.env.split():
            if "=" in part:
                key, value = part.split("=", 1)
                value = value.strip('"')
                out[key] = str(DATA / Path(value).name)
        return out


def has_kernels(entry: Entry) -> bool:
    """Whether the file has linalg ops (kernels that run on SAM), not only host code."""
    return re.search(r"\blinalg\.(?!yield\b|index\b)", (CPU / entry.file).read_text()) is not None


def classification() -> list[Entry]:
    """Every classified file (both tables), in file order."""
    rows: dict[str, Entry] = {}
    for table in sorted(SUITE.glob("classify-*.tsv")):
        for line in table.read_text().splitlines():
            cells = line.split("\t")
            if not cells or not cells[0].endswith(".mlir"):
                continue  # header or comment
            cells += [""] * (6 - len(cells))
            name = Path(cells[0].strip()).name
            rows[name] = Entry(name, cells[1].strip().lower(), cells[2].strip(),
                               cells[3].strip(), cells[4].strip(), cells[5].strip())
    return [rows[k] for k in sorted(rows)]


def expected() -> dict[str, tuple[str, str]]:
    """``expected.tsv``: file -> (pass/fail, reason)."""
    out = {}
    if EXPECTED.exists():
        for line in EXPECTED.read_text().splitlines():
            cells = line.split("\t")
            if len(cells) >= 2 and cells[0].endswith(".mlir"):
                out[cells[0]] = (cells[1], cells[2] if len(cells) > 2 else "")
    return out


@dataclass(frozen=True)
class Run:
    """One distinct RUN line: the driver it runs, its ``TENSORn`` files, its FileCheck
    prefixes and whether the run must fail (``not env ...``, the error text then checked)."""

    entry: str | None
    env: tuple[tuple[str, str], ...]
    prefixes: tuple[str, ...]
    expect_fail: bool


def runs(text: str, default_env: dict[str, str] | None = None) -> list[Run]:
    """The distinct runs of a test file's RUN lines, ``%{name}`` substitutions (DEFINE and
    REDEFINE) expanded in order; a RUN line without a runner (``-e``) is skipped."""
    defs: dict[str, str] = {}
    out: list[Run] = []
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k].strip()
        k += 1
        m = re.match(r"//\s*(DEFINE|REDEFINE|RUN):\s?(.*)", line)
        if m is None:
            continue
        body = m.group(2)
        while body.rstrip().endswith("\\") and k < len(lines):
            nxt = re.match(r"//\s*(?:DEFINE|REDEFINE|RUN):\s?(.*)", lines[k].strip())
            if nxt is None:
                break
            body = body.rstrip()[:-1] + " " + nxt.group(1)
            k += 1
        if m.group(1) != "RUN":
            name, _, value = body.partition("=")
            defs[name.strip().removeprefix("%{").removesuffix("}")] = value.strip()
            continue
        for _ in range(10):
            body = re.sub(r"%\{([^}]+)\}", lambda x: defs.get(x.group(1), ""), body)
        entry = re.search(r"(?:\s-e\s+|--entry-function=)([A-Za-z_][A-Za-z0-9_]*)", body)
        if entry is None:
            continue
        name = re.sub(r"_lli$", "", entry.group(1))
        env = dict(default_env or {})
        for var, value in re.findall(r"(TENSOR[0-9]+)=\"?([^\"\s]*)\"?", body):
            env[var] = str(DATA / Path(value).name)
        prefixes = check_prefixes(body)
        run = Run(name, tuple(sorted(env.items())), tuple(prefixes),
                  bool(re.search(r"\|\s*not\b", body)))
        if run not in out:
            out.append(run)
    return out or [Run(None, tuple(sorted((default_env or {}).items())), ("CHECK",), False)]


def check_prefixes(text: str) -> list[str]:
    """The FileCheck prefixes a RUN line names (default ``CHECK``)."""
    found: list[str] = []
    for m in re.finditer(r"--?check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)", text):
        for p in m.group(1).split(","):
            if p not in found:
                found.append(p)
    return found or ["CHECK"]


def filecheck(path: Path, output: str, prefixes: list[str] | None = None) -> tuple[bool, str]:
    """Whether ``output`` matches the CHECK lines of ``path``; the first complaint if not."""
    from filecheck.matcher import Matcher
    from filecheck.options import Options

    text = path.read_text()
    prefixes = prefixes or check_prefixes(text)
    with tempfile.NamedTemporaryFile("w", suffix=".out", delete=False) as f:
        f.write(output)
        name = f.name
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            opts = Options(match_filename=str(path), input_file=name,
                           check_prefixes=",".join(prefixes))  # type: ignore[arg-type]
            code = Matcher.from_opts(opts).run()
    except Exception as exc:  # a CHECK line filecheck cannot read
        return False, f"filecheck: {type(exc).__name__}: {exc}"
    finally:
        Path(name).unlink(missing_ok=True)
    if code == 0:
        return True, ""
    lines = [ln for ln in err.getvalue().splitlines() if "error" in ln.lower()]
    first = lines[0] if lines else err.getvalue().strip().splitlines()[0:1]
    return False, str(first).split(": error: ", 1)[-1][:200]


@dataclass
class Outcome:
    """One file's run: pass/fail, reason, output, SAM calls and cycles."""

    file: str
    status: str
    reason: str
    output: str
    calls: int = 0
    cycles: int = 0
    error_kind: str = ""  #: '' (ran), 'toolkit' (one-line error), 'crash' or 'missing'


def run_file(entry: Entry, engine: str = "fast") -> Outcome:
    """Run each distinct RUN of a test file and check its output (or, for a ``not`` run, its
    output and error line) against the file's CHECK lines."""
    from custard.mlir.interp import run_entry
    from custard.mlir.syntax import parse_module
    from formats.errors import ToolkitError

    path = CPU / entry.file
    if not path.is_file():
        return Outcome(entry.file, "fail", "the file is missing", "", error_kind="missing")
    text = path.read_text()
    calls = cycles = 0
    output = ""
    for run in runs(text, entry.environment()):
        out = io.StringIO()
        failed = ""
        try:
            module = parse_module(text, str(path.relative_to(ROOT)))
            result = run_entry(module, run.entry, env=dict(run.env), out=out, engine=engine)
            calls, cycles = calls + result.calls, cycles + result.cycles
        except ToolkitError as err:
            failed = str(err)
            if "\n" in failed:
                return Outcome(entry.file, "fail", _short(failed), out.getvalue(),
                               error_kind="crash")
            if not run.expect_fail:
                return Outcome(entry.file, "fail", _short(failed), out.getvalue(),
                               error_kind="toolkit")
        except Exception as err:  # noqa: BLE001 - recorded as a crash, the suite asserts none
            return Outcome(entry.file, "fail",
                           f"crash: {type(err).__name__}: {_short(str(err))}",
                           out.getvalue(), error_kind="crash")
        output += out.getvalue()
        if run.expect_fail and not failed:
            return Outcome(entry.file, "fail", "the run should stop with an error",
                           out.getvalue())
        ok, why = filecheck(path, out.getvalue() + (failed + "\n" if failed else ""),
                            list(run.prefixes))
        if not ok:
            return Outcome(entry.file, "fail", f"output: {why}", out.getvalue())
    return Outcome(entry.file, "pass", "", output, calls, cycles)


def _short(msg: str) -> str:
    msg = msg.replace("\t", " ").splitlines()[0] if msg else msg
    msg = re.sub(r"^\S*tests/data/mlir-sparsifier/CPU/", "", msg)
    return msg[:240]
