"""CSV that people open in a spreadsheet: a cell of text from elsewhere (a participant's id, chosen in the
URL they opened; a dataset's split) is shown as text, never run as a formula. OWASP's rule for CSV
injection: a text cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading
single quote, which spreadsheets take as "text" and do not evaluate."""
from __future__ import annotations

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """A CSV cell: text that could start a formula, quoted; anything else as it is."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_START) else value


def row(values) -> list:
    return [cell(v) for v in values]


def record(values: dict) -> dict:
    """A csv.DictWriter's row, each cell through `cell`."""
    return {k: cell(v) for k, v in values.items()}
