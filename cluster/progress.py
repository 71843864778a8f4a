"""Progress of a render: a tqdm bar on a terminal, plain lines otherwise
(logs of batch jobs), and a summary at the end."""
from __future__ import annotations

import os
import shutil
import sys
import time

from .pipeline import Outcome


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    def __init__(self, total: int, skipped: int, stream=None, interval: float | None = None):
        self.stream = stream or sys.stderr
        self.total, self.skipped = total, skipped
        self.done = self.failed = self.images = self.renders = 0
        self.start = time.monotonic()
        self.interval = interval if interval is not None else float(os.environ.get("MEWL_PROGRESS_INTERVAL", "30"))
        self._last_line = self.start
        self.bar = None
        if self.stream.isatty() and total:
            from tqdm import tqdm

            size = shutil.get_terminal_size((100, 20))  # a pty of unknown size reports 0x0: tqdm would hide
            self.bar = tqdm(total=total, unit="ep", desc="render", file=self.stream, ncols=size.columns, nrows=size.lines,
                            bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} episodes [{elapsed}<{remaining}{postfix}]")

    @property
    def wall(self) -> float:
        return time.monotonic() - self.start

    @property
    def images_per_second(self) -> float:
        return self.images / self.wall if self.wall > 0 else 0.0

    def update(self, outcome: Outcome) -> None:
        self.done += outcome.ok
        self.failed += not outcome.ok
        self.images += outcome.images
        self.renders += outcome.renders
        if not outcome.ok:
            self.write(f"failed: {outcome.task} episode {outcome.index}: {outcome.reasons[-1]}")
        self._show(force=self.done + self.failed == self.total)

    def tick(self) -> None:
        self._show(force=False)

    def _show(self, force: bool) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(f"{self.images_per_second:.2f} images/s" + (f", {self.failed} failed" if self.failed else ""),
                                     refresh=False)
            finished = self.done + self.failed
            if finished != self.bar.n:
                self.bar.update(finished - self.bar.n)
            else:
                self.bar.refresh()  # elapsed time moves on between episodes
        elif force or time.monotonic() - self._last_line >= self.interval:
            self._last_line = time.monotonic()
            self.write(self.line())

    def line(self) -> str:
        finished = self.done + self.failed
        left = (self.total - finished) * self.wall / finished if finished else float("nan")
        eta = _clock(left) if finished else "?"
        return (f"render: {finished}/{self.total} episodes ({self.failed} failed), "
                f"{self.images_per_second:.2f} images/s, {_clock(self.wall)} elapsed, {eta} left")

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def summary(self, interrupted: bool = False) -> str:
        extra = f" ({self.renders} renders with redrawn panels)" if self.renders != self.images else ""
        head = "render interrupted" if interrupted else "render finished"
        return (f"{head}: done {self.done}, skipped {self.skipped} (already complete), failed {self.failed}, "
                f"wall {_clock(self.wall)}, {self.images} images, {self.images_per_second:.2f} images/s{extra}")
