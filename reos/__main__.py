"""`python -m reos` runs the same entry point as the `reos` command."""

from reos.cli import main

raise SystemExit(main())
