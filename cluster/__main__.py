"""`python -m cluster`: the same as the `mewl` command."""
import sys

from .cli import main

sys.exit(main())
