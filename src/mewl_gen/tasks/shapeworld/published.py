"""ShapeWorld's published results (Kuhnle & Copestake, 2017; seeds/004): none can be copied.

The paper reports its models' train/validation/test accuracies on four datasets (oneshape, multishape,
spatial, quantification) only in a figure (its caption, as seeds/004 keeps it: "figure accuracy four
selected models datasets detailed evaluation ability correctly understand specific instance types"), and
seeds/004 is the paper's text with its stop words and every number removed.
Nothing here is typed in from memory or another copy of the paper. The paper runs no human study (it
"would expect close-to-perfect human performance" but does not measure it), so there is no human row either.
"""
from __future__ import annotations

from ..benchmark import Published

PUBLISHED: tuple[Published, ...] = ()

# The paper, as the dataset and export cards cite it.
BIBTEX = r"""@misc{kuhnle2017shapeworld,
  title         = {{ShapeWorld} - A new test methodology for multimodal language understanding},
  author        = {Kuhnle, Alexander and Copestake, Ann},
  year          = {2017},
  eprint        = {1704.04517},
  archivePrefix = {arXiv}
}"""
