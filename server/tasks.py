"""Fire-and-forget coroutines that are still referenced until they end (asyncio keeps only weak references)."""

from __future__ import annotations

import asyncio
import logging
from typing import Coroutine, Set

log = logging.getLogger("billar.tasks")


class Background:
    """A set of background tasks: :meth:`spawn` starts one, :meth:`wait` lets the running ones finish."""

    def __init__(self) -> None:
        self._tasks: Set[asyncio.Task] = set()

    def spawn(self, coro: Coroutine) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    def __len__(self) -> int:
        return len(self._tasks)

    async def wait(self, timeout_s: float) -> None:
        """Wait up to ``timeout_s`` for the running tasks (those still running afterwards are left alone)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout_s)
