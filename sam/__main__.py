"""`python -m sam`: the same as the `sam-sim` command."""

from sam.cli import main

raise SystemExit(main())
