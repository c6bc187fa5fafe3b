"""`python -m dreamdesk`: the same as the `dreamdesk` command."""

import sys

from dreamdesk.gui.launcher import main

sys.exit(main())
