"""Build the optional C accelerator simdup.native._speedups (everything else is in pyproject.toml).

One extension module compiled from every C file of simdup/native/, one file per topic
(module.c puts their functions together; common.h holds what they share, so a change to it
rebuilds them all). ``optional=True``: if no C compiler is available the build is skipped with
a warning and simdup runs the pure-Python twins of its functions (named in
simdup/native/__init__.py, ``TWINS``), with identical results.
"""

import sys
from glob import glob

from setuptools import Extension, setup

# POSIX threads: the edit join's candidate step runs on every core (editjoin.c; without them
# it runs on one).
THREADS = [] if sys.platform == "win32" else ["-pthread"]

setup(
    ext_modules=[
        Extension(
            "simdup.native._speedups",
            # Sorted: the same build in any directory listing order.
            sources=sorted(glob("simdup/native/*.c")),
            depends=["simdup/native/common.h"],
            optional=True,
            extra_compile_args=["-O3", *THREADS],
            extra_link_args=THREADS,
        )
    ]
)
