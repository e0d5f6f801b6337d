"""The test suite, laid out as the package it tests: ``tests/<folder>/test_<module>.py`` for
``simdup/<folder>/<module>.py``, ``tests/test_<module>.py`` for the modules at the top of the
package, and ``tests/contract/`` for the suites that hold the whole program to a promise
(layering, bad inputs, never altering what is read, stable fingerprints, fuzzing, the docs,
packaging).

Every test folder is a package (it has an ``__init__.py``), so two files of one name in two
folders (``tests/algorithms/test_index.py``, ``tests/store/test_index.py``) are two modules
under pytest's default import mode; the shared helpers are imported by their full names
(``tests.conftest``, ``tests.strategies``, ``tests.pdfs``) and the fixture files are found
through ``tests.conftest.DATA``.
"""
