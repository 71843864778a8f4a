"""`mewl study`: people measured on the items of a dataset (docs/study.md). select.py chooses the items,
plan.py lays out the trials and the key, build.py writes the experiment, score.py and human.py score the
participants into a human row for `mewl eval`."""
