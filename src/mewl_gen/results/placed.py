"""An item's image placed in a site (`mewl gallery`, the inspector): linked, else copied, through its door."""
from __future__ import annotations

import os
from pathlib import Path

from PIL import Image

from mewl_gen.errors import shown
from mewl_gen.store.files import folder
from mewl_gen.store.nfs import create
from mewl_gen.store.record import MAX_PIXELS
from mewl_gen.tasks.stored import DamagedItem, StoredItem


def place(stored: StoredItem, name: str, root: Path, target: Path) -> tuple[int, int]:
    """The item's image `name` at `target` under `root` (a site's held folder, store.new_folder), made in its
    folder's descriptor: a hard link to the very file the door opened (a regular file of the item's folder,
    never what a link names) where the file systems allow one, else a copy; its size (width, height), read
    from its header and refused past MAX_PIXELS."""
    fd = stored.open_file(name)
    with os.fdopen(fd, "rb") as f, folder(root, target.parent) as here:
        try:
            os.link(f"/proc/self/fd/{fd}", target.name, dst_dir_fd=here, follow_symlinks=True)
        except OSError:
            create(here, target.name, iter(lambda: f.read(1 << 20), b""))
            f.seek(0)
        try:
            with Image.open(f) as im:
                size = im.size
        except (OSError, ValueError, Image.DecompressionBombError) as err:
            raise DamagedItem(f"{shown(str(stored.folder / name))}: not a readable image ({shown(err, 120)})") from None
    if size[0] * size[1] > MAX_PIXELS:
        raise DamagedItem(f"{shown(str(stored.folder / name))} claims {size[0]}x{size[1]} pixels, more than an image "
                          f"of this tool has")
    return size
