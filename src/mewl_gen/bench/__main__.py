"""`python -m mewl_gen.bench`: what `make bench` runs."""
import sys

from mewl_gen.bench.suite import main

sys.exit(main())
