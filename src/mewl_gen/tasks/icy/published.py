"""ICY's published results ("Neural networks can understand compositional functions that humans do not, in
the context of emergent communication"; seeds/003), measured in the paper's own study, not on our data.

Only the human study reports accuracies of our kind: people wrote the message of an object whose
color-shape pair was held out of what they were shown, which is icy-naming's `test` split (held-out pairs
only, an open answer). Each row holds for one grammar and one vocabulary, while a dataset of ours has one
language (`--grammar`): a row is comparable only to an icy-naming test split in the grammar its `who` names
(ENG: the paper's 3-letter English abbreviations, our `symbols=eng`; SYNTH: random 2-letter words over 4
symbols). The paper's objects had two attributes (shape, color; 3 values each in SYNTH, 5 in ENG); ours
have four.

Left out: the neural models' results (Tables 3-6, 12-15, 19: convergence times relative to CONCAT, not
accuracies; Tables 16-18 and 20: accuracies on the language trained on, after a fixed budget of steps, with
no held-out objects);
icy-episodes, which the paper has no counterpart of (a choice among five messages). Tables 21 and 22 repeat
Table 2's acc_holdout (CONCAT printed as COMP) beside scores and times, which are not accuracies.
"""
from __future__ import annotations

from ..benchmark import Published

TABLE_2 = "ICY (seeds/003, 'Neural networks can understand compositional functions that humans do not'), Table 2"
GRAMMARS = ("CONCAT", "PERM", "PROJ", "ROT", "SHUFDET")


def _rows(dataset: str, accuracies: tuple[float, ...]) -> tuple[Published, ...]:
    """One human row per grammar of a dataset's line of Table 2 (acc_holdout, already in [0, 1])."""
    return tuple(Published(TABLE_2, f"Human ({dataset}, {grammar})", {"icy-naming": accuracy}, human=True,
                           condition={"icy-naming": f"held-out pairs, {dataset} vocabulary, {grammar} grammar"})
                 for grammar, accuracy in zip(GRAMMARS, accuracies, strict=True))


# Table 2: "Human evaluation results. Values are acc_holdout" (the mean over subjects; the "±" left out).
PUBLISHED: tuple[Published, ...] = (
    _rows("SYNTH", (0.2, 0.04, 0.02, 0.04, 0.06))
    + _rows("ENG", (0.6, 0.2, 0.04, 0.02, 0.7))
)

# The paper, as the dataset and export cards cite it.
BIBTEX = r"""@misc{icy,
  title  = {Neural networks can understand compositional functions that humans do not, in the context of
            emergent communication},
  author = {Anonymous},
  note   = {Paper under double-blind review; introduces the {ICY} benchmark},
  year   = {2021}
}"""
