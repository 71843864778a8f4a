"""`python -m cli`: the same as the `mewl` command."""
import sys

from .main import main

sys.exit(main())
