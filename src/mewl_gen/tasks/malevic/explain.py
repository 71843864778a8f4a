"""Why a MALeViC sentence is true or false, from the item's files as its file-only solver reads them: the
object the sentence names, its reference set, their sizes (half-heights in the image's ground truth), the
scene's k and threshold T, and where the target falls; and its objects' roles (the target, the rest of
its reference set as context, the objects outside it as distractors)."""
from __future__ import annotations

from ..gallery import CONTEXT, DISTRACTOR, TARGET, truth_json
from ..stored import StoredItem
from .item import MalevicItem
from .solver import described, parse, verdict


def why(stored: StoredItem) -> tuple[str, ...]:
    item = stored.item()
    image = truth_json(stored, "image")
    if image is None:
        return ()
    target, reference = described(item.sentence, image)
    _, _, adjective, noun = parse(item.sentence)
    sizes = [o["3d_coords"][2] for o in image["objects"] if o["shape"] != "arrow"]
    ref = [sizes[i] for i in reference]
    covered = "every object" if noun == "object" else f"the {noun}s"
    lines = [f"The sentence names object #{target}; its reference set is {covered}: "
             + ", ".join(f"#{i} {sizes[i]:.2f}" for i in reference) + " (half-heights, scene units)."]
    if item.k is None:
        rest = [sizes[i] for i in reference if i != target]
        lines.append(f"The target's {sizes[target]:.2f} against the others' largest {max(rest):.2f} and smallest "
                     f"{min(rest):.2f}: {adjective} needs it beyond all of them.")
    else:
        t = max(ref) - item.k * (max(ref) - min(ref))
        side = "big" if sizes[target] >= t else "small"
        lines.append(f"T = Max - k (Max - Min) = {max(ref):.2f} - {item.k:.3f} ({max(ref):.2f} - {min(ref):.2f}) = "
                     f"{t:.3f}; the target's {sizes[target]:.2f} is {'at or above' if side == 'big' else 'below'} "
                     f"T: it counts as {side}.")
    fits = verdict(adjective, sizes, target, reference, item.k)
    lines.append(f"So {item.sentence!r} is {'true' if fits else 'false'}.")
    return tuple(lines)


def roles(item: MalevicItem) -> dict[str, dict[int, str]]:
    return {"image": {i: TARGET if i == item.target else CONTEXT if i in item.reference else DISTRACTOR
                      for i in range(len(item.scene.objects))}}
