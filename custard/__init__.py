"""Custard: compile tensor index notation with formats and schedules to SAM dataflow graphs."""
