"""Build the optional C accelerator simdup._speedups (everything else is in pyproject.toml).

``optional=True``: if no C compiler is available the build is skipped with a warning and
simdup runs the pure-Python twins of its functions (named in simdup/native.py, ``TWINS``), with
identical results.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "simdup._speedups",
            sources=["simdup/_speedups.c"],
            optional=True,
            extra_compile_args=["-O3"],
        )
    ]
)
