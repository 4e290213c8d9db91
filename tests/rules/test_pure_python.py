"""The referees uncompiled give the same rulings as the compiled build (rules/ is Cython pure-Python mode).

Every other test here runs the compiled modules (tests/conftest.py insists). This one copies the
``.py`` sources of rules/ and its subpackages into a temporary folder, re-judges the stored match
records (tests/rules/data) there in a child process, and compares every ruling, byte for byte of
its JSON, with the compiled run in this process.
"""

from __future__ import annotations

import glob
import io
import json
import os
import shutil
import subprocess
import sys

import rules.carom.game
import rules.straight_pool.game
from rules.replay import load_record, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
RECORDS = sorted(glob.glob(os.path.join(DATA, "*.json.gz")))

CHILD = """
import io, json, sys
import rules.carom.game, rules.straight_pool.game
from rules.replay import load_record, run
assert rules.straight_pool.game.__file__.endswith(".py") and rules.carom.game.__file__.endswith(".py")
out = {}
for path in sys.argv[1:]:
    buf = io.StringIO()
    out[path] = [run(load_record(path), None, True, buf), buf.getvalue()]
print(json.dumps(out))
"""


def test_pure_python_and_compiled_referees_rule_the_stored_records_alike(tmp_path):
    assert rules.straight_pool.game.__file__.endswith(".so") and rules.carom.game.__file__.endswith(".so")
    assert len(RECORDS) == 3
    for p in glob.glob("rules/**/*.py", root_dir=ROOT, recursive=True):
        dst = tmp_path / p
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(os.path.join(ROOT, p), dst)
    env = dict(os.environ, PYTHONPATH=str(tmp_path) + os.pathsep + ROOT)
    child = subprocess.run([sys.executable, "-c", CHILD, *RECORDS], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=600)
    assert child.returncode == 0, child.stderr
    pure = json.loads(child.stdout)
    for path in RECORDS:
        buf = io.StringIO()
        status = run(load_record(path), None, True, buf)
        lines = buf.getvalue().splitlines()
        assert status == 0 and pure[path][0] == 0, path
        assert json.loads(lines[-1])["differences"] == 0
        assert len(lines) > 20
        assert pure[path][1].splitlines() == lines, path
