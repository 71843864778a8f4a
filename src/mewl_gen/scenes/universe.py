"""The universe, declared once: the table of docs/tasks.md, in the tuple order of the released files."""
from __future__ import annotations

import itertools
from typing import Literal, get_args

from mewl_gen.errors import shown

Shape = Literal["cube", "sphere", "cylinder"]
Color = Literal["gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow"]
Material = Literal["rubber", "metal", "glass"]
Size = Literal["large", "small"]

SHAPES: tuple[str, ...] = get_args(Shape)
COLORS: tuple[str, ...] = get_args(Color)
MATERIALS: tuple[str, ...] = get_args(Material)
SIZES: tuple[str, ...] = get_args(Size)

# sRGB 0-255, as CLEVR's properties.json.
COLOR_RGB: dict[str, tuple[int, int, int]] = {
    "gray": (87, 87, 87),
    "red": (173, 35, 35),
    "blue": (42, 75, 215),
    "green": (29, 105, 20),
    "brown": (129, 74, 25),
    "purple": (129, 38, 192),
    "cyan": (41, 208, 208),
    "yellow": (255, 238, 51),
}
# Half-extent in scene units: the object spans [-s, s] around its centre.
SIZE_SCALE: dict[str, float] = {"large": 0.7, "small": 0.35}

Attribute = Literal["shape", "color", "material", "size"]
ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "shape": SHAPES,
    "color": COLORS,
    "material": MATERIALS,
    "size": SIZES,
}
_ATTRIBUTE_OF: dict[str, str] = {v: name for name, values in ATTRIBUTES.items() for v in values}
assert len(_ATTRIBUTE_OF) == sum(map(len, ATTRIBUTES.values())), "a value names two attributes"
# The object tuple order of the released files (docs/mewl-compatibility.md).
TUPLE_ORDER: tuple[str, ...] = ("shape", "color", "material", "size")

ObjectTuple = tuple[str, str, str, str]
# Every distinct object of the universe (144), in a fixed order whose index
# the first generator of this format used to make panel names unique.
UNIVERSE: tuple[ObjectTuple, ...] = tuple(itertools.product(SHAPES, COLORS, MATERIALS, SIZES))
UNIVERSE_INDEX: dict[ObjectTuple, int] = {o: i for i, o in enumerate(UNIVERSE)}

# The pointing hand is not an object of the universe; the released files list it so.
HAND_RGB: tuple[int, int, int] = (240, 191, 29)
HAND_TUPLE: ObjectTuple = ("arrow", "yellow", "rubber", "small")

Direction = Literal["left", "right", "front", "behind"]
DIRECTIONS: tuple[str, ...] = get_args(Direction)
OPPOSITE: dict[str, str] = {"left": "right", "right": "left", "front": "behind", "behind": "front"}
ORTHOGONAL: dict[str, tuple[str, str]] = {
    "left": ("front", "behind"),
    "right": ("front", "behind"),
    "front": ("left", "right"),
    "behind": ("left", "right"),
}

NUMBER_WORDS: tuple[str, ...] = ("one", "two", "three", "four", "five", "six")


def object_tuple(values) -> ObjectTuple:
    """The object with these attribute values (a mapping attribute -> value), in the universe's tuple order."""
    return tuple(values[a] for a in TUPLE_ORDER)  # type: ignore[return-value]


def attribute_of(value: str) -> str:
    """The attribute type a value belongs to (values are unique across types); ValueError for a value of none,
    which a model's validator turns into its validation error (a KeyError would escape it)."""
    try:
        return _ATTRIBUTE_OF[value]
    except (KeyError, TypeError):
        raise ValueError(f"{shown(repr(value), 60)} is not a shape, color, material or size of the universe") from None


def describe(obj: ObjectTuple) -> str:
    """CLEVR's reading order: 'large red metal cube'."""
    shape, color, material, size = obj
    return f"{size} {color} {material} {shape}"
