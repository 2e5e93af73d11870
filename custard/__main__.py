"""`python -m custard`: the same as the `custard` command."""

from custard.cli import main

raise SystemExit(main())
