"""One home for a user's mistakes and the error numbers: every user-error class derives from
errors.UserError, which the command turns into one line and exit 2."""
from __future__ import annotations

import ast
import errno
from pathlib import Path

import pytest

import mewl_gen
from mewl_gen import errors
from mewl_gen.cli import sample
from mewl_gen.render.passes import PassError
from mewl_gen.render.worker import DeviceError
from mewl_gen.scenes.spec import SpecError
from mewl_gen.store.files import NoSpace, Vanished, storage_fault
from mewl_gen.tasks.benchmark import UsageError
from mewl_gen.tasks.catalog import UnknownTask
from mewl_gen.tasks.stored import DamagedItem


@pytest.mark.parametrize("kind", [PassError, DeviceError, SpecError, NoSpace, Vanished, UsageError, UnknownTask,
                                  DamagedItem])
def test_every_users_mistake_is_one_kind_that_the_command_says_in_one_line(kind, monkeypatch, mewl):
    assert issubclass(kind, errors.UserError)

    def fail(args):
        raise kind("the bad value 'x'; expected 'y'")

    monkeypatch.setattr(sample, "cmd_sample", fail)
    code, _, err = mewl("sample", "--task", "pragmatic", "--n", 1, "--out", "unused")
    assert code == 2 and err == "mewl: error: the bad value 'x'; expected 'y'\n"


def test_a_storage_fault_is_read_from_the_one_table(tmp_path):
    assert set(errors.STORAGE) == {*errors.FULL, *errors.DENIED, *errors.GONE, errno.EIO}
    assert isinstance(storage_fault(tmp_path, OSError(errno.EDQUOT, "Disk quota exceeded")), NoSpace)
    assert str(storage_fault(tmp_path, OSError(errno.EROFS, "Read-only file system"))) == \
        f"cannot write to {tmp_path}: Read-only file system"
    assert storage_fault(tmp_path, OSError(errno.EBADF, "Bad file descriptor")) is None  # a bug: a traceback


def test_error_numbers_are_named_in_errors_py_only():
    """One vocabulary of what the operating system's errors mean: every other module reads the names
    errors.py gives (FULL, GONE, LINK_MET, is_link, ...), never the errno module."""
    src = Path(mewl_gen.__file__).parent
    found = []
    for path in sorted(src.rglob("*.py")):
        if path == src / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) else [])
            if "errno" in names:
                found.append(f"{path.relative_to(src)}:{node.lineno}")
    assert found == []


def test_an_error_raised_in_a_worker_process_reaches_the_parent_whole():
    """joblib's workers pickle what they raise; an error whose __init__ takes other arguments than its message
    would fail to unpickle in the parent, and the user would see that failure's traceback (a race test met it
    once: Refused in an export's worker)."""
    import pickle

    from mewl_gen.store.door import Refused

    refused = pickle.loads(pickle.dumps(Refused("OUT/train\n", "is a link")))
    assert (type(refused), str(refused), refused.why) == (Refused, str(Refused("OUT/train\n", "is a link")), "is a link")
    fault = pickle.loads(pickle.dumps(errors.ScratchFault(OSError(errno.ENOSPC, "No space left", "/tmp/x"))))
    assert (type(fault), str(fault), fault.error.errno) == (errors.ScratchFault, "No space left: /tmp/x", errno.ENOSPC)
