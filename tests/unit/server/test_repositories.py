"""Each slice's SQL lives in its repository modules: no SQL, no table and no engine elsewhere.

A module may hold SQL text, import rk's piccolo tables (``platform/db/tables.py``) or reach a
table's engine (``Table._meta.db``) only if it is a repository module (``repository.py``,
``repository_<engine>.py``, or a module of a ``repository/`` package), an engine-named dialect
module (``postgres.py``, ``sqlite.py``, ``<name>_postgres.py``, ``<name>_sqlite.py``,
``pg_<name>.py``, ``sqlite_<name>.py``, ``pgvector.py``) or part of the database platform
(``server/platform/db/``, migrations included). ``_meta.db`` itself only the platform touches.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "server"
DATABASE_PLATFORM = SERVER / "platform" / "db"

DATA_MODULE = re.compile(
    r"^(repository(_\w+)?|postgres|sqlite|\w+_postgres|\w+_sqlite|pg_\w+|sqlite_\w+|pgvector)$"
)
STATEMENT = re.compile(
    r"^\s*\(?\s*(SELECT|INSERT\s+INTO|UPDATE\s+\w+|DELETE\s+FROM|WITH\s+(RECURSIVE\s+)?\w+\s+AS"
    r"|CREATE\s|ALTER\s|DROP\s|PRAGMA\s|LISTEN\s|UNLISTEN\s|NOTIFY\s|TRUNCATE\s|COPY\s"
    r"|VACUUM|ANALYZE|EXPLAIN\s|SET\s+(LOCAL\s+)?\w+\s*(=|TO)|BEGIN\b|COMMIT\b|ROLLBACK\b"
    r"|SAVEPOINT\s|RELEASE\s)"
)
CLAUSE = re.compile(
    r"\b(FROM|WHERE|JOIN|ORDER BY|GROUP BY|RETURNING|ON CONFLICT|VALUES|LIMIT|OFFSET|HAVING"
    r"|AND|OR|IS NULL|IS NOT NULL|COALESCE|EXISTS|DISTINCT|ASC|DESC)\b"
)
PLACEHOLDER = re.compile(r"\{\}|\$\d|\s\?(\s|,|\)|$)|\b\w+\.\w+\s*(=|<|>|IN\b)")
TABLES_MODULE = "rk.server.platform.db.tables"


def looks_like_sql(text: str) -> bool:
    """Whether a string literal is SQL: a statement, or a fragment of two clauses or one bound."""
    if STATEMENT.match(text):
        return True
    clauses = set(CLAUSE.findall(text))
    return len(clauses) >= 2 or (len(clauses) == 1 and PLACEHOLDER.search(text) is not None)


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of every docstring node: prose about SQL is not SQL."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            found.add(id(body[0].value))
    # A bare string under a constant documents it (attribute docstrings).
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        for stmt in body if isinstance(body, list) else []:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                found.add(id(stmt.value))
    return found


def literal_text(node: ast.AST) -> str | None:
    """The text of a string literal or the constant parts of an f-string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value if isinstance(part, ast.Constant) else "{}" for part in node.values
        )
    return None


def is_tables_module(name: str | None) -> bool:
    """Whether ``name`` is rk's tables module or one of the ``tables_<what>`` modules behind it."""
    return name is not None and (name == TABLES_MODULE or name.startswith(TABLES_MODULE + "_"))


def imports_tables(node: ast.AST) -> bool:
    """Whether ``node`` imports rk's piccolo tables."""
    if isinstance(node, ast.ImportFrom):
        return is_tables_module(node.module)
    return isinstance(node, ast.Import) and any(is_tables_module(a.name) for a in node.names)


