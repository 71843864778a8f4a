"""What `mewl eval` takes as an answer: every form a model may give, the exports' labels included.

An answer is judged against the item's own solution in the item's native form
(Item.read_answer: a choice word, true/false, a message, two truth values ...)
or, where the task's export declares a class column as its answer
(tasks.benchmark.Export.answer), as that column's value: a class name or its
integer index, exactly as the Hugging Face export's `ClassLabel` and the
WebDataset sample's JSON give it. The native form is tried first, so that a
choice word that looks like an index is read as the word.
"""
from __future__ import annotations

from mewl_gen.tasks.benchmark import Column, Task
from mewl_gen.tasks.item import Item


def class_index(column: Column, value: object) -> int | None:
    """The class a value names: an index into the column's classes or one of their names; None otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 <= value < len(column.classes) else None
    if isinstance(value, str) and value in column.classes:
        return column.classes.index(value)
    return None


def forms(task: Task) -> str:
    """The forms an answer to the task may take, for a message."""
    export = task.export
    if export is None or export.answer is None:
        return "its native form"
    classes = export.columns[export.answer].classes
    return (f"its native form, or the export's {export.answer!r}: one of {', '.join(map(repr, classes))} "
            f"or 0-{len(classes) - 1}")


def judge(task: Task, item: Item, value: object) -> bool:
    """Whether the answer is the item's; ValueError (why, a few words) when it is in no form the item takes."""
    try:
        return item.read_answer(value) == item.solution()
    except ValueError as native:
        export = task.export
        if export is None or export.answer is None:
            raise
        found = class_index(export.columns[export.answer], value)
        if found is None:
            raise ValueError(f"{native}; or {forms(task).removeprefix('its native form, or ')}") from None
        return found == export.fields(item)[export.answer]


def example(task: Task, item: Item) -> object:
    """A right answer to the item as a prediction would give it: the native answer where it is a word or a
    message, else the name of the export's class (`test_a`, `true`), else the native answer."""
    solution = item.solution()
    export = task.export
    if isinstance(solution, str) or export is None or export.answer is None:
        return solution
    return export.columns[export.answer].classes[export.fields(item)[export.answer]]
