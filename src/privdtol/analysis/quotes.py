"""The paper's statements that the claims registry quotes (Cesari & Colomboni, arXiv
2605.29148): Theorem 1 with eqs. (1) and (2) (Section 4), Corollary 1, Lemmas 4 and 5 and
eqs. (5)-(6) of Lemma 5's proof (Sections 5.3-5.4), verbatim with the mathematics in plain text,
and the reason shared by the exponent-fit diagnostics.  One definition each: the registry
(:mod:`privdtol.analysis.claims_list`) and the report read them from here."""

from __future__ import annotations

#: the paper's statements (Cesari & Colomboni), verbatim with the mathematics in plain text
THEOREM1 = (
    "For every K >= 2, every eps > 0, every horizon T >= 1, and every i.i.d. loss process with "
    "marginal distribution supported on [0,1]^K with a unique best action, the "
    "randomized-prefix softmax algorithm is eps-differentially private and satisfies "
    "Reg_T <= 1 + 800 log K/Delta_min + 16 log K/eta, eta = min{eps/2, 1/8}. (1)"
)
COROLLARY1 = (
    "Combining Theorem 1 with the lower bound of [5] gives the optimal gap-dependent rate "
    "Theta(log K/Delta_min + log K/eps)."
)

#: Lemma 4, Lemma 5 and the two halves of Lemma 5's proof (Section 5.3-5.4), verbatim
LEMMA4 = (
    "Lemma 4 (Clock reduction with explicit constant). For every horizon T >= 1, "
    "Reg_T <= 1 + 4 sum_(m>=1) F_m. [F_m = E[sum_(j=1)^K Delta_j P_(m,j)], P_(m,j) the softmax "
    "weights after m i.i.d. loss vectors.]"
)
LEMMA5 = (
    "Lemma 5 (Cumulative softmax-error bound with explicit constants). For eta <= 1/8, "
    "sum_(m>=1) F_m <= 200 log K/Delta_min + 4 log K/eta."
)
EQ5 = (
    "sum_(m>=1) E[sum_(j in {2,...,K}, Delta_j <= 4 eta) Delta_j P_(m,j)] [...] "
    "<= (64 log(K+1) + 36)/Delta_min <= 200 log K/Delta_min, (5)"
)
EQ6 = (
    "sum_(m>=1) E[sum_(j in {2,...,K}, Delta_j > 4 eta) Delta_j P_(m,j)] <= 4 log K/eta. (6) "
    "[through sum_(m>=1) E[...] <= sum_(m>=0) E[V_m] and E[log Z_(m+1)] - E[log Z_m] <= "
    "-(eta/4) E[V_m].]"
)

#: Theorem 1's simplified form, verbatim
EQ2 = (
    "In particular, Reg_T <= 1000 (log K/Delta_min + log K/eps). (2) The constant 1000 is "
    "explicit and universal, but it is not optimized."
)
#: why the exponent fits are diagnostics, not claims (Corollary 1 is a minimax statement)
_MINIMAX = (
    "Corollary 1 is a minimax statement (the order of the worst-case regret over instances), "
    "not a claim about the regret of RPS on each instance; what it implies for RPS on the grid "
    "is C4's form, and this exponent fit diagnoses that form on one series of instances"
)
