"""Progress of a render: a tqdm bar on a terminal, plain lines otherwise
(logs of batch jobs), and a summary at the end. It moves per image: an
item in flight counts the images rendered so far (at most all but one,
however often its panels are redrawn), a finished one all of its images.
Items of different tasks may have different numbers of images."""
from __future__ import annotations

import os
import shutil
import sys
import time

from mewl_gen.errors import UserError
from mewl_gen.tasks.catalog import noun

from .item_job import Outcome


def say(text: str, stream=None) -> None:
    """A line of the run's log (stderr). A log that cannot be written (its disk
    full: SLURM's logs may sit in OUT) stops the run like a fault of OUT's own
    disk; cli.main then exits 2 even where that line cannot be written either."""
    try:
        print(text, file=stream or sys.stderr, flush=True)
    except OSError as err:
        raise UserError(f"cannot write the log (standard error): {err.strerror}") from None


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    def __init__(self, jobs: list[tuple[str, int]], skipped: int, images_of: dict[str, int], stream=None,
                 interval: float | None = None):
        """jobs: the (task, index) to render; images_of: images per item of each task."""
        self.stream = stream or sys.stderr
        self.total, self.skipped = len(jobs), skipped
        self.images_of = images_of
        self.noun = noun(images_of)  # the benchmarks' word for one item
        self.total_images = sum(images_of[task] for task, _ in jobs)
        self.finished_images = 0  # every image of each finished item
        self.done = self.failed = self.images = self.renders = self.by_other = 0
        self.in_flight: dict[tuple[str, int], int] = {}  # images rendered of items not finished, redraws' too
        self.rendered = 0  # every image rendered, redraws included
        self.start = time.monotonic()
        self.interval = interval if interval is not None else float(os.environ.get("MEWL_PROGRESS_INTERVAL", "30"))
        self._last_line = self.start
        self.bar = None
        if self.stream.isatty() and self.total:
            from tqdm import tqdm

            size = shutil.get_terminal_size((100, 20))  # a pty of unknown size reports 0x0: tqdm would hide
            self.bar = tqdm(total=self.total_images, unit="img", desc="render", file=self.stream,
                            ncols=size.columns, nrows=size.lines,
                            bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} images [{elapsed}<{remaining}{postfix}]")

    @property
    def wall(self) -> float:
        return time.monotonic() - self.start

    @property
    def images_per_second(self) -> float:
        return self.rendered / self.wall if self.wall > 0 else 0.0

    @property
    def finished(self) -> int:
        return self.done + self.failed + self.by_other

    @property
    def position(self) -> int:
        """Images so far: all of each finished episode's, and the rendered ones of those in flight."""
        return self.finished_images + sum(min(n, self.images_of[task] - 1) for (task, _), n in self.in_flight.items())

    def image(self, task: str, index: int) -> None:
        key = (task, index)
        self.in_flight[key] = self.in_flight.get(key, 0) + 1
        self.rendered += 1
        self._show(force=False)

    def waiting(self, task: str, index: int, writer: str) -> None:
        self.write(f"waiting: {task} {self.noun} {index} is being rendered by another writer ({writer})")

    def update(self, outcome: Outcome) -> None:
        self.in_flight.pop((outcome.task, outcome.index), None)
        self.finished_images += self.images_of[outcome.task]
        if outcome.by_other and outcome.ok:
            self.by_other += 1
        else:
            self.done += outcome.ok
            self.failed += not outcome.ok
        self.images += outcome.images
        self.renders += outcome.renders
        if not outcome.ok:
            by = " (by another writer)" if outcome.by_other else ""
            self.write(f"failed: {outcome.task} {self.noun} {outcome.index}{by}: {outcome.reasons[-1]}")
        self._show(force=self.finished == self.total)

    def tick(self) -> None:
        self._show(force=False)

    def _show(self, force: bool) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(f"{self.finished}/{self.total} {self.noun}s, {self.images_per_second:.2f} images/s"
                                     + (f", {self.failed} failed" if self.failed else ""), refresh=False)
            if self.position != self.bar.n:
                self.bar.update(self.position - self.bar.n)
            else:
                self.bar.refresh()  # elapsed time moves on between images
        elif force or time.monotonic() - self._last_line >= self.interval:
            self._last_line = time.monotonic()
            self.write(self.line())

    def line(self) -> str:
        total, at = self.total_images, self.position
        eta = _clock((total - at) * self.wall / at) if at else "?"
        return (f"render: {at}/{total} images, {self.finished}/{self.total} {self.noun}s ({self.failed} failed), "
                f"{self.images_per_second:.2f} images/s, {_clock(self.wall)} elapsed, {eta} left")

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            say(text, self.stream)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def summary(self, interrupted: bool = False, published=lambda task, index: False) -> str:
        """The run's last line. After an interrupt the items whose outcome never came are done where
        `published(task, index)` finds them complete (a worker may publish one between Ctrl-C and its stop),
        else dropped: their images, which the progress line counted, are said with them."""
        done, images, dropped = self.done, self.images, []
        for (task, index), n in self.in_flight.items() if interrupted else ():
            if published(task, index):
                done, images = done + 1, images + self.images_of[task]
            else:
                dropped.append(n)
        counted = f"{images} images"
        if sum(dropped):
            unfinished = f"{len(dropped)} unfinished {self.noun}" + ("s" if len(dropped) > 1 else "")
            counted = f"{images + sum(dropped)} images ({sum(dropped)} of them of {unfinished}, dropped)"
        extra = f" ({self.renders} renders with redrawn panels)" if self.renders != self.images else ""
        head = "render interrupted" if interrupted else "render finished"
        other = f", {self.by_other} by another writer" if self.by_other else ""
        return (f"{head}: done {done}, skipped {self.skipped} (already complete), failed {self.failed}{other}, "
                f"wall {_clock(self.wall)}, {counted}, {self.images_per_second:.2f} images/s{extra}")
