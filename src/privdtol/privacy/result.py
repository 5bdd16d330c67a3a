"""What the three audits share: the leading fields of their results, the key of their random
streams, and the verdict of an exact audit.

Every result (:class:`~privdtol.privacy.exact_selection.SelectionAudit`,
:class:`~privdtol.privacy.whole_sequence.SequenceAudit`,
:class:`~privdtol.privacy.statistical.StatisticalAudit`) is an :class:`AuditResult`: it starts
with the same four fields, filled from the audited algorithm by :meth:`AuditResult.of`, and
keys its random stream by :meth:`AuditResult.stream_key`; ``to_dict`` is what
``privdtol audit --json`` prints and what the privacy table's rows read.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Self

from privdtol.algorithms import BlockAlgorithm
from privdtol.privacy.mechanisms import is_negative_control, lemma3_bound

#: float tolerance when comparing a computed loss with a bound
TOL = 1e-9


@dataclass
class AuditResult:
    """The fields every audit result starts with."""

    #: the value of ``audit`` for the results of a subclass
    AUDIT: ClassVar[str] = ""

    audit: str
    algorithm: str
    negative_control: bool
    epsilon: float

    @classmethod
    def of(cls, alg: BlockAlgorithm, **fields: Any) -> Self:
        """The result of this audit of ``alg``: the leading fields from ``alg``, then
        ``fields``."""
        return cls(
            audit=cls.AUDIT,
            algorithm=alg.name,
            negative_control=is_negative_control(alg),
            epsilon=float(alg.epsilon),
            **fields,
        )

    @classmethod
    def stream_key(cls, alg: BlockAlgorithm, **sizes: Any) -> dict[str, Any]:
        """The parameters that key this audit's random stream (:mod:`privdtol.core.seeding`):
        the audit, the algorithm, its eps, then ``sizes`` (the audit's own sizes and seed)."""
        return {"audit": cls.AUDIT, "algorithm": alg.name, "epsilon": float(alg.epsilon), **sizes}

    def to_dict(self) -> dict:
        return asdict(self)


def exact_verdict(alg: BlockAlgorithm, loss: float) -> dict[str, Any]:
    """The verdict fields of an exact audit that found ``loss``: the per-selection bound
    (:func:`~privdtol.privacy.mechanisms.lemma3_bound`) and eps, whether ``loss`` stays within
    each, and the verdict ("violation" when it exceeds eps)."""
    eps = float(alg.epsilon)
    bound = lemma3_bound(alg)
    violation = loss > eps + TOL
    return {
        "loss": loss,
        "bound_selection": bound,
        "bound_eps": eps,
        "within_selection_bound": bool(loss <= bound + TOL),
        "violation": bool(violation),
        "verdict": "violation" if violation else "within eps",
    }
