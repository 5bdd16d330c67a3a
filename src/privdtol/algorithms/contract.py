"""The contract every registered algorithm meets, checked when the registry is built (plugins
are refused in one line naming them: :mod:`privdtol.core.plugins`); the common tests
(tests/algorithms/test_registry.py) hold every algorithm to the statistical part of it.

:func:`check_algorithm` checks the declarations (types and allowed values) and runs one probe:
at eps = 1, on small random sums, the actions are integers in range, one per run, the law
(where the class gives one) is a matrix of probabilities summing to one per row, a block
algorithm's prefix lengths lie in 1..2^r, and a declared exact law equals the ``law`` method.
"""

from __future__ import annotations

import re

import numpy as np

from privdtol.algorithms.base import Algorithm, BlockAlgorithm, RoundAlgorithm
from privdtol.algorithms.citation import parse_entry
from privdtol.algorithms.declarations import PREFIX_RULES, ROLES, Privacy, SelectionLaw

#: a bibliography key as the report may write it in ``\\citet{...}`` (no TeX in it)
BIB_KEY = re.compile(r"[A-Za-z0-9_:.+/-]+")
#: the probe: runs, actions, block index
_N, _K, _R = 5, 4, 3


def _declared_law(cls, alg, sums):
    """The declared exact law of a block selection from ``sums``, or None."""
    law = cls.exact_law
    if law is None or not law.softmax:
        return None
    from privdtol.algorithms.rps import softmax_law

    eta = law.temperature(alg, sums.shape[1])
    out = softmax_law(sums, eta)
    return (1 - law.uniform_mix) * out + law.uniform_mix / sums.shape[1]


def _check_law(p, shape, what):
    if p is None:
        return
    p = np.asarray(p)
    if p.shape != shape:
        raise ValueError(f"{what} has shape {p.shape}, not {shape}")
    if not (np.all(np.isfinite(p)) and p.min() >= 0):
        raise ValueError(f"{what} holds values that are not probabilities")
    if not np.allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-9):
        raise ValueError(f"{what}'s rows do not sum to one (sums {p.sum(axis=1).round(6)})")


def _check_citation(cls) -> None:
    """``bibtex`` is empty or one plain BibTeX entry whose key is ``reference``
    (:func:`~privdtol.algorithms.citation.parse_entry`); ``cite_as`` is None
    or words of ``display_name``, with a ``reference`` to cite."""
    bibtex, cite_as = getattr(cls, "bibtex", ""), getattr(cls, "cite_as", None)
    if not isinstance(bibtex, str):
        raise TypeError("bibtex must be a BibTeX entry (a string) or empty")
    if bibtex:
        parse_entry(bibtex, cls.reference)  # a BibTeX library's parse: one plain entry
    if cite_as is not None:
        if not isinstance(cite_as, str) or cite_as not in cls.display_name:
            raise ValueError(f"cite_as {cite_as!r} must be words of display_name")
        if cls.reference is None:
            raise ValueError("cite_as needs a reference to cite")


def check_algorithm(cls) -> None:
    """Raise ValueError/TypeError with the first breach of the contract by ``cls``."""
    if not (isinstance(cls, type) and issubclass(cls, (BlockAlgorithm, RoundAlgorithm))):
        raise TypeError("not a subclass of privdtol's BlockAlgorithm or RoundAlgorithm")
    for attr in ("name", "display_name", "source"):
        if not isinstance(getattr(cls, attr, None), str) or not getattr(cls, attr):
            raise TypeError(f"{attr} must be a non-empty string")
    if not cls.name.isidentifier() or cls.name != cls.name.lower():
        raise ValueError(f"name {cls.name!r}: lower-case letters, digits and underscores")
    if getattr(cls, "role", None) not in ROLES:
        raise ValueError(f"role {getattr(cls, 'role', None)!r} not one of {', '.join(ROLES)}")
    if cls.reference is not None and not isinstance(cls.reference, str):
        raise TypeError("reference must be a bibliography key (a string) or None")
    if cls.reference is not None and not BIB_KEY.fullmatch(cls.reference):
        # the report writes it in \citet{...}: a brace or a backslash would be TeX
        raise ValueError(
            f"reference {cls.reference!r}: letters, digits and _ : . - + / only (a BibTeX key)"
        )
    _check_citation(cls)
    if cls.privacy is not None and not isinstance(cls.privacy, Privacy):
        raise TypeError("privacy must be a privdtol Privacy declaration or None")
    if cls.exact_law is not None:
        if not isinstance(cls.exact_law, SelectionLaw):
            raise TypeError("exact_law must be a privdtol SelectionLaw declaration or None")
        if not issubclass(cls, BlockAlgorithm):
            raise ValueError("exact_law: only block algorithms have an exact law")
    if not isinstance(cls.symmetric, bool):
        raise TypeError("symmetric must be True or False")
    if cls.role == "control" and cls.reference is not None:
        raise ValueError("a negative control cites no reference")
    rng = np.random.default_rng(0)
    alg = cls(1.0)
    if cls.privacy is not None:
        eps_sel = float(cls.privacy.selection_epsilon(alg))
        if not (eps_sel >= 0 and np.isfinite(eps_sel)):
            raise ValueError(f"privacy: selection epsilon {eps_sel!r} is not a number >= 0")
    shape = (_N, _K)
    if issubclass(cls, BlockAlgorithm):
        if cls.prefix_rule not in PREFIX_RULES:
            raise ValueError(f"prefix_rule {cls.prefix_rule!r} not one of {PREFIX_RULES}")
        m = np.asarray(alg.prefix_lengths(rng, _R, _N))
        if m.shape != (_N,) or m.min() < 1 or m.max() > 1 << _R:
            raise ValueError(f"prefix_lengths gave {m!r}, not {_N} lengths in 1..{1 << _R}")
        sums = rng.integers(0, 1 << _R, size=shape).astype(float)
        actions, law = alg.select(rng, sums, _R)
        _check_law(law, shape, "select's law")
        own = alg.law(sums, _R)
        _check_law(own, shape, "law")
        declared = _declared_law(cls, alg, sums)
        if declared is not None and own is not None and not np.allclose(own, declared, atol=1e-9):
            raise ValueError("the declared exact_law differs from the law method")
    else:
        sums = rng.integers(0, 8, size=shape).astype(float)
        law = alg.law(sums, 9)
        _check_law(law, shape, "law")
        actions = rng.choice(_K, size=_N)
    actions = np.asarray(actions)
    if actions.shape != (_N,) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(f"select returned {actions.shape} {actions.dtype}, not {_N} integers")
    if actions.min() < 0 or actions.max() >= _K:
        raise ValueError(f"select returned actions outside 0..{_K - 1}")


__all__ = ["Algorithm", "check_algorithm"]
