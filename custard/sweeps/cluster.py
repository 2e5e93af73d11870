"""Dask clusters for the sweeps (:mod:`custard.sweeps.sweep`): an existing one, checked before
any point runs, or a local one that stays out of the way.

:func:`connect` opens a client on ``--scheduler ADDRESS`` only once the address has answered
Dask's handshake within a few seconds (a Dask server greets every new connection; an HTTP server
or any other program does not, and Dask itself would wait for ever or read its reply as a
frame length of exabytes), the server is a scheduler and it has workers. :func:`check_workers`
then refuses, naming them, workers that would compute with other code than this process.

:func:`start_local` starts a local cluster listening on 127.0.0.1 only, with no dashboard (no
"port 8787 in use"), whose worker processes ignore Ctrl-C: the terminal sends it to every process
of the command, and the client alone stops the sweep and shuts the workers down, so no worker
prints a traceback.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from custard.sweeps.errors import SweepError
from custard.sweeps.identity import identity, problems

if TYPE_CHECKING:
    import socket

#: seconds a scheduler has to greet a new connection
HANDSHAKE_TIMEOUT = 5.0
#: the largest greeting a Dask server sends (bytes; its handshake is about 60)
MAX_GREETING = 1 << 16
#: what every Dask handshake names (msgpack map keys)
GREETING_KEYS = (b"compression", b"pickle-protocol")


def _refuse(address: str, why: str) -> SweepError:
    return SweepError(f"--scheduler {address}: {why}")


def probe(address: str, timeout: float = HANDSHAKE_TIMEOUT) -> dict[str, Any]:
    """Refuse ``address`` unless a Dask scheduler answers there within ``timeout`` seconds;
    its identity (``type``, ``workers``, ...)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, loc = parse_address(address)
        if scheme == "tcp":
            _greeting(address, *parse_host_port(loc, default_port=8786), timeout)
    except ValueError as err:
        raise _refuse(address, f"not a Dask address ({' '.join(str(err).split())}); write "
                      "tcp://HOST:PORT") from None
    info = _identity_of(address, timeout)
    kind = info.get("type") if isinstance(info, dict) else None
    if kind != "Scheduler":
        raise _refuse(address, f"not a Dask scheduler (a Dask {kind or 'server'}: give the "
                      "scheduler's address)")
    return info


def _greeting(address: str, host: str, port: int, timeout: float) -> None:
    """Read what the server at ``host:port`` says first: a Dask server sends its handshake (a
    length-prefixed msgpack map), other servers wait for a request or say something else."""
    import socket
    import struct

    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            size = struct.unpack("Q", _receive(sock, 8, deadline))[0]
            ok = 0 < size <= MAX_GREETING
            if ok:
                greeting = _receive(sock, size, deadline)
                ok = all(key in greeting for key in GREETING_KEYS)
    except TimeoutError:
        raise _refuse(address, f"not a Dask scheduler (no Dask handshake within {timeout:g} "
                      "s)") from None
    except EOFError:
        raise _refuse(address, "not a Dask scheduler (it closed the connection without a Dask "
                      "handshake)") from None
    except OSError as err:
        raise _refuse(address, f"cannot connect ({err.strerror or err})") from None
    if not ok:
        raise _refuse(address, "not a Dask scheduler (it answers, but not with Dask's "
                      "handshake)")


def _receive(sock: socket.socket, n: int, deadline: float) -> bytes:
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _identity_of(address: str, timeout: float) -> Any:
    """The server's answer to Dask's ``identity`` request, all of it within ``timeout``
    seconds (Dask's own connect waits for a handshake for ever); in a thread of its own, so
    that a running event loop here does not matter."""
    import asyncio
    import concurrent.futures

    from distributed.comm import connect

    async def ask() -> Any:
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            await comm.close()

    def run() -> Any:
        return asyncio.run(asyncio.wait_for(ask(), timeout))

    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        return pool.submit(run).result(timeout + 1)
    except (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError):
        raise _refuse(address, f"not a Dask scheduler (no answer within {timeout:g} s)"
                      ) from None
    except MemoryError:
        raise _refuse(address, "not a Dask scheduler (its answer is not Dask's)") from None
    except Exception as err:  # noqa: BLE001 - refused, reset, unknown scheme, TLS settings
        why = " ".join(str(err).split()) or type(err).__name__
        raise _refuse(address, f"cannot connect ({why})") from None
    finally:
        pool.shutdown(wait=False)


