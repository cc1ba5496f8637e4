"""Work a read runs beside its calling thread.

A read's networks release the interpreter while they run, so on a CPU of two or more cores one
stage's Python and OpenCV work goes on while another stage's network runs: the checkers are
read (`pipeline.VisionPipeline.read`) while the calling thread searches the frame for pips and
reads them.

The checker network runs beside it on one thread (`WORKER_THREADS`), the calling thread's on one
a core. On a two-core machine that reads fastest: 40 scenes of a tuning set, 168 ms a read
(median), against 180 ms with every network on both cores, whose threads then contend, and
198 ms with every network on one. (The board dice detector ran beside too until it was asked
only where the pip groups do not give the throw, `dice.find_dice`.)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

# Threads for the networks run beside the calling thread (onnxruntime's intra-op threads).
WORKER_THREADS = 1


def _new_pool() -> ThreadPoolExecutor:
    # A read gives it one job, its checkers; two reads at once, from two threads, do
    # not wait on each other.
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="referee-read")


_pool = _new_pool()


def _after_fork() -> None:
    # A forked child has none of its parent's threads, but a pool copied from a parent that had
    # started them counts them as there: work given to it would never be run.
    global _pool
    _pool = _new_pool()


os.register_at_fork(after_in_child=_after_fork)


def beside(job: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """`job(*args, **kwargs)` started on a worker thread; its result (or its exception) when
    asked for."""
    return _pool.submit(job, *args, **kwargs)
