"""MALeViC's published results (Pezzelle & Fernández, EMNLP 2019; seeds/001), measured on the original 2D
MALeViC data, not on ours. The paper has no human study, hence no human row.

Tasks: SUP1 -> malevic-sup1, POS1 -> malevic-pos1, POS -> malevic-pos, SET+POS -> malevic-setpos,
POS-hard -> malevic-pos-hard, SET+POS-hard -> malevic-setpos-hard (as the paper's hard test sets, POS never
querying the scene's biggest or smallest object, SET+POS never the reference set's).

Left out:
- Table 1's "max val" and "avg val" columns (validation accuracies, and "max val" the best of 192 runs;
  in brackets FiLM from raw pixels): a row here is a test accuracy, so only "avg test" is kept.
- The "chance" rows (0.5 in every task of Tables 1-3): not measured; the task's solver says its chance.
- Table 3 (the compositional task: seen and unseen adjective-noun pairs of SET+POS): its datasets are a half
  of SET+POS with their own seen/unseen test sets, a split that a row keyed by task cannot carry, and its
  held-out pairs are not those of our `malevic-unseen` scheme.

The models are spelled as in the text and Table 2 (CNN+LSTM, CNN+LSTM+SA, FiLM); Table 1 prints them
"CNN-LSTM", "CNN-LSTM-SA" and "FilM"/"FiLM".
"""
from __future__ import annotations

from ..benchmark import Published

TABLE_1 = "MALeViC (Pezzelle & Fernández, EMNLP 2019), Table 1 (avg test)"
TABLE_2 = "MALeViC (Pezzelle & Fernández, EMNLP 2019), Table 2"

# Table 1: "Results by each model (column 2) in each task (1). [...] avg val ± sd (4) and avg test ± sd (5)
# refer to the average accuracy (and relative standard deviation) obtained across 3 runs by the best
# configuration of hyper-parameters of a given architecture on, respectively, val and test set."
# Columns: SUP1, POS1, POS, SET+POS; the "avg test" means.
TEST = "test set, mean of 3 runs"
_TEST = {t: TEST for t in ("malevic-sup1", "malevic-pos1", "malevic-pos", "malevic-setpos")}
_TABLE_1 = (
    Published(TABLE_1, "CNN+LSTM", {"malevic-sup1": 0.8066, "malevic-pos1": 0.5455, "malevic-pos": 0.5493,
                                    "malevic-setpos": 0.551}, condition=_TEST),
    Published(TABLE_1, "CNN+LSTM+SA", {"malevic-sup1": 0.9983, "malevic-pos1": 0.9306, "malevic-pos": 0.94,
                                       "malevic-setpos": 0.7751}, condition=_TEST),
    Published(TABLE_1, "FiLM", {"malevic-sup1": 0.999, "malevic-pos1": 0.8546, "malevic-pos": 0.9333,
                                "malevic-setpos": 0.8788}, condition=_TEST),
)

# Table 2: "Average accuracy across 3 runs by a model in a hard test set. Models are trained on the task in
# train." POS-hard is tested after training on POS, SET+POS-hard after training on SET+POS.
_HARD = {"malevic-pos-hard": "POS-hard test set, trained on POS, mean of 3 runs",
         "malevic-setpos-hard": "SET+POS-hard test set, trained on SET+POS, mean of 3 runs"}
_TABLE_2 = (
    Published(TABLE_2, "CNN+LSTM", {"malevic-pos-hard": 0.5325, "malevic-setpos-hard": 0.4623}, condition=_HARD),
    Published(TABLE_2, "CNN+LSTM+SA", {"malevic-pos-hard": 0.8653, "malevic-setpos-hard": 0.478}, condition=_HARD),
    Published(TABLE_2, "FiLM", {"malevic-pos-hard": 0.8693, "malevic-setpos-hard": 0.6513}, condition=_HARD),
)

PUBLISHED: tuple[Published, ...] = _TABLE_1 + _TABLE_2

# The paper, as the dataset and export cards cite it.
BIBTEX = r"""@inproceedings{pezzelle2019malevic,
  title     = {Is the Red Square Big? {MALeViC}: Modeling Adjectives Leveraging Visual Contexts},
  author    = {Pezzelle, Sandro and Fern{\'a}ndez, Raquel},
  booktitle = {Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing (EMNLP)},
  year      = {2019}
}"""
