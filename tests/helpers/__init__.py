"""Code shared by test files (``from helpers.NAME import ...``; ``tests/`` is on ``sys.path``
under pytest). A test file imports only these and the project, never another test file
(``tests/test_suite_structure.py``)."""
