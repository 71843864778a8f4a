"""MEWL's samplers, one module per rule of the paper (basic.py for shape, color and material), each
with the validator that recomputes its labels, and the coined words they share (words.py).

The file-only solvers (solver/) never import this package (pyproject.toml's contracts).
"""
