"""``python -m reporters``: the same as ``promoflow reporter``."""

import sys

from reporters.run import main

sys.exit(main())
