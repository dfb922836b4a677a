"""``python -m bench.device``: see `bench.device.runner`."""

import sys

from bench.device.runner import main

sys.exit(main())