def connect(address: str, connect_timeout: float, worker_wait: float,
            handshake_timeout: float = HANDSHAKE_TIMEOUT,
            say: Callable[[str], None] = print) -> Any:
    """A client of the scheduler at ``address``, checked (module docstring; ``say`` tells that
    it waits for a worker); its workers' code is checked by :func:`check_workers`."""
    from distributed import Client

    info = probe(address, handshake_timeout)
    try:
        client = Client(address, timeout=f"{connect_timeout}s", set_as_default=False)
    except Exception as err:  # noqa: BLE001 - whatever Dask raises: one line
        why = " ".join(str(err).split()) or type(err).__name__
        raise _refuse(address, f"cannot connect ({why})") from None
    try:
        if not info.get("workers"):
            say(f"--scheduler {address}: no worker yet; waiting up to {worker_wait:g} s for "
                "one")
            try:
                client.wait_for_workers(1, timeout=worker_wait)
            except TimeoutError:
                raise _refuse(address, f"the scheduler has no workers (waited {worker_wait:g} "
                              f"s); start some with `dask worker {address}`") from None
    except BaseException:
        close(client)
        raise
    return client


def check_workers(client: Any, where: str, code: str,
                  files: Mapping[str, str] | None = None) -> None:
    """Refuse, before any point runs, workers that compute with other code or data than this
    process (:func:`custard.sweeps.identity.problems`), naming each of them (``where``
    starts the message: ``--scheduler ADDRESS``)."""
    found = client.run(identity, dict(files or {}), on_error="return")
    bad = []
    for worker, ident in sorted(found.items()):
        if isinstance(ident, BaseException):
            bad.append(f"{worker} (cannot check it: {type(ident).__name__}: "
                       f"{' '.join(str(ident).split())})")
        else:
            why = problems(ident, code, files)
            if why:
                bad.append(f"{worker} ({why})")
    if bad:
        raise SweepError(f"{where}: {len(bad)} of {len(found)} worker(s) would compute with "
                             f"other code than this command: {'; '.join(bad)}; restart them "
                             "with this toolkit (nothing was computed or cached)")


@contextmanager
def _children_ignore_interrupts() -> Iterator[None]:
    """Processes started inside inherit an ignored SIGINT (kept by Python at start-up); this
    process's Ctrl-C meanwhile stays pending where the system allows and is raised after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def start_local(n_workers: int) -> tuple[Any, Any]:
    """A local cluster of ``n_workers`` single-threaded worker processes and its client."""
    import dask
    from distributed import Client, LocalCluster

    # worker processes log errors only, from their start on (a restarted one too); a kernel
    # not compiled yet compiles in the worker's own process (the workers are the parallelism)
    env = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {},
               DASK_LOGGING__DISTRIBUTED="error", SAM_COMPILE_JOBS="1")
    with _children_ignore_interrupts(), \
            dask.config.set({"distributed.nanny.pre-spawn-environ": env}):
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None,
                               scheduler_kwargs={"dashboard": False,
                                                 "dashboard_address": "127.0.0.1:0"},
                               silence_logs=logging.ERROR, preload=[__name__])
        try:
            client = Client(cluster, set_as_default=False)
        except BaseException:
            close(cluster)
            raise
    return cluster, client


def dask_setup(worker: Any) -> None:
    """Preload of the local cluster's workers: a worker the nanny restarts ignores Ctrl-C too."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to do
        pass


def close(thing: Any, timeout: float = 5.0) -> None:
    """Close a client or cluster, quietly (its scheduler may be gone)."""
    if thing is None:
        return
    try:
        thing.close(timeout=timeout)
    except TypeError:
        try:
            thing.close()
        except Exception:  # noqa: BLE001, S110 - shutting down: nothing to report
            pass
    except Exception:  # noqa: BLE001, S110 - shutting down: nothing to report
        pass


class _InterruptedSyncFilter(logging.Filter):
    """Drops tornado's report of distributed's ``sync.<locals>.cancel`` failing: on Ctrl-C before
    ``sync`` has its future, that callback raises a NameError (a race in distributed's
    ``utils.sync``), which tornado logs with a traceback; the interrupt itself is handled."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "sync.<locals>.cancel" not in record.getMessage()


_INTERRUPTED_SYNC = _InterruptedSyncFilter()


class QuietLogs:
    """Dask's own log lines (reconnection attempts, closed comms) off while a sweep uses Dask: a
    lost cluster is one line of ours. :meth:`restore` turns them back on. Tornado's report of
    distributed's interrupted ``sync`` stays off (:class:`_InterruptedSyncFilter`)."""

    def __init__(self) -> None:
        import distributed  # noqa: F401 - its loggers exist once it is imported

        tornado_app = logging.getLogger("tornado.application")
        if _INTERRUPTED_SYNC not in tornado_app.filters:
            tornado_app.addFilter(_INTERRUPTED_SYNC)

        loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
                   if name == "distributed" or name.startswith("distributed.")]
        self.levels = {lg: lg.level for lg in loggers}
        for lg in loggers:
            lg.setLevel(logging.CRITICAL + 1)

    def restore(self) -> None:
        for lg, level in self.levels.items():
            lg.setLevel(level)
        self.levels = {}
