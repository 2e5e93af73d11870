"""The argument parser and the one top-level error handler of every command
(:mod:`sam.command`).

:func:`run_main` parses the command line with a :class:`Parser` (usage errors are exit 2 with
the usage line, never ``SystemExit`` from deep inside) and runs the subcommand's function. It
turns everything that escapes into one line on stderr and an exit code:

====  ======================================================================================
0     success
1     a user error (:class:`~formats.errors.ToolkitError`), out of memory, an OS error, input
      nested too deeply
2     usage (unknown option, missing argument)
3     ``--check`` found a wrong result (returned by the command itself)
4     an internal error (a bug; one line, ``<PROG>_DEBUG=1`` shows the traceback)
130   interrupted (Ctrl-C): ``PROG: interrupted``, no traceback
====  ======================================================================================

A subcommand can say what to try when memory runs out with ``set_defaults(memory_hint=...)``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from formats.errors import ToolkitError

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_CHECK_FAILED, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A command-line usage error (exit status 2), raised instead of exiting."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors raise :class:`UsageError` (subparsers too)."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(self, message)


def one_line(err: BaseException | str) -> str:
    """The text of ``err`` on one line (its type name when it has no text)."""
    text = " ".join(str(err).split())
    return text or (type(err).__name__ if isinstance(err, BaseException) else "")


def _say(prog: str, text: str) -> None:
    try:
        print(f"{prog}: {text}", file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr closed: nothing more to say
        pass


def process_age() -> float | None:
    """Seconds since this process started (Linux ``/proc``; None elsewhere), to 10 ms."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


#: seconds from the process's start to the command's (Python's start-up and the imports the
#: command's module needed); set by :func:`run_main`, None outside a command
IMPORT_SECONDS: float | None = None


def run_main(prog: str, build_parser: Callable[[], argparse.ArgumentParser],
             argv: Sequence[str] | None, *, debug_env: str) -> int:
    """Parse ``argv`` and run the chosen subcommand (``args.func(args)``); the exit status."""
    global IMPORT_SECONDS
    IMPORT_SECONDS = process_age()
    try:
        return _run(prog, build_parser, argv, debug_env)
    except KeyboardInterrupt:  # Ctrl-C between two handlers (while printing, say)
        return EXIT_INTERRUPTED


def _run(prog: str, build_parser: Callable[[], argparse.ArgumentParser],
         argv: Sequence[str] | None, debug_env: str) -> int:
    args = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_USAGE
        return args.func(args)
    except UsageError as err:
        err.parser.print_usage(sys.stderr)
        _say(err.parser.prog, f"error: {one_line(err)}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _say(prog, "interrupted")
        return EXIT_INTERRUPTED
    except ToolkitError as err:
        _say(prog, f"error: {one_line(err)}")
        return EXIT_ERROR
    except MemoryError as err:
        if os.environ.get(debug_env):
            raise
        hint = getattr(args, "memory_hint", None) or "try smaller inputs"
        _say(prog, f"error: out of memory ({one_line(err)}); {hint}")
        return EXIT_ERROR
    except RecursionError:
        _say(prog, "error: the input is nested too deeply to handle (Python's recursion "
             "limit); split it into smaller pieces")
        return EXIT_ERROR
    except BrokenPipeError:  # piped into `head`: stop quietly
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the exit-time flush
        except OSError:
            pass
        return EXIT_OK
    except OSError as err:
        where = f"{err.filename}: " if err.filename else ""
        _say(prog, f"error: {where}{err.strerror or one_line(err)}")
        return EXIT_ERROR
    except Exception as err:  # a bug in the toolkit, not a user error: still one line
        if os.environ.get(debug_env):
            raise
        _say(prog, f"internal error (please report it; {debug_env}=1 shows the traceback): "
             f"{type(err).__name__}: {one_line(err)}")
        return EXIT_INTERNAL
