"""Paths named inside user-supplied files (suites, manifests, prompt files, labelled sets) resolve inside the
folder of the file that names them, symlinks included, so a file cannot make the process read what it did not
ship with it (the media store's originals, another user's images, /etc).
"""

from __future__ import annotations

from pathlib import Path


class OutsideFolder(ValueError):
    """A path named in a file is absolute, climbs out of the file's folder, or is a symlink leading out of it."""


def inside(folder: Path, name: str) -> Path:
    """`name` resolved against `folder` with every symlink followed; `OutsideFolder` (saying why) when it is an
    absolute path or the resolved file is not under `folder`'s own resolved path."""
    if Path(name).is_absolute():
        raise OutsideFolder(f"'{name}' is an absolute path; paths are relative to the file's folder")
    try:
        root = folder.resolve()
        path = (root / name).resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python 3.11)
        raise OutsideFolder(f"'{name}' cannot be resolved ({exc})") from None
    if not path.is_relative_to(root):
        raise OutsideFolder(
            f"'{name}' leads outside {root} (symlinks followed); paths stay inside the file's folder"
        )
    return path
