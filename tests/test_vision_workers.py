"""Work a read runs beside its calling thread (`referee.vision.workers`)."""

from __future__ import annotations

import os
import threading

import pytest

from referee.vision.workers import beside


def test_a_job_runs_on_another_thread_and_gives_its_result_or_its_error() -> None:
    total, thread = beside(lambda a, b: (a + b, threading.get_ident()), 2, b=3).result(timeout=10)
    assert total == 5 and thread != threading.get_ident()
    with pytest.raises(ZeroDivisionError):
        beside(lambda: 1 // 0).result(timeout=10)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_can_still_run_jobs_beside_it() -> None:
    # The parent's workers have started; a child forked now has none of them.
    assert beside(lambda: 1).result(timeout=10) == 1
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, whatever happens
        try:
            os.write(write, b"%d" % beside(lambda: 7).result(timeout=10))
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 16)
    os.close(read)
    os.waitpid(pid, 0)
    assert answer == b"7"
