"""Build the compiled cores: physics (.pyx) and the referees in rules/ and its subpackages (Cython pure-Python mode)."""

import glob
import os
import sysconfig

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))

# Per-module flags for GCC (the compiler of the CI and of these machines; others build without
# them). mathavan_2010: its force evaluation, declared inline, is larger than GCC's inlining limit;
# inlined into the integration step and the step into the impact loop, the impact's values stay in
# registers: 10-15 % faster impacts (bench: tmp harness of 28,000 impacts). Inlining changes no
# result: the same floating-point operations in the same order (no FMA contraction without
# -march, no reassociation without -ffast-math); tests/golden check it bit for bit.
GCC_ONLY = {
    "physics.mathavan_2010": ["--param=max-inline-insns-single=3000", "--param=max-inline-insns-auto=3000",
                              "--param=large-function-growth=3000", "--param=inline-unit-growth=3000"],
}

# Every physics module: sqrt and the other libm calls without errno (GCC then emits sqrtsd alone,
# not sqrtsd plus a test and a call of sqrt() for negative arguments that sets errno). errno is
# never read; the IEEE results of every operation are the same (no -ffast-math, no reassociation,
# no contraction: -ffp-contract=off keeps it so even on a machine whose default -march has FMA).
PHYSICS_GCC = ["-fno-math-errno", "-ffp-contract=off"]


PROTOCOL_COMPILED = ["protocol/eventlog.py", "protocol/motion.py"]


def _gcc() -> bool:
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or ""
    return "gcc" in cc and "clang" not in cc


def _module(path: str) -> str:
    return os.path.splitext(path)[0].replace(os.sep, ".")


def extensions():
    exts = []
    os.chdir(HERE)
    gcc = _gcc()
    for path in sorted(glob.glob("physics/*.pyx")):
        name = _module(path)
        exts.append(Extension(name, [path], extra_compile_args=["-O3"] + (PHYSICS_GCC + GCC_ONLY.get(name, []) if gcc else [])))
    # every module of rules/ and its concept packages (rules/straight_pool/, rules/carom/); a
    # package's __init__.py stays plain Python (it only re-exports)
    for path in sorted(glob.glob("rules/**/*.py", recursive=True)):
        if os.path.basename(path) == "__init__.py":
            continue
        exts.append(Extension(_module(path), [path], extra_compile_args=["-O2"]))
    rules = cythonize(
        exts,
        compiler_directives={"language_level": "3", "embedsignature": True},
        quiet=True,
    )
    # the wire format's numeric modules (the stroke's event log and its reference motion): compiled as they are,
    # with Python's semantics kept exactly (no annotation typing: a float-annotated name may still hold an int,
    # which msgpack writes differently; no contraction or errno-free libm: the same bits as the interpreter,
    # which the clients and tests/protocol check). protocol/motion.pxd types evolve()'s locals as C doubles
    # (every value there is a float: the same operations, the same bits; evolve 0.58 -> 0.19 us). The other
    # protocol modules stay plain Python.
    wire = [Extension(_module(path), [path], extra_compile_args=["-O2"] + (["-ffp-contract=off"] if gcc else []))
            for path in PROTOCOL_COMPILED]
    return rules + cythonize(
        wire,
        compiler_directives={"language_level": "3", "embedsignature": True, "annotation_typing": False,
                             "infer_types": False, "cdivision": False},
        quiet=True,
    )


# The Makefile's editable installs set BILLAR_NO_EXTENSIONS=1: pip then only installs the packages and
# their requirements, and `make build` compiles the cores once, in place, two at a time (each editable
# install compiled all of them again, one at a time: about 2.5 minutes each on a fresh machine).
setup(ext_modules=[] if os.environ.get("BILLAR_NO_EXTENSIONS") == "1" else extensions())
