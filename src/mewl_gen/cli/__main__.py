"""`python -m mewl_gen`: the same as the `mewl` command."""
import sys

from .main import main

sys.exit(main())
