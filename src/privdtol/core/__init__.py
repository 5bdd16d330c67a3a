"""Core: facts every other layer uses and that know nothing of it.

- :mod:`~privdtol.core.clock` the dyadic block clock B_r = {2^r, ..., 2^(r+1) - 1} (Section 4);
- :mod:`~privdtol.core.bounds` Theorem 1's bound and the single definition of eta = min(eps/2, 1/8);
- :mod:`~privdtol.core.seeding` seeds from a SHA-256 of canonical parameters.
"""
