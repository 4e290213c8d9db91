"""The build: compiled cores are imported, the console script is wired."""

import subprocess
import sys

import physics.evolve
import rules.base


def test_compiled_cores_are_imported():
    assert physics.evolve.__file__.endswith(".so")
    assert rules.base.__file__.endswith(".so")


def test_console_script_help():
    out = subprocess.run([sys.executable, "-m", "server.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "billar" in out.stdout
