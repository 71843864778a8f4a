"""scikit-learn, loaded once and without pandas: every probe and learned baseline that fits a model calls
`load()` before its own `from sklearn... import`.

scikit-learn imports pandas where it is installed (sklearn.utils.fixes, only to name it; nothing we call
reads it: every model here is fitted on NumPy arrays), and `datasets` installs it. Importing the four
models the probes fit took a process to 191 MB in 2.9 s; with pandas kept out, 134 MB in 2.0 s (issue
41: most of `audit`'s growth in peak memory between a store too small to fit a model on and one large
enough). A process that has loaded pandas already (an export, through `datasets`) loads scikit-learn as
it is; pandas stays importable afterwards either way."""
from __future__ import annotations

import sys
import threading

_lock = threading.Lock()


def load() -> None:
    """Import scikit-learn's base modules, with `import pandas` failing while they load (they catch that)."""
    if "sklearn.base" in sys.modules:
        return
    with _lock:
        if "pandas" in sys.modules:
            import sklearn.base  # noqa: F401
            return
        sys.modules["pandas"] = None  # what a failed import leaves: `import pandas` raises ImportError
        try:
            import sklearn.base  # noqa: F401  (loads sklearn.utils.fixes, the module that asks for pandas)
        finally:
            if sys.modules.get("pandas", ...) is None:
                del sys.modules["pandas"]
