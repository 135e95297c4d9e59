"""The shape of the core (STYLE.md, "The shape of the core"): packages by idea, each small; no
module reaching into another's private names; no import circle; the UI never imported."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GLEAM = ROOT / "gleam"
UI = ("panel", "bokeh", "param", "gleam_lab", "app", "content", "js", "pyodide")


def module_name(path, root=ROOT):
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(folder, root=ROOT):
    """{dotted name: path} of every module under `folder` (a package's __init__ by the package's name)."""
    return {module_name(p, root): p for p in sorted(folder.rglob("*.py")) if "__pycache__" not in p.parts}


def imports(path, root=ROOT):
    """(module imported, names taken from it, line) for every import in `path`, at any depth
    (a relative import by its absolute name)."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, (), node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            yield module, tuple(a.name for a in node.names), node.lineno


def private_imports(folder, root=ROOT):
    found = []
    for name, path in modules(folder, root).items():
        for module, names, line in imports(path, root):
            found += [f"{path.relative_to(root)}:{line} {module}.{n}" for n in names
                      if n.startswith("_") and not (n.startswith("__") and n.endswith("__"))]
    return found


def graph(folder=GLEAM, root=ROOT):
    """{module: set of modules of `folder` it imports}: `from pkg import sub` counts as an
    import of the submodule pkg.sub when there is one, else of pkg itself."""
    mods = modules(folder, root)
    top = folder.name
    edges = {}
    for name, path in mods.items():
        out = set()
        for module, names, _ in imports(path, root):
            if module.split(".")[0] != top:
                continue
            subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in mods]
            out.update(subs)
            if len(subs) < len(names) or not names:
                out.add(module)
        out.discard(name)
        edges[name] = {m for m in out if m in mods}
    return edges


def cycles(edges):
    """Every import circle, each as a list of modules (Tarjan's strongly connected components)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_another_modules_private_names():
    assert private_imports(GLEAM) == []


def test_no_import_circle_in_the_core():
    assert cycles(graph()) == []


def test_the_checks_find_a_circle_and_a_private_import(tmp_path):
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.model import Model\n")
    (pkg / "sub" / "model.py").write_text("def make():\n    from .export import save\n")
    (pkg / "sub" / "export.py").write_text("from pkg.sub.model import _check\n")
    assert cycles(graph(pkg, tmp_path)) == [["pkg.sub.export", "pkg.sub.model"]]
    assert private_imports(pkg, tmp_path) == ["pkg/sub/export.py:1 pkg.sub.model._check"]


def test_the_core_is_packages_by_idea():
    top = [p.name for p in GLEAM.glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= 12, top
    packages = [p for p in GLEAM.rglob("__init__.py") if p.parent != GLEAM]
    for init in packages:
        count = len([p for p in init.parent.glob("*.py") if p.name not in ("__init__.py", "__main__.py")])
        assert count <= 15, f"{init.parent.relative_to(ROOT)} holds {count} modules"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc, f"{init.relative_to(ROOT)} says nothing of what its package holds"


@pytest.mark.parametrize("name", sorted(modules(GLEAM)))
def test_the_core_never_imports_the_ui(name):
    path = modules(GLEAM)[name]
    ui = [f"{module} (line {line})" for module, _, line in imports(path) if module.split(".")[0] in UI]
    assert not ui, f"{name} imports {ui}"


def test_the_ui_check_walks_every_subpackage():
    names = modules(GLEAM)
    assert {"gleam.sweep.runner", "gleam.examples.ch0_scalar", "gleam.labs.memory.acceptance"} <= set(names)
