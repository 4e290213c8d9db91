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


def test_serve_on_a_taken_port_says_so_in_one_line(tmp_path):
    """``billar serve`` on a port something listens on: one error line, exit 1, no traceback, and the
    embedded Redis it started is stopped again."""
    import os
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = dict(os.environ, BILLAR_DATA_DIR=str(tmp_path / "var"))
        env.pop("REDIS_URL", None)
        out = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--log-level", "WARNING"],
                             capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 1
    assert f"billar: cannot listen on 127.0.0.1:{port}:" in out.stderr and "address already in use" in out.stderr
    assert "Traceback" not in out.stderr
    from loadtest.serverproc import embedded_redis_pids

    assert embedded_redis_pids(str(tmp_path / "var")) == []
