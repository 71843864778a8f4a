"""Bongard-LOGO's published results (Nie et al., NeurIPS 2020; seeds/002), measured on the original LOGO
drawings, not on our 3D problems.

Table 1 reports one test accuracy per test set; its problem types are ours, its test sets are out of
distribution where our splits are drawn alike:
- FF (free-form shapes, with action programs one longer than any in training) -> bongard-freeform;
- BA (basic shapes, novel compositions of two shape categories; ours also asks for one) -> bongard-basic;
- CM (abstract shapes, novel pairs of attributes each seen in training) -> bongard-abstract: every attribute
  it asks about was trained on, as every abstract template of ours is in every split.
Left out: NV (abstract shapes of an attribute held out of training, "have_eight_straight_lines"), which no
task or split of ours holds out; the "Train Acc" column (training accuracy). The humans were not tested on
CM and NV apart: Table 1 gives them one figure for both, kept here as bongard-abstract.
"""
from __future__ import annotations

from ..benchmark import Published

TABLE_1 = "Bongard-LOGO (Nie et al., NeurIPS 2020), Table 1"


def _row(who: str, ff: float, ba: float, cm: float, human: bool = False) -> Published:
    """A row of Table 1 from its FF, BA and CM test accuracies in percent."""
    return Published(TABLE_1, who, {"bongard-freeform": round(ff / 100, 4), "bongard-basic": round(ba / 100, 4),
                                    "bongard-abstract": round(cm / 100, 4)}, human,
                     condition={"bongard-freeform": "FF test set", "bongard-basic": "BA test set",
                                "bongard-abstract": "CM and NV test sets" if human else "CM test set"})


# Table 1: "Model performance versus human performance in BONGARD-LOGO. We report the test accuracy (%) on
# different dataset splits, including free-form shape test set (FF), basic shape test set (BA), combinatorial
# abstract shape test set (CM), and novel abstract shape test set (NV). Note that for human evaluation, we
# report the separate results across two groups of human subjects: Human (Expert) who well understand and
# carefully follow the instructions, and Human (Amateur) who quickly skim the instructions or do not follow
# them at all." Models: means over three runs; the "±" left out. Columns FF, BA, CM.
# seeds/002 prints the table's cells column by column, in the order BA, FF, NV, CM (ten, ten, eight, ten
# figures; the humans' one CM-and-NV cell comes with the CM column); the text confirms the reading: the best
# FF of the models is 66.3 % (Meta-Baseline-SC), Human (Expert) is over 99 % on BA and 92.1 % on FF.
PUBLISHED: tuple[Published, ...] = (
    _row("SNAIL", 56.3, 60.2, 60.1),
    _row("ProtoNet", 64.6, 72.4, 62.4),
    _row("MetaOptNet", 60.3, 71.7, 61.7),
    _row("ANIL", 56.6, 59.0, 59.6),
    _row("Meta-Baseline-SC", 66.3, 73.3, 63.5),
    _row("Meta-Baseline-MoCo", 65.9, 72.2, 63.9),
    _row("WReN-Bongard", 50.1, 50.9, 53.8),
    _row("CNN-Baseline", 51.9, 56.6, 53.6),
    _row("Human (Expert)", 92.1, 99.3, 90.7, human=True),
    _row("Human (Amateur)", 88.0, 90.0, 71.0, human=True),
)

# The paper, as the dataset and export cards cite it.
BIBTEX = r"""@inproceedings{nie2020bongard,
  title     = {{Bongard-LOGO}: A New Benchmark for Human-Level Concept Learning and Reasoning},
  author    = {Nie, Weili and Yu, Zhiding and Mao, Lei and Patel, Ankit B. and Zhu, Yuke and Anandkumar, Animashree},
  booktitle = {Advances in Neural Information Processing Systems (NeurIPS)},
  year      = {2020}
}"""
