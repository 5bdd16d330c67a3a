"""Local Sphinx extension: the parts of the docs that are generated from the code at build time.

Directives (usable from MyST as ```` ```{privdtol-claims} ```` etc.):

``privdtol-claims``
    the claims table, from :data:`privdtol.analysis.registry.CLAIMS`;
``privdtol-notebooks``
    the notebooks table, from :data:`privdtol.analysis.registry.NOTEBOOKS`;
``privdtol-algorithms``
    the algorithm registry (:data:`privdtol.algorithms.ALGORITHMS`);
``privdtol-config-reference``
    every key of the pipeline configuration, from the JSON schema shipped in the package
    (:data:`privdtol.pipeline.config.SCHEMA_PATH`): type, default, allowed values, description;
``privdtol-cli``
    one section per ``privdtol`` subcommand with its ``--help`` text, from
    :func:`privdtol.cli.build_parser`;
``privdtol-api PACKAGE``
    one section per module of ``PACKAGE`` (recursively) holding its ``automodule``.

Nothing is written to disk: each directive returns docutils nodes, so a stale generated file
cannot exist.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import re
import sys
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

LOGGER = logging.getLogger(__name__)
HELP_WIDTH = 88  # fixed, so the generated usage text does not depend on the terminal


# ----------------------------------------------------------------------------- node helpers

_CODE = re.compile(r"``?([^`]+)``?")


def inline(text: str) -> list[nodes.Node]:
    """Plain text with ``code`` spans (single or double backticks) as literals."""
    out: list[nodes.Node] = []
    pos = 0
    for m in _CODE.finditer(text):
        if m.start() > pos:
            out.append(nodes.Text(text[pos : m.start()]))
        out.append(nodes.literal(m.group(1), m.group(1)))
        pos = m.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


def literal(text: str) -> nodes.literal:
    return nodes.literal(text, text)


def xref(role: str, target: str, text: str | None = None) -> addnodes.pending_xref:
    """A Python-domain cross-reference shown as code (like ``:mod:`target```)."""
    node = addnodes.pending_xref(
        "",
        refdomain="py",
        reftype=role,
        reftarget=target,
        refexplicit=text is not None,
        refwarn=False,
    )
    node += nodes.literal(text or target, text or target, classes=["xref", "py", f"py-{role}"])
    return node


def cell(content) -> nodes.entry:
    entry = nodes.entry()
    if isinstance(content, nodes.Node):
        content = [content]
    elif isinstance(content, str):
        content = inline(content)
    para = nodes.paragraph()
    for item in content:
        if isinstance(item, str):
            item = nodes.Text(item)
        para += item
    entry += para
    return entry


def joined(items, sep=", ") -> list[nodes.Node]:
    out: list[nodes.Node] = []
    for i, item in enumerate(items):
        if i:
            out.append(nodes.Text(sep))
        out.append(item)
    return out


def table(
    headers: list[str],
    rows: list[list],
    widths: list[int] | None = None,
    classes: tuple[str, ...] = (),
) -> nodes.table:
    widths = widths or [1] * len(headers)
    tab = nodes.table(classes=["privdtol-generated", *classes])
    group = nodes.tgroup(cols=len(headers))
    tab += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    row = nodes.row()
    for h in headers:
        row += cell(h)
    head += row
    group += head
    body = nodes.tbody()
    for values in rows:
        row = nodes.row()
        for v in values:
            row += cell(v)
        body += row
    group += body
    return tab


def section(directive: SphinxDirective, title: str | nodes.Node, key: str) -> nodes.section:
    sec = nodes.section()
    sec["ids"].append(nodes.make_id(key))
    sec["names"].append(nodes.fully_normalize_name(key))
    ttl = nodes.title()
    if isinstance(title, str):
        ttl += nodes.Text(title)
    else:
        ttl += title
    sec += ttl
    directive.state.document.note_explicit_target(sec, sec)
    return sec


# ----------------------------------------------------------------------------- claims


class ClaimsTable(SphinxDirective):
    """The claims registry as a table: id (linked to its check function), statement, source,
    experiments read, thresholds, notebook."""

    has_content = False

    def run(self):
        import sys

        from privdtol.analysis import registry

        for module in {c.check.partition(":")[0] for c in registry.CLAIMS.values()}:
            self.env.note_dependency(sys.modules[module].__file__)
        rows = []
        for c in registry.CLAIMS.values():
            rows.append(
                [
                    xref("func", _check_target(c.check), c.id),
                    c.title,
                    c.source,
                    joined([literal(e) for e in c.experiments]) or "—",
                    joined([literal(t) for t in c.thresholds]) or "—",
                    literal(c.notebook),
                ]
            )
        headers = ["claim", "statement", "paper", "experiments read", "thresholds", "notebook"]
        return [table(headers, rows, [8, 28, 16, 18, 20, 10])]


def _check_target(check) -> str:
    """``module:function`` (or the function itself) as a dotted name for a cross-reference."""
    if callable(check):
        return f"{check.__module__}.{check.__qualname__}"
    module, _, func = str(check).partition(":")
    return f"{module}.{func}" if func else module


class NotebooksTable(SphinxDirective):
    """The notebooks of the registry: figure number, experiments read, tables, claims shown."""

    has_content = False

    def run(self):
        from privdtol.analysis import registry
        from privdtol.report.figure_order import figure_number, notebooks_in_order

        self.env.note_dependency(registry.__file__)
        for name in registry.NOTEBOOKS:  # the figures' declarations
            self.env.note_dependency(sys.modules[f"privdtol.analysis.figures.{name}"].__file__)
        rows = []
        for n in (registry.NOTEBOOKS[name] for name in notebooks_in_order()):
            claims = registry.notebook_claims(n.name)
            rows.append(
                [
                    literal(f"notebooks/{n.name}.py"),
                    str(figure_number(n.name)),
                    joined([literal(f"results/agg/{e}.parquet") for e in n.experiments]),
                    joined([literal(f"results/tables/{t}.csv") for t in n.tables]) or "—",
                    joined([literal(f"results/checks/{c}.json") for c in claims]) or "—",
                ]
            )
        return [
            table(
                ["notebook", "figure", "reads", "tables written", "checks read"],
                rows,
                [14, 6, 26, 20, 20],
            )
        ]


class AlgorithmsTable(SphinxDirective):
    """The algorithm registry in display order, with each algorithm's declarations (role,
    privacy, exact law: :mod:`privdtol.algorithms.declarations`)."""

    has_content = False

    def run(self):
        from privdtol import algorithms

        rows = []
        for name, cls in algorithms.ALGORITHMS.items():
            rows.append(
                [
                    literal(name),
                    getattr(cls, "display_name", name),
                    cls.role,
                    "block" if cls.kind == "block" else "per round",
                    cls.privacy.mechanism if cls.privacy else "non-private",
                    cls.exact_law.family if cls.exact_law else "— (Monte Carlo)",
                    cls.source,
                    xref("class", f"{cls.__module__}.{cls.__qualname__}", cls.__qualname__),
                ]
            )
        return [
            table(
                ["name", "shown as", "role", "kind", "privacy", "exact law", "source", "class"],
                rows,
                [10, 12, 8, 7, 16, 10, 20, 14],
            )
        ]


# ----------------------------------------------------------------------------- config schema


def _resolve(node: dict, root: dict) -> dict:
    """Inline a ``$ref`` into ``#/$defs/...``; local keys (e.g. ``default``) win."""
    if "$ref" not in node:
        return node
    ref = node["$ref"]
    if not ref.startswith("#/"):
        raise ValueError(f"unsupported $ref {ref!r}")
    target = root
    for part in ref[2:].split("/"):
        target = target[part]
    merged = dict(_resolve(target, root))
    merged.update({k: v for k, v in node.items() if k != "$ref"})
    return merged


