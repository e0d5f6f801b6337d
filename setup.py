"""Build the optional C accelerator simdup.native._speedups (everything else is in pyproject.toml).

``optional=True``: if no C compiler is available the build is skipped with a warning and
simdup runs the pure-Python twins of its functions (named in simdup/native/__init__.py,
``TWINS``), with identical results.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "simdup.native._speedups",
            sources=["simdup/native/_speedups.c"],
            optional=True,
            extra_compile_args=["-O3"],
        )
    ]
)
