"""Progress bars (training, solvers, exploitability) that also read well in a log.

tqdm comes with the ``[train]`` and ``[solve]`` extras; callers check that it is installed. On a
terminal the bar is tqdm's, redrawn in place. When stderr is a file or a pipe (CI, ``make run >
log``), redrawing in place writes every frame onto one ever longer line joined by carriage returns
(the three training runs of ``make run`` left about 1700 frames); there the bar prints a plain line
of its own at most every ``LOG_EVERY`` seconds, and at the end: also for a bar made with
``leave=False``, which a terminal removes when it closes (a log cannot take a line back, and without
its last line such a bar would stay at the 0% it printed when it started), and without the cursor
moves that stack bars open at once on a terminal.
"""

from __future__ import annotations

import sys

#: Seconds between two lines of a bar in a log.
LOG_EVERY = 30.0
#: A line of a bar in a log: the counts, times, rate and the latest figures, without the bar itself.
LOG_FORMAT = "{desc}: {percentage:3.0f}% {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]"


class _Lines:
    """A stream for tqdm that writes each frame as a line of its own."""

    def __init__(self, stream):
        self.stream = stream
        self.last = ""

    def write(self, text: str) -> None:
        text = text.replace("\r", "").rstrip()
        count = text.split(" [")[0]  # "desc: 100% 2048/2048"
        if text and count != self.last:  # closing redraws the last count once more
            self.stream.write(text + "\n")
            self.last = count

    def flush(self) -> None:
        self.stream.flush()


def progress_bar(**kwargs):
    """``tqdm(**kwargs)`` on stderr: redrawn on a terminal, a line every ``LOG_EVERY`` s in a log."""
    from tqdm import tqdm

    stream = sys.stderr
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if terminal:
        return tqdm(file=stream, dynamic_ncols=True, **kwargs)

    class LogBar(tqdm):
        """In a log, new figures wait for the next line: tqdm's ``set_postfix`` would print one at once
        (a line every training period instead of every ``LOG_EVERY`` s)."""

        def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
            super().set_postfix(ordered_dict, refresh=False, **kwargs)

        def set_postfix_str(self, s="", refresh=True):
            super().set_postfix_str(s, refresh=False)

        def moveto(self, n):
            """No cursor moves: each line of a log is a bar's line of its own, whatever its position."""

    # leave: the last line of every bar, even one a terminal would remove (see the module docstring)
    kwargs["leave"] = True
    return LogBar(file=_Lines(stream), mininterval=LOG_EVERY, bar_format=LOG_FORMAT, **kwargs)


def optional_progress_bar(enabled: bool = True, **kwargs):
    """:func:`progress_bar` when ``enabled`` and tqdm is installed (it comes with the extras that
    need bars), else ``None``: callers then show no bar."""
    if not enabled:
        return None
    try:
        import tqdm  # noqa: F401  (installed, so the bar can be shown)
    except ImportError:
        return None
    return progress_bar(**kwargs)


__all__ = ["LOG_EVERY", "LOG_FORMAT", "optional_progress_bar", "progress_bar"]
