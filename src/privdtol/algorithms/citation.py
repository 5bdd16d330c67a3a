"""A plugin's declared BibTeX entry (``Algorithm.bibtex``), parsed by a BibTeX library
(bibtexparser), never by regular expressions: untrusted text, refused at load time in one
line when it is not one plain entry, and written into the report's ``plugins.bib`` only as
escaped text (:func:`privdtol.report.latex.config_tables.algorithms_bib`).

What is accepted: exactly one entry (no ``@string``, ``@preamble`` or comment beside it, no
duplicate field), of a standard type, with standard fields; the fields that BibTeX styles
typeset verbatim (``url``, ``doi``, ``eprint``) hold only the characters of a plain address.
"""

from __future__ import annotations

import logging
import re

#: the entry types a bibliography style knows
ENTRY_TYPES = frozenset(
    {
        *("article", "book", "booklet", "inbook", "incollection", "inproceedings", "manual"),
        *("mastersthesis", "misc", "phdthesis", "proceedings", "techreport", "unpublished"),
    }
)
#: the fields written (lower case); any other is refused
TEXT_FIELDS = frozenset(
    {
        *("author", "editor", "title", "booktitle", "journal", "publisher", "school"),
        *("institution", "organization", "series", "volume", "number", "pages", "year"),
        *("month", "edition", "address", "note", "howpublished", "chapter", "type"),
        *("archiveprefix", "primaryclass", "isbn", "issn"),
    }
)
#: fields a style typesets verbatim (``\url``, ``\doi``): a plain address's characters only
VERBATIM_FIELDS = frozenset({"url", "doi", "eprint"})
VERBATIM_CHARS = re.compile(r"[A-Za-z0-9:/._~?=+\-]+")


def parse_entry(text: str, key: str | None) -> tuple[str, dict[str, str]]:
    """``(entry type, {field: value})`` of the one BibTeX entry ``text`` whose key is
    ``key``, values without their enclosing braces or quotes; ValueError naming the problem
    otherwise."""
    import bibtexparser

    quiet = logging.getLogger("bibtexparser")  # its parse errors are reported here, in one line
    if not any(isinstance(h, logging.NullHandler) for h in quiet.handlers):
        quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    if not isinstance(text, str):
        raise TypeError("bibtex must be a BibTeX entry (a string) or empty")
    library = bibtexparser.parse_string(text)
    if library.failed_blocks:
        block = library.failed_blocks[0]
        raise ValueError(f"bibtex cannot be parsed ({type(block).__name__})")
    extra = [b for b in library.blocks if b not in library.entries]
    if len(library.entries) != 1 or extra:
        raise ValueError(
            f"bibtex must be one entry @type{{{key}, ...}} and nothing else "
            f"(found {len(library.entries)} entries and {len(extra)} other blocks)"
        )
    entry = library.entries[0]
    if entry.key != key:
        raise ValueError(f"bibtex must be one entry @type{{{key}, ...}} for reference {key!r}")
    kind = entry.entry_type.lower()
    if kind not in ENTRY_TYPES:
        raise ValueError(f"bibtex: entry type {kind!r} not one of {', '.join(sorted(ENTRY_TYPES))}")
    fields: dict[str, str] = {}
    for field in entry.fields:
        name, value = field.key.lower(), field.value
        if not isinstance(value, str):
            raise ValueError(f"bibtex: field {name!r} is not text")
        if name in VERBATIM_FIELDS:
            if not VERBATIM_CHARS.fullmatch(value.strip()):
                raise ValueError(
                    f"bibtex: field {name!r} holds characters outside "
                    "letters, digits and : / . _ ~ ? = + -"
                )
        elif name not in TEXT_FIELDS:
            allowed = ", ".join(sorted(TEXT_FIELDS | VERBATIM_FIELDS))
            raise ValueError(f"bibtex: field {name!r} not one of {allowed}")
        fields[name] = value.strip()
    return kind, fields


__all__ = ["parse_entry"]
