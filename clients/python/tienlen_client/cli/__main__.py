"""`python -m tienlen_client.cli`: the `tienlen` tool without its console script."""

import sys

from tienlen_client.cli import main

sys.exit(main())
