"""What the model converters (convert-moonshine.py, convert-whisper.py) share: one-line failures,
file checksums for their manifests, and installing a converted model's directory atomically."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

# Staging and retired directories older than this are a killed run's leftovers.
STALE_SECONDS = 3600


class Failure(Exception):
    """An error reported to the user as one line, without a traceback."""


def failure_line(error: Exception) -> str:
    """What a converter says of an error that ended it, in one line: a `Failure` as it is worded,
    anything else as its type and the first line of its message."""
    if isinstance(error, Failure):
        return f"error: {error}"
    detail = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"error: {error.__class__.__name__}: {detail}"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_entry(path: Path) -> dict:
    """A manifest's entry for a file: its size and SHA-256."""
    return {"bytes": path.stat().st_size, "sha256": sha256(path)}


def fsync_path(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def remove_stale(parent: Path, name: str) -> None:
    """Removes staging and retired directories that a killed run left behind (only old ones, so
    a conversion running concurrently keeps its own)."""
    for pattern in (f".{name}.tmp-*", f".{name}.old-*"):
        for path in parent.glob(pattern):
            try:
                if path.is_dir() and time.time() - path.stat().st_mtime > STALE_SECONDS:
                    shutil.rmtree(path, ignore_errors=True)
            except OSError:
                pass


def install_atomically(output: Path, build) -> None:
    """Builds into a temporary directory beside `output` (`build(staging)`) and renames it into
    place. An existing `output` is moved aside first and removed after; on failure it is put
    back, and a failed build leaves `output` as it was."""
    if output.exists() and not output.is_dir():
        raise Failure(f"{output} exists and is not a directory")
    parent = output.parent
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale(parent, output.name)
    staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.tmp-", dir=parent))
    try:
        build(staging)
        # mkdtemp makes the directory private; the model is meant to be readable by every user.
        os.chmod(staging, 0o755)
        for path in staging.iterdir():
            os.chmod(path, 0o644)
            fsync_path(path)
        fsync_path(staging)
        if output.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{output.name}.old-", dir=parent))
            os.rename(output, retired / output.name)
            try:
                os.rename(staging, output)
            except OSError:
                os.rename(retired / output.name, output)
                raise
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.rename(staging, output)
        fsync_path(parent)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
