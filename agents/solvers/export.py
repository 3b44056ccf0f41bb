"""Tables written to a file by ``dice-envs solve ... --export PATH``: CSV or JSON by the suffix.

Shared by the Meyer equilibrium's strategy (:func:`agents.solvers.meyer.export_strategy`) and the
10 000 bank thresholds (:mod:`agents.solvers.tenthousand`, :mod:`agents.solvers.tenthousand_win`).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from agents.solvers.cache import atomic_open
from dice_envs import strict_json

#: The file formats of an export, by the path's suffix.
EXPORT_FORMATS = {".csv": "csv", ".json": "json"}


def export_format(path) -> str:
    """The format of an export to ``path``, by its suffix: ``"csv"`` or ``"json"``.

    Called before a solve starts, so it also checks that the file can be written where it goes
    (missing directories are made by the writer).

    Raises:
        ValueError: another suffix, a path that is a directory, or one under a file.
        OSError: no file can be created where it goes (permissions, a read-only file system).
    """
    from dice_envs.cli import check_writable

    path = Path(path)
    fmt = EXPORT_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"--export writes a .csv or a .json file (the format follows the suffix), "
                         f"got {str(path)!r}")  # fmt: skip
    if path.is_dir():
        raise ValueError(f"--export needs a file name, {str(path)!r} is a directory")
    check_writable(path.parent, f"--export {path}")
    return fmt


def write_rows(path, columns: tuple[str, ...], rows: Iterable[dict]) -> dict:
    """Write rows (dicts with keys ``columns``) to ``path`` as CSV or JSON (by the suffix),
    atomically (a temporary file beside it, then ``os.replace``), creating missing directories.

    CSV: a header line of ``columns``, then one line per row; ``None`` is an empty cell, booleans
    ``true`` / ``false``, floats in full (Python's shortest exact form). JSON: one array of row
    objects (keys ``columns``, ``null`` for ``None``), one row per line; strict JSON.

    Returns:
        ``{"path": the file (absolute), "format": "csv" or "json", "rows": how many rows,
        "columns": the column names}``.
    """
    fmt = export_format(path)
    path = Path(path).absolute()
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with atomic_open(path, "w", shared=True, newline="", encoding="utf-8") as f:
        if fmt == "csv":
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(columns)
            for row in rows:
                cells = (row[c] for c in columns)
                writer.writerow(("true" if v else "false") if isinstance(v, bool) else v for v in cells)
                count += 1
        else:
            f.write("[")
            for row in rows:
                f.write(("\n" if count == 0 else ",\n") + strict_json.dumps({c: row[c] for c in columns}))
                count += 1
            f.write("\n]\n")
    return {"path": str(path), "format": fmt, "rows": count, "columns": list(columns)}


__all__ = ["EXPORT_FORMATS", "export_format", "write_rows"]
