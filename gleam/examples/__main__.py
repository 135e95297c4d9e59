"""`python -m gleam.examples [--json]`: every worked example as one JSON document."""
import sys

from gleam.examples import main

sys.exit(main())
