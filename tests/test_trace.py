"""Issue 37, part 2: a report as a Chrome Trace Event file (:mod:`sam.trace`), its validator
(tests/helpers/trace_events.py), the report's optional ``activity``/``options`` and the
``--trace-events``, ``trace`` and ``report`` commands.

The engine's recorder is developed on another branch: these tests build ``activity`` from a
report's blocks (:func:`helpers.trace_events.synthetic_activity`, bucket sums equal to the
blocks' cycles) and check that a report without it still traces, coarsely.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

import pytest

from sam.report import dumps_report, load_report, read_report
from sam.trace import MAX_EVENTS, trace_events, write_trace

from helpers.trace_events import load, problems, problems_of, synthetic_activity

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "dot_graphs" / "matmul_ikj.gv"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The demo's report (west0479 x west0479, ikj), as ``sam-sim run --report`` writes it."""
    from sam.cli import main

    path = tmp_path_factory.mktemp("demo") / "report.json"
    assert main(["run", str(DEMO), "-t", "B=west0479", "-t", "C=B", "--report", str(path),
                 "--no-progress"]) == 0
    return json.loads(path.read_text())


def _with_activity(report: dict, buckets: int = 1024, streams: int = 3) -> dict:
    rep = copy.deepcopy(report)
    rep["activity"] = synthetic_activity(rep, buckets, streams=streams)
    return rep


def _write(report: dict, path: Path, **kw) -> dict:
    write_trace(report, path, **kw)
    text = path.read_text()
    assert problems(text) == []
    return load(text)


def _busy_by_track(trace: dict, pid: int) -> dict[str, int]:
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == pid}
    out = dict.fromkeys(names.values(), 0)
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and e["pid"] == pid:
            out[names[e["tid"]]] += e["args"]["busy"]
    return out


def _track(b: dict) -> str:
    return f"{b['id']} {b['label']}".rstrip()


# ------------------------------------------------------------------------------ the validator
def test_the_validator_accepts_a_good_trace_and_rejects_broken_ones() -> None:
    good = {"traceEvents": [
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "a"}},
        {"ph": "X", "name": "busy", "pid": 1, "tid": 1, "ts": 0, "dur": 5, "args": {}},
        {"ph": "X", "name": "inner", "pid": 1, "tid": 1, "ts": 1, "dur": 2},
        {"ph": "X", "name": "busy", "pid": 1, "tid": 1, "ts": 5, "dur": 5},
        {"ph": "C", "name": "u", "pid": 1, "ts": 0, "args": {"util": 50}},
    ], "displayTimeUnit": "ns"}
    assert problems(json.dumps(good)) == []

    def broken(change) -> list[str]:
        bad = copy.deepcopy(good)
        change(bad["traceEvents"])
        return problems(json.dumps(bad))

    assert any("ph" in p for p in broken(lambda ev: ev[1].pop("ph")))
    assert any("NaN" in p for p in broken(lambda ev: ev[4]["args"].update(util=float("nan"))))
    assert any("Infinity" in p for p in broken(lambda ev: ev[1].update(dur=float("inf"))))
    assert any("overlaps" in p for p in broken(lambda ev: ev[3].update(ts=4)))
    assert any("thread_name" in p for p in broken(lambda ev: ev[0].update(tid=2)))
    assert any("pid" in p for p in broken(lambda ev: ev[1].update(pid=True)))
    assert any("no name" in p for p in broken(lambda ev: ev[2].update(name="")))
    assert any("counter" in p for p in broken(lambda ev: ev[4].update(args={"u": "x"})))
    assert problems("{}") == ["no list 'traceEvents'"]


# ---------------------------------------------------------------------------- traces of runs
def test_the_demo_trace_loads_back_and_its_spans_add_up_to_each_block(demo: dict,
                                                                       tmp_path: Path) -> None:
    report = _with_activity(demo)
    trace = _write(report, tmp_path / "t.json")
    busy = _busy_by_track(trace, 1)
    assert busy == {_track(b): b["busy"] for b in demo["blocks"]}
    counters = [e for e in trace["traceEvents"] if e["ph"] == "C"]
    util = [e["args"]["util"] for e in counters if "util" in e["args"]]
    assert util and all(0 <= v <= 100 for v in util)
    fifo = {e["name"] for e in counters if e["name"].startswith("fifo ")}
    s = demo["streams"][0]
    assert f"fifo {s['src']}:{s['src_port']} -> {s['dst']}:{s['dst_port']}" in fifo
    assert len(fifo) == 3
    other = trace["otherData"]
    assert other["time_unit"] == "1 us = 1 cycle" and other["bucket_cycles"] >= 1
    assert other["merged_buckets"] == 1
    # spans end within the run's buckets; counters change value at every event of a track
    end = report["activity"]["buckets"] * report["activity"]["bucket_cycles"]
    assert all(e["ts"] + e["dur"] <= end for e in trace["traceEvents"] if e["ph"] == "X")
    last: dict[str, int] = {}
    for e in counters:
        v = next(iter(e["args"].values()))
        assert last.get(e["name"]) != v
        last[e["name"]] = v


