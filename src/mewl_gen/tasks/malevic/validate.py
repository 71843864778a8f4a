"""Every MALeViC item recomputed from its scene spec: sizes, reference set, T, label,
the target's description and its twin, the task's rules and the visibility bound."""
from __future__ import annotations

import math

from mewl_gen.scenes.visibility import visible_enough

from ..seeds import name_code
from ..validation import check_scene_geometry, require
from .item import K_SHARP, SIZE_LEVELS, MalevicItem, sentence
from .rules import Rules, Statement, broken_rule, positive, reference_set, threshold, true_adjective, twin
from .sample import (
    IMAGE_SIZE,
    MATERIALS,
    MIN_VISIBLE_FRACTION,
    clevr_size,
    item_label,
    sentence_classes,
    visible_fractions,
)


def validate(item: MalevicItem, rules: Rules) -> None:
    objs = item.scene.objects
    require(len(item.sizes) == len(item.size_levels) == len(objs), "sizes are not one per object")
    require(all(o.half_extent == s for o, s in zip(objs, item.sizes)), "the sizes are not the scene's half-extents")
    require(all(SIZE_LEVELS[v] == s for v, s in zip(item.size_levels, item.sizes)), "a size is not its level's")
    require(all(o.size == clevr_size(o.scale) for o in objs), "an object's CLEVR size word is not its nearer one")
    require(all(o.material in MATERIALS for o in objs), "an object is made of glass")
    st = Statement(tuple(o.shape for o in objs), tuple(o.color for o in objs), item.size_levels, item.target, item.k)
    broken = broken_rule(rules, st)
    require(broken is None, f"{item.task}: {broken}")
    require(item.reference == reference_set(rules, st.shapes, item.target), "the reference set is not the task's")
    if item.k is None:
        require(item.threshold is None, "a superlative item has a threshold")
    else:
        require(item.threshold == threshold(item.sizes, item.reference, item.k), "T is not Max - k (Max - Min)")
    target = objs[item.target]
    noun = target.shape if rules.noun_is_shape else "object"
    require(item.noun == noun, f"the noun is {item.noun!r}, the task says {noun!r}")
    require(item.sentence == sentence(target.color, target.shape, item.adjective, noun),
            "the sentence is not the template's")
    pair = (item.adjective, target.shape)
    require(pair in sentence_classes(rules, item.scheme, item.split, item.task),
            f"{pair} is not a pair of the {item.split} split under {item.scheme}")
    require(item.label == (true_adjective(rules, st) == item.adjective), "the label does not follow from the sizes")
    require(item.label == item_label(item.root_seed, item.split, name_code(item.task), item.index),
            "the label is not its index's own coin")
    require(twin(rules, st, item.adjective) is not None,
            "no object of the target's shape one level away that the adjective tells apart from it")
    sharp = item.label if item.k is None else \
        positive(item.sizes, item.reference, item.target, K_SHARP) == item.adjective
    require(item.label_sharp == sharp, "label_sharp is not the label under k = 0.29")
    check_scene_geometry(item.scene, "image")
    camera = item.scene.camera
    require((camera.width, camera.height) == IMAGE_SIZE, f"the image is not {IMAGE_SIZE[0]}x{IMAGE_SIZE[1]}")
    areas, fractions = visible_fractions(item.scene)
    require(all(math.isclose(a, b, abs_tol=0.01) for a, b in zip(areas, item.projected_area)),
            "projected areas are not the scene's")
    # A ray grazing an edge may land either way on another machine's floating point: a pixel or two.
    require(all(abs(a - b) <= 0.01 for a, b in zip(fractions, item.visible_fraction)),
            "visible fractions are not the scene's")
    require(min(item.visible_fraction) >= MIN_VISIBLE_FRACTION,
            f"an object shows under {MIN_VISIBLE_FRACTION:.0%} of its outline")
    require(visible_enough(item.scene), "an object covers too few pixels to judge its size")
