"""Which mutants ``make mutation`` skips (scripts/mutation.py; docs/testing.md).

tests/workflow/mutants/equivalent.yaml lists the equivalent mutants: no input the package can be
given tells them from the original.  An entry names a mutant by its function's qualified name
and its change, ``[before, after, why]``: the code the mutant changes and what it changes it
into, compared as syntax trees (``ast.unparse``'s text: quotes, spaces, line breaks, comments
and the line's place do not count).  ``before`` is the innermost simple statement holding the
change, or a compound statement's header expression (``while``'s test, ``with``'s items) when
the change is there; ``"*"`` every mutant of the function.  Reformatting or moving code keeps
every entry; rewriting the changed statement retires its entry (:func:`stale_entries`).
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT = ROOT / "tests" / "workflow" / "mutants" / "equivalent.yaml"


def _chain(a: ast.AST, b: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """The pairs of nodes of two syntax trees from the roots down to the smallest pair where
    they differ (empty when the trees are equal); positions, spaces and comments not compared."""
    if ast.dump(a) == ast.dump(b):
        return []
    chain = [(a, b)]
    while type(a) is type(b):
        differing = []
        for field in a._fields:
            x, y = getattr(a, field, None), getattr(b, field, None)
            xs, ys = (x, y) if isinstance(x, list) and isinstance(y, list) else ([x], [y])
            if len(xs) != len(ys):
                return chain
            for u, v in zip(xs, ys, strict=True):
                if isinstance(u, ast.AST) and isinstance(v, ast.AST):
                    if ast.dump(u) != ast.dump(v):
                        differing.append((u, v))
                elif u != v:
                    return chain
        if len(differing) != 1:
            return chain
        a, b = differing[0]
        chain.append((a, b))
    return chain


def _text(node: ast.AST) -> str:
    """A node's canonical source (``ast.unparse``; an expression statement as its expression)."""
    return ast.unparse(node.value if isinstance(node, ast.Expr) else node)


def mutation_of(orig: ast.AST, mutant: ast.AST) -> tuple[str, str]:
    """What a mutant changes, as (before, after) in canonical source: the innermost simple
    statement holding the change, or, when the change is in a compound statement's header
    (``while``'s test, ``with``'s items, a default argument), that header's expression.  A
    mutant is named by this and its function, not by a line: moving or reformatting code does
    not change it.  ``("", "")`` when the two are the same."""
    mutant = copy.deepcopy(mutant)  # renamed to the original: mutmut names each copy apart
    if hasattr(orig, "name"):
        mutant.name = orig.name
    chain = _chain(orig, mutant)
    if not chain:
        return "", ""
    deepest = max(i for i, (a, _) in enumerate(chain) if isinstance(a, ast.stmt))
    unit = chain[deepest]
    if _compound(unit[0]) and type(unit[0]) is type(unit[1]):  # its header's expression
        unit = next((p for p in chain[deepest:] if isinstance(p[0], ast.expr)), unit)
    return _text(unit[0]), _text(unit[1])


def canonical(text: str) -> str:
    """An equivalents entry's code as :func:`mutation_of` writes it (quotes, spaces, line breaks
    and trailing commas as ``ast.unparse`` has them); ``*`` stays ``*``."""
    if text == "*":
        return text
    body = ast.parse(text).body
    if len(body) != 1:
        raise ValueError(f"{text!r}: not one statement or expression")
    return _text(body[0])


def _compound(node: ast.AST) -> bool:
    return isinstance(node, ast.stmt) and hasattr(node, "body")


def _headers(node: ast.AST):
    """The expressions of a compound statement's header (its test, items, defaults...)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            yield child
        elif not isinstance(child, ast.stmt):
            yield from _headers(child)


def places(function: ast.AST) -> set[str]:
    """Every ``before`` that :func:`mutation_of` can give for a mutant of ``function``: its
    simple statements, its compound statements and their headers' expressions."""
    out = set()
    for node in ast.walk(function):
        if isinstance(node, ast.stmt):
            out.add(_text(node))
        if _compound(node):
            out |= {_text(e) for e in _headers(node)}
    return out


def function_node(src: Path, function: str) -> ast.AST | None:
    """The syntax tree of ``privdtol.a.b.f`` or ``privdtol.a.b.Class.method`` under ``src``."""
    parts = function.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        path = src.joinpath(*parts[:cut]).with_suffix(".py")
        if not path.exists():  # a package's __init__.py
            path = src.joinpath(*parts[:cut], "__init__.py")
        if path.exists():
            break
    else:
        return None
    node = ast.parse(path.read_text())
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for name in parts[cut:]:
        node = next(
            (n for n in ast.iter_child_nodes(node) if isinstance(n, kinds) and n.name == name), None
        )
        if node is None:
            return None
    return node


def stale_entries(equivalent: dict, src: Path = ROOT / "src") -> list[str]:
    """One line per entry of the equivalents file that can match no mutant: its function gone,
    its ``before`` no longer code of the function, ``after`` the same as ``before``, no reason."""
    problems = []
    for function, entries in sorted(equivalent.items()):
        node = function_node(src, function)
        if node is None:
            problems.append(f"{function}: no such function")
            continue
        found = places(node)
        for before, after, why in entries:
            if not why.strip():
                problems.append(f"{function}: {before!r} has no reason")
            if before != "*" and (before == after or before not in found):
                problems.append(f"{function}: {before!r} -> {after!r} matches no mutant")
    return problems


def function_of(key: str) -> str:
    """``privdtol.core.clock.x_checkpoints__mutmut_7`` -> ``privdtol.core.clock.checkpoints``
    (methods: ``...xǁClassǁmethod__mutmut_3`` -> ``....Class.method``)."""
    module, func = key.rsplit(".", 1)
    func = func.rsplit("__mutmut_", 1)[0]
    func = func[2:] if func.startswith(("x_", "xǁ")) else func
    return f"{module}.{func.replace('ǁ', '.')}"


def load_equivalent(path: Path = EQUIVALENT) -> dict[str, list[tuple[str, str, str]]]:
    """{function: [(before, after, why), ...]} of the equivalents file, the code canonical."""
    out = {}
    for function, entries in (yaml.safe_load(path.read_text()) or {}).items():
        try:
            out[function] = [(canonical(b), canonical(a), why) for b, a, why in entries]
        except (SyntaxError, ValueError) as exc:
            raise SystemExit(f"{path.name}: {function}: {exc}") from None
    return out


def is_equivalent(key: str, change: tuple[str, str], equivalent: dict) -> bool:
    """Whether the equivalents file lists mutant ``key``, whose change is ``change``."""
    entries = equivalent.get(function_of(key), [])
    return any(b == "*" or (b, a) == change for b, a, _ in entries)
