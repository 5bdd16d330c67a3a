"""``python -m privdtol.cli``: the same as the ``privdtol`` command."""

import sys

from . import main

sys.exit(main())
