"""The pass registry without Blender: each pass's file from a buffer as Blender gives it, and back."""
from __future__ import annotations

import numpy as np
import pytest

from mewl_gen.errors import UserError
from mewl_gen.render.passes import PASS, PASSES, REGISTRY, PassError, file_name, is_pass_file, parse, read


def _buffers(rng: np.random.Generator, h: int = 7, w: int = 5) -> dict[str, np.ndarray]:
    rgba = rng.normal(size=(h, w, 4)).astype(np.float32)
    rgba[0, 0] = 0.0  # nothing hit: no normal, no albedo
    depth = rng.uniform(0.5, 30.0, size=(h, w, 4)).astype(np.float32)
    depth[0, 0, 0] = 1e10  # Cycles' depth where a ray hits nothing
    index = rng.integers(0, 5, size=(h, w)).astype(np.int32)
    return {"depth": depth, "normal": rgba, "albedo": np.abs(rgba), "instance": index}


def test_every_pass_is_one_entry_with_its_own_file(tmp_path):
    assert PASSES == ("depth", "normal", "albedo", "instance") == tuple(p.name for p in REGISTRY)
    suffixes = [p.suffix for p in REGISTRY]
    assert len(set(suffixes)) == len(suffixes)
    for p in REGISTRY:
        assert p.suffix.startswith(f".{p.name}.") and file_name("ctx0", p.name) == "ctx0" + p.suffix
        assert is_pass_file(file_name("ctx0", p.name)) and p.meaning
    assert not is_pass_file("ctx0.png") and not is_pass_file("ctx0.json")
    # Blender gives every pass but instance (the object-index pass the masks are read from).
    assert [p.name for p in REGISTRY if p.layer is None] == ["instance"]


def test_each_file_reads_back_as_the_values_docs_passes_describes(tmp_path):
    buffers = _buffers(np.random.default_rng(3))
    for kind, pixels in buffers.items():
        path = tmp_path / file_name("ctx0", kind)
        path.write_bytes(PASS[kind].encode(pixels))
        values = read(path)
        assert values.shape[:2] == pixels.shape[:2]
    depth = read(tmp_path / "ctx0.depth.npy")
    assert depth.dtype == np.float32 and depth[0, 0] == np.inf and np.isfinite(depth[1:]).all()
    assert np.array_equal(depth[1:], buffers["depth"][1:, :, 0])
    normal = read(tmp_path / "ctx0.normal.png")
    assert (normal[0, 0] == 0).all() and np.allclose(np.linalg.norm(normal[1:], axis=-1), 1.0, atol=1e-4)
    albedo = read(tmp_path / "ctx0.albedo.png")
    assert np.allclose(albedo, np.clip(buffers["albedo"][..., :3], 0, 1), atol=1 / 65535)
    assert np.array_equal(read(tmp_path / "ctx0.instance.png"), buffers["instance"])


def test_a_file_that_is_no_pass_is_refused_by_name(tmp_path):
    (tmp_path / "ctx0.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(ValueError, match=r"^ctx0.png is not a pass file \(expected a name ending in "
                                         r"\.depth\.npy, \.normal\.png, \.albedo\.png, \.instance\.png\)$"):
        read(tmp_path / "ctx0.png")


@pytest.mark.parametrize("value, shown", [("depth,mist", "'mist'"), ("depth,", "an empty name"), ("Depth", "'Depth'")])
def test_a_pass_that_does_not_exist_is_a_users_mistake_in_one_line(value, shown):
    with pytest.raises(PassError) as err:
        parse(value)
    assert isinstance(err.value, UserError)
    assert str(err.value) == (f"--passes {value!r}: {shown} is not a pass; expected a comma list of "
                              "depth, normal, albedo, instance, or all")


def test_passes_come_in_registry_order_each_once():
    assert parse("instance,depth,depth") == ("depth", "instance")
    assert parse("all") == PASSES