def test_a_report_without_activity_traces_one_coarse_span_per_block(demo: dict,
                                                                    tmp_path: Path) -> None:
    coarse = {k: v for k, v in demo.items() if k != "activity"}  # as a report of an engine
    trace = _write(coarse, tmp_path / "t.json")                  # without the recorder
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    fired = [b for b in demo["blocks"] if b["busy"] or b["stalled"]]
    assert len(spans) == len(fired) and {e["cat"] for e in spans} == {"coarse"}
    assert "coarse" in trace["otherData"]["resolution"]
    assert _busy_by_track(trace, 1) == {_track(b): b["busy"] for b in demo["blocks"]}
    for e, b in zip(spans, fired, strict=True):
        assert (e["ts"], e["dur"]) == (b["started"], b["finished"] - b["started"])


def test_a_program_has_a_process_per_phase_offset_by_the_phases_before(tmp_path: Path) -> None:
    from formats.synthetic import random_tensor
    from sam.graph.dot import load as load_graph
    from sam.program import Program
    from sam.report import build_report

    graphs = [load_graph(ROOT / "dot_graphs" / f"{n}.gv") for n in ("mat_elemadd",
                                                                   "mat_elemmul")]
    program = Program.of(graphs)
    b, c = random_tensor((20, 20), 0.3, 1), random_tensor((20, 20), 0.3, 2)
    result = program.run({"B": b.with_format(graphs[0].formats["B"]),
                          "C": c.with_format(graphs[0].formats["C"])}, engine="reference")
    report = build_report(result, program, graph_path="p.gv", inputs={}, sources={},
                          options={"timing": "sam"})
    assert report["options"] == {"timing": "sam"}
    report["phases"][1]["activity"] = synthetic_activity(report["phases"][1], 64)
    trace = _write(report, tmp_path / "t.json")
    events = trace["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert procs == {0: "program", 1: "phase 1: mat_elemadd", 2: "phase 2: mat_elemmul"}
    c1, c2 = report["phase_cycles"]
    slices = [(e["name"], e["ts"], e["dur"]) for e in events if e["ph"] == "X" and e["pid"] == 0]
    assert slices == [("phase 1: mat_elemadd", 0, c1), ("phase 2: mat_elemmul", c1, c2)]
    for pid, phase, t0, t1 in ((1, report["phases"][0], 0, c1),
                               (2, report["phases"][1], c1, c1 + c2)):
        assert _busy_by_track(trace, pid) == {_track(b): b["busy"] for b in phase["blocks"]}
        spans = [e for e in events if e["ph"] == "X" and e["pid"] == pid]
        assert spans and min(e["ts"] for e in spans) >= t0
        assert max(e["ts"] for e in spans) < t1
    cats = {e["pid"]: e["cat"] for e in events if e["ph"] == "X"}
    assert cats[1] == "coarse" and cats[2] == "block"  # phase 1 has no activity
    path = tmp_path / "r.json"
    path.write_text(dumps_report(report))
    assert read_report(path)["phases"][1]["activity"] == report["phases"][1]["activity"]


def _many_blocks(n: int, cycles: int = 10**7) -> dict:
    kinds = dict.fromkeys(("val", "crd", "ref", "stop", "done", "empty"), 0)
    blocks = [{"id": str(k), "type": "arrayvals", "label": f"array {k}", "family": "array",
               "tokens_in": dict(kinds), "tokens_out": {**kinds, "val": cycles // 3},
               "busy": cycles // 3 + k, "idle": cycles // 2, "stalled": k * 7,
               "started": k, "finished": cycles - k} for k in range(n)]
    streams = [{"src": str(k), "src_port": "val", "dst": str(k + 1), "dst_port": "val",
                "kind": "val", "tokens": dict(kinds)} for k in range(n - 1)]
    return {"version": 1, "graph": "synthetic", "cycles": cycles, "blocks": blocks,
            "streams": streams}


@pytest.fixture(scope="module")
def big() -> dict:
    """300 blocks x 1024 buckets whose utilisation changes in almost every bucket (random
    spreading): the worst case of the event budget."""
    report = _many_blocks(300)
    report["activity"] = synthetic_activity(report, 1024, streams=8)
    return report


def test_the_event_budget_holds_for_300_blocks(big: dict, tmp_path: Path) -> None:
    report = big
    done = write_trace(report, tmp_path / "t.json")
    size = (tmp_path / "t.json").stat().st_size
    assert done.bytes == size and done.events <= MAX_EVENTS and done.merge > 1
    assert size < 15 * 2**20
    trace = load((tmp_path / "t.json").read_text())
    assert problems_of(trace) == []
    assert len(trace["traceEvents"]) == done.events
    assert _busy_by_track(trace, 1) == {_track(b): b["busy"] for b in report["blocks"]}


def test_a_smaller_budget_merges_more_buckets(big: dict, tmp_path: Path) -> None:
    small = write_trace(big, tmp_path / "s.json", max_events=20_000)
    assert small.events <= 20_000 and small.merge >= 8
    assert small.bytes == (tmp_path / "s.json").stat().st_size


def test_trace_events_are_streamed_one_block_at_a_time(demo: dict) -> None:
    events = trace_events(_with_activity(demo))
    first = [next(events) for _ in range(4)]
    assert [e["name"] for e in first] == ["process_name", "process_sort_index", "thread_name",
                                          "thread_sort_index"]


# -------------------------------------------------------------------------- the report's shape
@pytest.mark.parametrize("change,words", [
    (lambda a: a.update(buckets=10**12), "at most"),
    (lambda a: a.update(bucket_cycles=0), "bucket_cycles"),
    (lambda a: a["blocks"]["0"].update(busy=[1, 2]), "busy must be 1024"),
    (lambda a: a["blocks"]["0"]["idle"].__setitem__(3, -1), "idle must be"),
    (lambda a: a["blocks"]["0"]["idle"].__setitem__(3, True), "idle must be"),
    (lambda a: a["blocks"].update(nope={}), "no such block"),
    (lambda a: a["streams"].append({"src": "0"}), "streams[0]"),
])
def test_a_malformed_activity_is_one_line(demo: dict, tmp_path: Path, change, words: str
                                          ) -> None:
    from formats.errors import ToolkitError

    report = _with_activity(demo, streams=0)
    change(report["activity"])
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    with pytest.raises(ToolkitError, match="not a valid sam-sim report: activity") as err:
        load_report(path)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_nan_in_a_report_is_refused(demo: dict, tmp_path: Path) -> None:
    from formats.errors import ToolkitError

    path = tmp_path / "r.json"
    path.write_text(json.dumps(demo).replace('"wall_time_s": ', '"wall_time_s": NaN, "x": '))
    with pytest.raises(ToolkitError, match="NaN"):
        read_report(path)


def test_report_json_keeps_number_lists_on_one_line(demo: dict) -> None:
    report = _with_activity(demo)
    text = dumps_report(report)
    assert json.loads(text) == report
    assert len(text) < len(json.dumps(report, indent=1)) / 3
    assert '"shape": [479,479]' in text


# ------------------------------------------------------------------------------- the commands
def test_run_writes_a_trace_and_the_trace_command_the_same(tmp_path: Path, monkeypatch,
                                                           capsys) -> None:
    from sam.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["run", str(ROOT / "dot_graphs" / "mat_elemmul.gv"), "-t", "B=random:0.3:1:9x9",
                 "-t", "C=random:0.3:2:9x9", "--engine", "reference", "--report", "r.json",
                 "--trace-events", "t.json", "--no-progress", "--timing", "original"]) == 0
    err = capsys.readouterr().err
    assert "wrote t.json:" in err and "trace events" in err
    report = read_report("r.json")
    assert report["options"]["timing"] == "original" and report["options"]["engine"] == \
        "reference"
    assert problems(Path("t.json").read_text()) == []
    assert main(["trace", "r.json", "-o", "t2.json"]) == 0
    assert "wrote t2.json" in capsys.readouterr().out
    assert load(Path("t2.json").read_text())["traceEvents"] == \
        load(Path("t.json").read_text())["traceEvents"]


@pytest.mark.parametrize("argv,words", [
    (["--trace-events", "t.txt"], "--trace-events t.txt: unknown file type '.txt'"),
    (["--trace-events", "g.gv"], "input"),
    (["--html", "t.json"], "--html t.json: unknown file type '.json'"),
    (["--report", "x.json", "--trace-events", "x.json"], "writes the same file"),
    (["--trace-events", "missing/t.json"], "does not exist"),
])
def test_run_refuses_trace_and_page_outputs_before_running(argv: list[str], words: str,
                                                           tmp_path: Path, monkeypatch,
                                                           capsys) -> None:
    import shutil

    from sam.cli import main

    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "dot_graphs" / "mat_elemmul.gv", "g.gv")
    code = main(["run", "g.gv", "-t", "B=random:0.3:1:9x9", "-t", "C=random:0.3:2:9x9", *argv])
    err = capsys.readouterr().err
    assert code == 1 and words in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.gv"]


