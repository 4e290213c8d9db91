"""Build the compiled cores: physics (.pyx) and the referees in rules/ (Cython pure-Python mode)."""

import glob
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def _module(path: str) -> str:
    return os.path.splitext(path)[0].replace(os.sep, ".")


def extensions():
    exts = []
    os.chdir(HERE)
    for path in sorted(glob.glob("physics/*.pyx")):
        exts.append(Extension(_module(path), [path], extra_compile_args=["-O3"]))
    for path in sorted(glob.glob("rules/*.py")):
        if os.path.basename(path) == "__init__.py":
            continue
        exts.append(Extension(_module(path), [path], extra_compile_args=["-O2"]))
    return cythonize(
        exts,
        compiler_directives={"language_level": "3", "embedsignature": True},
        quiet=True,
    )


setup(ext_modules=extensions())
