"""MEWL's published results (Jiang et al., ICML 2023; seeds/000), measured on the original MEWL data, not on ours.

The paper's nine columns are our nine task names. Its "Avg." column is left out: it is not a task, and
`mewl eval` averages what it shows itself. BERT and GPT-3.5 read captions from an oracle captioner, not the
images (section 4.2): the paper itself calls that setting "not comparable with the multimodal one" (6.1).
"""
from __future__ import annotations

from ..benchmark import Published

TASKS = ("shape", "color", "material", "object", "composite", "relation", "bootstrap", "number", "pragmatic")
TABLE_2 = "MEWL (Jiang et al., ICML 2023), Table 2"


def _row(who: str, percents: tuple[float, ...], human: bool = False) -> Published:
    """A row of the table, its percentages in the order of TASKS."""
    return Published(TABLE_2, who, {t: round(p / 100, 4) for t, p in zip(TASKS, percents, strict=True)}, human,
                     condition={t: "the original MEWL test split" for t in TASKS})


# Table 2: "Performance of baseline models and humans on MEWL." (the Human row is also Table A1,
# "Performance of humans on MEWL", with the same figures)
PUBLISHED: tuple[Published, ...] = (
    _row("CLIP (w/o TE)", (16.2, 18.0, 19.3, 17.0, 22.2, 20.8, 18.7, 19.2, 20.2)),
    _row("CLIP (w/TE)", (22.0, 18.8, 21.0, 21.2, 15.0, 17.8, 21.0, 19.5, 21.5)),
    _row("Aloe", (34.2, 33.2, 31.0, 19.5, 30.5, 21.5, 27.5, 23.3, 20.8)),
    _row("Flamingo-1.1B", (49.3, 35.3, 48.5, 19.2, 38.2, 18.8, 57.3, 84.2, 18.0)),
    _row("BERT", (94.8, 98.8, 97.5, 19.5, 97.8, 22.2, 62.2, 21.8, 99.8)),
    _row("GPT-3.5", (96.8, 82.3, 87.0, 98.2, 88.3, 20.0, 45.8, 22.7, 26.7)),
    _row("Human", (92.4, 87.2, 72.7, 79.1, 63.5, 48.7, 71.0, 93.9, 54.8), human=True),
)

# The paper, as the dataset and export cards cite it.
BIBTEX = r"""@inproceedings{jiang2023mewl,
  title     = {{MEWL}: Few-shot multimodal word learning with referential uncertainty},
  author    = {Jiang, Guangyuan and Xu, Manjie and Xin, Shiji and Liang, Wei and Peng, Yujia and Zhang, Chi and Zhu, Yixin},
  booktitle = {Proceedings of the 40th International Conference on Machine Learning (ICML)},
  year      = {2023}
}"""
