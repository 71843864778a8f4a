"""`mewl calibrate`: measure how many Blender workers keep one GPU (or the CPU) busy, and remember it."""
from __future__ import annotations

import json
import sys

from mewl_gen.cluster import hardware
from mewl_gen.cluster.calibrate import CANDIDATES, IMAGES, cache_path, key, measure, remember
from mewl_gen.errors import UserError
from mewl_gen.render import DeviceError

from . import options


def cmd_calibrate(args) -> int:
    device, quality = options.device(args.device), options.quality(args.quality)
    gpu_ids = options.gpu_ids(args.gpu_ids)
    images = options.positive_int("--images", args.images)
    ks = tuple(sorted({options.positive_int("--candidates", k) for k in str(args.candidates).split(",")}))
    if gpu_ids is None and device != "cpu":
        count = hardware.nvidia_gpus()
        gpu_ids = list(range(count)) if count else None
    if gpu_ids is None and device != "cpu":
        if device != "auto":
            raise UserError(f"--device {device}: no NVIDIA GPU visible (nvidia-smi, CUDA_VISIBLE_DEVICES); "
                            "use --device cpu to measure CPU workers")
        device = "cpu"
    gpu = bool(gpu_ids)
    print(f"calibrate: {key(device, gpu, quality)}: {images} images per candidate", file=sys.stderr)
    try:
        rates, used = measure(device, gpu_ids[0] if gpu else None, quality, ks, images,
                              report=lambda k, r: print(f"calibrate: {k} worker(s) on one {'GPU' if gpu else 'CPU'}: "
                                                        f"{r:.2f} images/s", file=sys.stderr))
    except DeviceError as err:
        raise UserError(str(err)) from None
    entry = remember(device, gpu, quality, rates, images)
    print(json.dumps({"key": key(device, gpu, quality), "device_used": used, **entry}, indent=1))
    print(f"calibrate: {entry['workers']} worker(s) per {'GPU' if gpu else 'CPU'} from now on (kept in {cache_path()})",
          file=sys.stderr)
    return 0


def register(sub) -> None:
    s = sub.add_parser("calibrate", help="measure how many Blender workers keep one GPU (or the CPU) busy, and remember it")
    s.add_argument("--device", default="auto", help=f"one of {', '.join(options.DEVICES)}")
    s.add_argument("--gpu-ids", default=None, help="the GPU to measure on (the first id is used)")
    s.add_argument("--quality", default="default", help="preview, draft, default or paper")
    s.add_argument("--candidates", default=",".join(map(str, CANDIDATES)), help="worker counts to try (default 1,2,3,4)")
    s.add_argument("--images", default=str(IMAGES), help=f"images rendered per candidate (default {IMAGES})")
    s.set_defaults(func=cmd_calibrate)
