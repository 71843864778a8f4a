"""MALeViC: the label recomputed from the released files alone, and two deprived guessers.

Everything here reads the dicts of an item's `item.json` and `image.json`
(never the sampler): the sentence says which object and which reference set, the
image's ground truth gives every object's shape, color and size (its
half-height, `3d_coords[2]`), the item gives the scene's k.
"""
from __future__ import annotations

import re

CHANCE = 1 / 2  # each index its own fair label coin, whatever the sentence
_SENTENCE = re.compile(r"^The (\w+) (\w+) is (?:a|the) (big|small|biggest|smallest) (\w+)$")


def parse(sentence: str) -> tuple[str, str, str, str]:
    """'The red cube is a big object' -> ('red', 'cube', 'big', 'object')."""
    found = _SENTENCE.fullmatch(sentence)
    if found is None:
        raise ValueError(f"not a MALeViC sentence: {sentence!r}")
    return found.groups()  # type: ignore[return-value]


def described(sentence: str, image_json: dict) -> tuple[int, list[int]]:
    """The one object the sentence names, and its reference set: the objects its
    noun covers ('object': all of them)."""
    color, shape, _, noun = parse(sentence)
    objects = [o for o in image_json["objects"] if o["shape"] != "arrow"]
    named = [i for i, o in enumerate(objects) if (o["color"], o["shape"]) == (color, shape)]
    if len(named) != 1:
        raise ValueError(f"{sentence!r} names {len(named)} objects, not one")
    return named[0], [i for i, o in enumerate(objects) if noun in ("object", o["shape"])]


def verdict(adjective: str, values: list[float], target: int, reference: list[int], k: float | None) -> bool:
    """Whether the adjective fits values[target] against the reference set: strict
    max/min for the superlative; the top k of the range (Max - k (Max - Min)) for
    'big', everything below it for 'small'."""
    ref = [values[i] for i in reference]
    rest = [values[i] for i in reference if i != target]
    if adjective == "biggest":
        return values[target] > max(rest)
    if adjective == "smallest":
        return values[target] < min(rest)
    big = values[target] >= max(ref) - k * (max(ref) - min(ref))
    return big == (adjective == "big")


def solve(item_json: dict, image_json: dict) -> bool:
    """The label from the sizes in the image's ground truth and the item's k."""
    target, reference = described(item_json["sentence"], image_json)
    sizes = [o["3d_coords"][2] for o in image_json["objects"] if o["shape"] != "arrow"]
    return verdict(parse(item_json["sentence"])[2], sizes, target, reference, item_json["k"])


def text_only_guess(sentence: str) -> bool:
    """Bet that sentences calling an object big are the true ones."""
    return parse(sentence)[2] in ("big", "biggest")


def area_guess(item_json: dict, image_json: dict) -> bool:
    """The 2D shortcut: the same rule on projected areas (pixels), blind to depth."""
    target, reference = described(item_json["sentence"], image_json)
    return verdict(parse(item_json["sentence"])[2], list(item_json["projected_area"]), target, reference,
                   item_json["k"])
