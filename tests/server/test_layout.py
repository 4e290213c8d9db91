"""The shape of server/, read from its imports as a linter would: nothing imports server/app.py, no import cycle.

Every ``import`` and ``from ... import`` of every module under server/ counts, wherever it is written
(a function body, an ``if TYPE_CHECKING:`` block): ``from pkg import name`` is an edge to ``pkg.name``
when that is a module, else to ``pkg``.
"""

import ast
import os
from typing import Dict, List, Set

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def server_modules() -> Dict[str, str]:
    """module name -> file path, for every module of the server package."""
    out = {}
    for dirpath, _, files in os.walk(os.path.join(ROOT, "server")):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                out[rel[: -len(".__init__")] if rel.endswith(".__init__") else rel] = path
    return out


def imports_of(path: str, modules: Dict[str, str]) -> Set[str]:
    """The server modules ``path`` imports."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in modules:
                    out.add(a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if full in modules:
                    out.add(full)
                elif node.module in modules:
                    out.add(node.module)
    return out


def graph() -> Dict[str, Set[str]]:
    modules = server_modules()
    return {m: imports_of(p, modules) - {m} for m, p in modules.items()}


def cycles(g: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    out: List[List[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_nothing_imports_the_app():
    g = graph()
    assert "server.app" in g
    assert sorted(m for m, deps in g.items() if "server.app" in deps) == []


def test_no_import_cycle_in_server():
    assert cycles(graph()) == []


def test_the_checker_sees_a_cycle_and_a_function_level_import():
    """The reader is not blind: an import inside a function counts, and a cycle is reported."""
    src = "def f():\n    from server.hub import Hub\n"
    tree_mods = {"server.hub": "", "server.x": ""}
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(src)
    try:
        assert imports_of(fh.name, tree_mods) == {"server.hub"}
    finally:
        os.unlink(fh.name)
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_table_package_is_below_the_hub_and_the_cluster():
    """Arrows point one way: the table package knows nothing of routing, the cluster, the lobby or sessions."""
    g = graph()
    table = [m for m in g if m.startswith("server.table")]
    above = {"server.hub", "server.lobby", "server.registry", "server.session", "server.app"} | {
        m for m in g if m.startswith("server.cluster") or m.startswith("server.http")}
    assert {m: sorted(g[m] & above) for m in table if g[m] & above} == {}
