"""`python -m dreamdesk`: the same as the `dreamdesk` command."""

import sys

from dreamdesk.gui.app.launcher import main

sys.exit(main())
