"""Tests of :mod:`privdtol.algorithms.contract`: each breach is refused with its reason (the
common tests hold every registered algorithm to the whole contract)."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.algorithms import ALGORITHMS, check_algorithm
from privdtol.algorithms.rps import RandomizedPrefixSoftmax, softmax_law


def variant(**attrs):
    return type("Variant", (RandomizedPrefixSoftmax,), {"name": "variant", **attrs})


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_registered_algorithm_meets_it(name):
    check_algorithm(ALGORITHMS[name])


@pytest.mark.parametrize(
    "cls,problem",
    [
        (int, "not a subclass"),
        (variant(role="star"), "role 'star'"),
        (variant(prefix_rule="half"), "prefix_rule 'half'"),
        (variant(name="Bad Name"), "lower-case letters"),
        (variant(role="control", reference="x"), "cites no reference"),
        (variant(law=lambda self, s, r: 0.5 * softmax_law(s, self.eta)), "do not sum to one"),
        # a subclass that changes its law but inherits RPS's declaration: caught
        (variant(law=lambda self, s, r: softmax_law(s, 2 * self.eta)), "differs from the law"),
        (variant(prefix_lengths=lambda self, rng, r, n, sums_for=None: np.zeros(n)), "prefix"),
        # a declared BibTeX entry is one entry whose key is the reference
        (variant(reference="pf20", bibtex="@article{other, title={x}}"), "for reference 'pf20'"),
        (variant(reference=None, bibtex="@article{pf20, title={x}}"), "for reference None"),
        (variant(reference="pf20", bibtex="@article{pf20, a={x}} @misc{pf21, b={y}}"), "one entry"),
        (variant(reference="pf20", bibtex="@article{pf20, title={x}"), "cannot be parsed"),
        (variant(reference="pf20", bibtex="@article{pf20, title={x}}}{"), "nothing else"),
        (variant(reference="pf20", bibtex="@article{pf20, t={x}} note={y}"), "one entry"),
        (variant(reference="pf20", bibtex=b"@article{pf20,}"), "bibtex must be"),
        # the key is written in \citet{...}: no brace or backslash in it
        (variant(reference=r"x}\input{/etc/hostname"), "a BibTeX key"),
        # the authors a display name cites are words of it, and something is cited
        (variant(reference="pf20", cite_as="McKenna & Sheldon"), "words of display_name"),
        (variant(display_name="PF (Ann & Bo)", reference=None, cite_as="Ann & Bo"), "needs a ref"),
    ],
)
def test_a_breach_is_refused_with_its_reason(cls, problem):
    with pytest.raises((TypeError, ValueError), match=problem):
        check_algorithm(cls)


def test_a_declared_bibtex_entry_and_cited_authors_pass():
    check_algorithm(
        variant(
            display_name="PF (Ann & Bo)",
            reference="ann2020",
            bibtex="@inproceedings{ann2020,\n  author = {Ann, A. and Bo, B.},\n  year = {2020}\n}",
            cite_as="Ann & Bo",
        )
    )


def test_an_at_sign_inside_a_field_is_text_not_a_second_entry():
    """A URL or address with "@" in a field: still one entry (it was refused as two)."""
    check_algorithm(
        variant(
            reference="ann2020",
            bibtex="@misc{ann2020, howpublished = {\\url{https://example.org/@ann}}}",
        )
    )
