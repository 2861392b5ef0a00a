"""A progress display on stderr for long work (GIF/PNG replays): tqdm when it is installed, else a
plain ``desc: i/n`` counter rewritten in place at most twice a second."""

from __future__ import annotations

import sys
import time


class Progress:
    """``with Progress(total, "gif") as bar: ... bar.update()``."""

    def __init__(self, total: int, desc: str, unit: str = "image", enabled: bool = True):
        self.total, self.desc, self.n = int(total), desc, 0
        self.enabled = enabled
        self._bar, self._shown = None, 0.0
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self._bar = tqdm(total=self.total, desc=desc, unit=unit, file=sys.stderr)

    def update(self, k: int = 1) -> None:
        self.n += k
        if self._bar is not None:
            self._bar.update(k)
        elif self.enabled and (time.monotonic() - self._shown >= 0.5 or self.n >= self.total):
            self._shown = time.monotonic()
            print(f"\r{self.desc}: {self.n}/{self.total}", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled and self.n:
            print(file=sys.stderr, flush=True)
        self.enabled = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
