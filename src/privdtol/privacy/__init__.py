"""Privacy audits of the private DTOL algorithms (paper Section 5.2: Lemma 3, Proposition 1).

- :mod:`.mechanisms`: the exact selection laws P(A_(r+1) = j | block data), in log space;
- :mod:`.exact_selection`: audit 1, the worst-case per-selection privacy loss, searched;
- :mod:`.whole_sequence`: audit 2, the exact law of the whole action sequence for small T, K;
- :mod:`.statistical`: audit 3, black-box Clopper-Pearson bounds from replayed runs;
- :mod:`.result`: what the three share (leading result fields, stream key, exact verdict);
- :mod:`.audit_grid`: the ``privacy`` experiment (all audits over a grid, one table);
- :mod:`.audit_controls`: the audit's negative controls (``rps_eta_eps``,
  ``rps_data_prefix``, NOT eps-DP), beside the audit and outside the algorithm registry.
"""

from privdtol.privacy.exact_selection import SelectionAudit, audit_selection
from privdtol.privacy.mechanisms import AUDITABLE, PRIVATE, log_selection_law, make_audited
from privdtol.privacy.statistical import (
    StatisticalAudit,
    audit_statistical,
    clopper_pearson,
    loss_bounds,
)
from privdtol.privacy.whole_sequence import SequenceAudit, audit_sequence, sequence_log_law

__all__ = [
    "AUDITABLE",
    "PRIVATE",
    "SelectionAudit",
    "SequenceAudit",
    "StatisticalAudit",
    "audit_selection",
    "audit_sequence",
    "audit_statistical",
    "clopper_pearson",
    "log_selection_law",
    "loss_bounds",
    "make_audited",
    "sequence_log_law",
]