@pytest.mark.skipif(importlib.util.find_spec("sam.html") is not None,
                    reason="sam/html.py is on this branch")
def test_report_without_the_html_writer_is_one_line(demo: dict, tmp_path: Path, monkeypatch,
                                                    capsys) -> None:
    from sam.cli import main

    monkeypatch.chdir(tmp_path)
    Path("r.json").write_text(json.dumps(demo))
    assert main(["report", "r.json", "-o", "run.html"]) == 1
    err = capsys.readouterr().err
    assert "sam/html.py" in err and err.count("\n") == 1 and not Path("run.html").exists()
    assert main(["run", str(ROOT / "dot_graphs" / "mat_elemmul.gv"), "-t", "B=random:0.3:1:9x9",
                 "-t", "C=random:0.3:2:9x9", "--html", "run.html", "--report", "x.json"]) == 1
    err = capsys.readouterr().err
    assert "sam/html.py" in err and err.count("\n") == 1 and not Path("x.json").exists()


@pytest.mark.parametrize("outputs,records", [([], False), (["--report", "r.json"], True),
                                              (["--trace-events", "t.json"], True)])
def test_run_asks_the_engine_to_record_when_an_output_uses_it(outputs: list[str], records: bool,
                                                              tmp_path: Path, monkeypatch
                                                              ) -> None:
    """With an engine that records (``Program.run(activity=...)``) ``run`` asks for it when the
    report is saved, traced or shown; an engine without it is called as before."""
    import inspect

    from sam.cli import main
    from sam.program import Program

    monkeypatch.chdir(tmp_path)
    real = Program.run
    asked: list[bool] = []
    if "activity" not in inspect.signature(real).parameters:
        def run(self, tensors, *, activity: bool = False, **kw):
            asked.append(activity)
            return real(self, tensors, **kw)

        monkeypatch.setattr(Program, "run", run)
    else:
        def run(self, tensors, **kw):
            asked.append(kw.get("activity", False))
            return real(self, tensors, **kw)

        run.__signature__ = inspect.signature(real)  # type: ignore[attr-defined]
        monkeypatch.setattr(Program, "run", run)
    assert main(["run", str(ROOT / "dot_graphs" / "mat_elemmul.gv"), "-t", "B=random:0.3:1:9x9",
                 "-t", "C=random:0.3:2:9x9", "--engine", "reference", "--no-progress",
                 *outputs]) == 0
    assert asked == [records]


