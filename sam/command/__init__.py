"""The command layer: the promises every ``custard`` and ``sam-sim`` subcommand keeps.

A command declares what it reads and writes, and the layer checks it before any work:

* :mod:`sam.command.outputs` — an output that is an input or another output, whose folder is
  missing or not writable, or whose suffix the command cannot write, is refused up front;
* :mod:`sam.command.files` — text inputs are read with one-line errors (missing, a folder,
  empty, larger than the command's limit, not UTF-8 with the line and column of the first bad
  byte) and outputs are written atomically (a failed write leaves the old file as it was);
* :mod:`sam.command.bounds` — every size-like option (lanes, vector length, widths, tile
  sizes, split factors) is checked against a range and against the memory it implies;
* :mod:`sam.command.entry` — the argument parser and the one top-level error handler: one line
  per error, the exit codes of the README, ``KeyboardInterrupt`` as exit 130 without a
  traceback.

New commands get these rules by calling the layer, never by copying them. ``tests/
test_commands.py`` runs every subcommand through the same hostile inputs.
"""
