"""`python -m mewl_gen`: the `mewl` command."""
import sys

from mewl_gen.cli.main import main

sys.exit(main())