def _type(node: dict, root: dict) -> str:
    t = node.get("type")
    if t is None and "enum" in node:
        kinds = {type(v).__name__ for v in node["enum"]}
        t = "string" if kinds == {"str"} else "/".join(sorted(kinds))
    if isinstance(t, list):
        t = " or ".join(t)
    if t == "array" and "items" in node:
        return f"list of {_type(_resolve(node['items'], root), root)}"
    return t or "any"


def _fmt(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def _bounds(node: dict) -> list[str]:
    from privdtol.pipeline.config import bounds_text

    words = {"minimum": "≥", "exclusiveMinimum": ">", "maximum": "≤", "exclusiveMaximum": "<"}
    text = bounds_text(node, words, _fmt)
    return [text] if text else []


def _allowed(node: dict, root: dict) -> str:
    parts = []
    if "enum" in node:
        parts.append(
            "one of " + ", ".join(f"`{v}`" if isinstance(v, str) else _fmt(v) for v in node["enum"])
        )
    parts += _bounds(node)
    if "pattern" in node:
        parts.append(f"matches `{node['pattern']}`")
    if node.get("type") == "array" or "items" in node:
        lo, hi = node.get("minItems"), node.get("maxItems")
        if lo is not None and lo == hi:
            parts.append(f"exactly {lo} items")
        else:
            if lo:
                parts.append(f"at least {lo} item{'s' if lo > 1 else ''}")
            if hi is not None:
                parts.append(f"at most {hi} items")
        if node.get("uniqueItems"):
            parts.append("no duplicates")
        items = _resolve(node.get("items", {}), root)
        inner = _allowed(items, root) if items.get("type") != "object" else ""
        if inner:
            parts.append(f"each {inner}")
    if node.get("type") == "object" and node.get("additionalProperties") is False:
        parts.append("no other keys")
    return "; ".join(parts)


def _describe(node: dict) -> str:
    return " ".join(str(node.get("description", "")).split())


def schema_rows(node: dict, root: dict, prefix: str, groups: dict[str, list]) -> None:
    """Fill ``groups`` (group path -> rows) with one row per key under ``node``."""
    required = set(node.get("required", ()))
    rows = groups.setdefault(prefix, [])
    for key, sub in node.get("properties", {}).items():
        sub = _resolve(sub, root)
        path = f"{prefix}.{key}" if prefix else key
        default = (
            _fmt(sub["default"]) if "default" in sub else ("required" if key in required else "—")
        )
        rows.append(
            [
                literal(path),
                _type(sub, root),
                literal(default) if "default" in sub else default,
                _allowed(sub, root),
                _describe(sub),
            ]
        )
        if sub.get("type") == "object" and "properties" in sub:
            schema_rows(sub, root, path, groups)
        items = _resolve(sub.get("items", {}), root) if "items" in sub else {}
        if items.get("type") == "object" and "properties" in items:
            schema_rows(items, root, f"{path}[]", groups)


class ConfigReference(SphinxDirective):
    """Every key of the pipeline configuration, one table per object of the schema."""

    has_content = False

    def run(self):
        from privdtol.pipeline import config

        path = config.SCHEMA_PATH
        self.env.note_dependency(str(path))
        root = config.load_schema()  # with the enums the registries define
        groups: dict[str, list] = {}
        schema_rows(root, root, "", groups)
        out = []
        headers = ["key", "type", "default", "allowed values", "description"]
        widths = [18, 10, 12, 22, 38]
        for group, rows in groups.items():
            if not rows:
                continue
            title = literal(group) if group else "Top level"
            sec = section(self, title, f"config-{group or 'top-level'}")
            node = _resolve(_lookup(root, group), root) if group else root
            if group and _describe(node):
                para = nodes.paragraph()
                para += inline(_describe(node))
                sec += para
            sec += table(headers, rows, widths, classes=("privdtol-config",))
            out.append(sec)
        return out


def _lookup(root: dict, group: str) -> dict:
    node = root
    for part in group.split("."):
        array = part.endswith("[]")
        node = _resolve(node["properties"][part.removesuffix("[]")], root)
        if array:
            node = _resolve(node["items"], root)
    return node


# ----------------------------------------------------------------------------- CLI


def _fixed_width(parser: argparse.ArgumentParser) -> None:
    cls = parser.formatter_class
    parser.formatter_class = lambda prog: cls(prog, width=HELP_WIDTH)


def _subcommands(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name) or "", sub


class CliReference(SphinxDirective):
    """``privdtol --help`` and, per subcommand, ``privdtol NAME --help``."""

    has_content = False

    def run(self):
        from privdtol import cli

        self.env.note_dependency(cli.__file__)
        parser = cli.build_parser()
        _fixed_width(parser)
        out = []
        top = section(self, literal("privdtol"), "cli-privdtol")
        top += nodes.literal_block(text=parser.format_help().rstrip(), language="text")
        out.append(top)
        for name, summary, sub in _subcommands(parser):
            _fixed_width(sub)
            sec = section(self, literal(f"privdtol {name}"), f"cli-{name}")
            if summary:
                para = nodes.paragraph()
                para += inline(summary[0].upper() + summary[1:] + ".")
                sec += para
            sec += nodes.literal_block(text=sub.format_help().rstrip(), language="text")
            out.append(sec)
        return out


# ----------------------------------------------------------------------------- API


def submodules(package: str) -> list[str]:
    """Every public module under ``package`` (recursively), sorted; private modules (``_x``,
    ``__main__``) excluded.  A subpackage that fails to import is reported, not fatal."""

    def failed(name):
        LOGGER.warning("privdtol-api: cannot import %s", name, type="privdtol", subtype="api")

    pkg = importlib.import_module(package)
    found = pkgutil.walk_packages(pkg.__path__, prefix=package + ".", onerror=failed)
    names = [m.name for m in found]
    return sorted(n for n in names if not any(part.startswith("_") for part in n.split(".")))


class ApiModules(SphinxDirective):
    """One section per submodule of the package named in the argument, holding its
    ``automodule`` (with the project's ``autodoc_default_options``)."""

    required_arguments = 1
    has_content = False
    option_spec: ClassVar[dict] = {"exclude": directives.unchanged}

    def run(self):
        package = self.arguments[0]
        exclude = set((self.options.get("exclude") or "").split())
        out = []
        for name in submodules(package):
            if name in exclude:
                continue
            try:  # for incremental rebuilds; autodoc reports an import failure itself
                module = importlib.import_module(name)
            except Exception:
                module = None
            if getattr(module, "__file__", None):
                self.env.note_dependency(module.__file__)
            sec = section(self, literal(name), f"module-section-{name}")
            # autodoc emits reStructuredText, so it runs inside MyST's eval-rst
            text = ["```{eval-rst}", f".. automodule:: {name}", "```"]
            self.state.nested_parse(
                StringList(text, source=self.get_source_info()[0]), self.content_offset, sec
            )
            out.append(sec)
        return out


def setup(app):
    app.add_directive("privdtol-claims", ClaimsTable)
    app.add_directive("privdtol-notebooks", NotebooksTable)
    app.add_directive("privdtol-algorithms", AlgorithmsTable)
    app.add_directive("privdtol-config-reference", ConfigReference)
    app.add_directive("privdtol-cli", CliReference)
    app.add_directive("privdtol-api", ApiModules)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
