"""``python -m privdtol``: the same as the ``privdtol`` command."""

import sys

from privdtol.cli import main

sys.exit(main())