def test_the_demo_run_records_activity_and_its_trace_adds_up(demo: dict,
                                                             tmp_path: Path) -> None:
    """``sam-sim run --report`` records the engine's activity (sam/sim/activity.py): its
    buckets sum to each block's busy, and the trace of the real run adds up the same."""
    act = demo["activity"]
    assert act["buckets"] >= 64 and act["resolution_cycles"] < demo["cycles"] / 64
    for b in demo["blocks"]:
        series = act["blocks"][str(b["id"])] if str(b["id"]) in act["blocks"] else \
            act["blocks"][b["id"]]
        assert sum(series["busy"]) == b["busy"] and sum(series["stalled"]) == b["stalled"]
    trace = _write(demo, tmp_path / "real.json")
    assert _busy_by_track(trace, 1) == {_track(b): b["busy"] for b in demo["blocks"]}
    assert "resolution" not in trace["otherData"] and trace["otherData"]["resolution_cycles"] > 0


def test_trace_stream_names_the_fifo_counters_and_an_unknown_one_is_one_line(
        tmp_path: Path, monkeypatch, capsys) -> None:
    from sam.cli import main

    monkeypatch.chdir(tmp_path)
    argv = ["run", str(DEMO), "-t", "B=west0479", "-t", "C=B", "--no-progress",
            "--trace-events", "t.json"]
    assert main([*argv, "--trace-stream", "3"]) == 0
    trace = load(Path("t.json").read_text())
    fifo = {e["name"] for e in trace["traceEvents"]
            if e["ph"] == "C" and e["name"].startswith("fifo ")}
    assert fifo and all(name.startswith("fifo 3:") for name in fifo)
    assert all(v >= 0 for e in trace["traceEvents"] if e["ph"] == "C" and e["name"] in fifo
               for v in e["args"].values())
    capsys.readouterr()
    assert main([*argv, "--trace-stream", "99"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no stream '99' to record" in err