def faults_of(path: Path, server: Path = SERVER) -> Iterator[str]:
    """What ``path`` does that only a repository, dialect or platform module may do."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(server.parent)
    platform_db = path.is_relative_to(server / "platform" / "db")
    data_module = (
        platform_db
        or DATA_MODULE.match(path.stem) is not None
        or "repository" in path.relative_to(server).parts[:-1]
    )
    if not platform_db:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "db"
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "_meta"
            ):
                yield f"{where}:{node.lineno} reaches a table's engine (_meta.db)"
    if data_module:
        return
    skip = docstrings(tree)
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            inner.update(id(part) for part in node.values)
    for node in ast.walk(tree):
        if imports_tables(node):
            yield f"{where}:{getattr(node, 'lineno', 0)} imports the tables"
        if id(node) in skip or id(node) in inner:
            continue
        text = literal_text(node)
        if text is not None and looks_like_sql(text):
            line = text.strip().splitlines()[0][:60] if text.strip() else ""
            yield f"{where}:{getattr(node, 'lineno', 0)} holds SQL: {line!r}"


def packages(server: Path = SERVER) -> list[str]:
    """The slices of ``server`` and platform's subpackages, and the wiring (``.``)."""
    names = [p.name for p in sorted(server.iterdir()) if (p / "__init__.py").exists()]
    subs = [f"platform/{p.name}" for p in sorted((server / "platform").iterdir()) if p.is_dir()]
    return [".", *[n for n in names if n != "platform"], *subs]


def modules_of(package: str, server: Path = SERVER) -> list[Path]:
    """The modules of one entry of ``packages`` (``.``: the wiring modules at the top)."""
    if package == ".":
        return sorted(server.glob("*.py"))
    return sorted(p for p in (server / package).rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("package", packages())
def test_data_access_lives_in_repositories(package: str) -> None:
    faults = [fault for path in modules_of(package) for fault in faults_of(path)]
    assert faults == [], "\n".join(faults)


def test_the_check_sees_each_kind_of_fault(tmp_path: Path) -> None:
    server = tmp_path / "server"
    (server / "shop").mkdir(parents=True)
    (server / "platform" / "db").mkdir(parents=True)
    service = server / "shop" / "service.py"
    service.write_text(
        '"""SELECT in a docstring is prose."""\n'
        "from rk.server.platform.db.tables import Article\n"
        'SQL = "SELECT id FROM articles"\n'
        'WHERE = "a.status = {} AND a.kind = {}"\n'
        'LOG = "nothing to see"\n'
        "def run() -> None:\n"
        "    Article._meta.db.run_querystring(None)\n"
        '    f"DELETE FROM articles WHERE id = {1}"\n',
        encoding="utf-8",
    )
    faults = list(faults_of(service, server))
    assert [f.split(" ", 1)[1].split(":")[0] for f in faults] == [
        "reaches a table's engine (_meta.db)",
        "imports the tables",
        "holds SQL",
        "holds SQL",
        "holds SQL",
    ]
    repository = server / "shop" / "repository.py"
    repository.write_text(service.read_text(encoding="utf-8"), encoding="utf-8")
    assert [f for f in faults_of(repository, server) if "_meta.db" not in f] == []
    assert len(list(faults_of(repository, server))) == 1
    platform = server / "platform" / "db" / "engine.py"
    platform.write_text(service.read_text(encoding="utf-8"), encoding="utf-8")
    assert list(faults_of(platform, server)) == []


def test_the_modules_behind_the_tables_count_as_the_tables() -> None:
    for line in (
        "from rk.server.platform.db.tables_archive import Brand",
        "import rk.server.platform.db.tables_jobs",
    ):
        assert imports_tables(ast.parse(line).body[0])
    assert not imports_tables(ast.parse("from rk.server.platform.db.tablespace import x").body[0])


def test_plain_strings_are_not_sql() -> None:
    for text in [
        "Select a brand",
        "from the show page",
        "Order by date",
        "and then it was gone",
        "no show WHERE you looked",
    ]:
        assert not looks_like_sql(text), text
    for text in [
        "SELECT 1",
        " WHERE a.id = {}",
        "UPDATE articles SET status = $1",
        "a.status = 'published' AND a.deleted_at = 0",
        "ORDER BY a.date DESC, a.id DESC",
    ]:
        assert looks_like_sql(text), text
