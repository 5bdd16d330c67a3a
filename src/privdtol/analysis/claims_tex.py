"""The typeset (LaTeX) form of the claims registry's texts (:data:`CLAIMS_TEX`), for the report
and the notebooks; re-exported by :mod:`privdtol.analysis.registry`, the one list of claims."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClaimTeX:
    """The typeset (LaTeX) form of a claim's texts, for the report and the notebooks (matplotlib
    mathtext renders the ``$...$`` parts).  The plain-text fields of :class:`Claim` stay for
    logs and JSON; a claim without an entry here is shown with its plain text escaped."""

    #: short statement (:attr:`Claim.title`)
    title: str
    #: the paper's statement (:attr:`Claim.quote`)
    quote: str
    #: what the check computes (:attr:`Claim.statistic`)
    statistic: str


_THEOREM1_TEX = (
    r"For every $K \ge 2$, every $\varepsilon > 0$, every horizon $T \ge 1$, and every i.i.d. "
    r"loss process with marginal distribution supported on $[0,1]^K$ with a unique best action, "
    r"the randomized-prefix softmax algorithm is $\varepsilon$-differentially private and "
    r"satisfies $\mathrm{Reg}_T \le 1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$, "
    r"$\eta = \min\{\varepsilon/2, 1/8\}$. (1)"
)
_COROLLARY1_TEX = (
    r"Combining Theorem 1 with the lower bound of [5] gives the optimal gap-dependent rate "
    r"$\Theta(\log K/\Delta_{\min} + \log K/\varepsilon)$."
)

#: the LaTeX form of each claim's title, quote and statistic (keyed by claim id)
CLAIMS_TEX: dict[str, ClaimTeX] = {
    "C1": ClaimTeX(
        r"Event-level pure $\varepsilon$-DP",
        r"Proposition 1 (Global event-level privacy): The randomized-prefix softmax algorithm "
        r"is $\varepsilon$-differentially private. Lemma 3 (Privacy of the softmax map): [\dots] "
        r"Then the randomized map $d \mapsto J$ is $2\eta$-differentially private in the sense "
        r"of Definition 2.",
        r"largest privacy loss found by the exact and statistical audits, over $\varepsilon$",
    ),
    "C2": ClaimTeX(
        r"$\mathrm{Reg}_T \le 1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$ for every $T$",
        _THEOREM1_TEX,
        r"largest regret/bound over cells and checkpoint horizons (upper confidence limit)",
    ),
    "C2b": ClaimTeX(
        r"$\mathrm{Reg}_T \le 1000 (\log K/\Delta_{\min} + \log K/\varepsilon)$ for every $T$",
        r"In particular, $\mathrm{Reg}_T \le 1000 (\log K/\Delta_{\min} + "
        r"\log K/\varepsilon)$. (2) The constant 1000 is explicit and universal, but it is not "
        r"optimized.",
        r"largest regret$/(1000 (\log K/\Delta_{\min} + \log K/\varepsilon))$ over cells and "
        r"checkpoint horizons (upper confidence limit)",
    ),
    "C3": ClaimTeX(
        r"The regret is horizon-free",
        r"We give a constructive horizon-free $\varepsilon$-DP algorithm for stochastic DTOL and "
        r"prove the explicit regret bound "
        r"$\mathrm{Reg}_T \le 1000 (\log K/\Delta_{\min} + \log K/\varepsilon)$. [Theorem 1:] "
        r"for every $K \ge 2$, every $\varepsilon > 0$, every horizon $T \ge 1$ [\dots] "
        r"$\mathrm{Reg}_T \le 1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$.",
        r"largest $\mathrm{Reg}(T_{\max})/\mathrm{Reg}(T_0)$ over cells, $T_0$ the first "
        r"checkpoint after $c \max(L/\Delta_{\min}^2, L/(\eta \Delta_{\min}))$, "
        r"$L = 1 + \log K$",
    ),
    "C4": ClaimTeX(
        r"Rate form $\mathrm{Reg} \approx a \log K/\Delta_{\min} + b \log K/\eta + c$ "
        r"over the grid",
        _COROLLARY1_TEX,
        r"largest factor between a cell's regret and the fitted "
        r"$a \log K/\Delta_{\min} + b \log K/\eta + c$",
    ),
    "C4a": ClaimTeX(
        r"Linear in $1/\Delta_{\min}$ in the statistical regime",
        _COROLLARY1_TEX,
        r"exponent $p$ of $(\log K/\Delta_{\min})^p$, the privacy term held at its fitted value",
    ),
    "C4b": ClaimTeX(
        r"Linear in $1/\varepsilon$ in the privacy regime",
        _COROLLARY1_TEX,
        r"exponent $q$ of $(\log K/\varepsilon)^q$ over the cells with $\eta = \varepsilon/2$, "
        r"the statistical term held at its fitted value",
    ),
    "C4c": ClaimTeX(
        r"Linear in $\log K$, not $\log^2 K$",
        _COROLLARY1_TEX,
        r"exponent $s$ of $(\log K)^s$ in each regime, the other term held at its fitted value",
    ),
    "C5": ClaimTeX(
        r"Theorem 1's bound holds for dependent coordinates",
        r"Although the open problem is stated for the usual product-over-actions stochastic "
        r"model, our proof only uses independence across time. Thus it applies to i.i.d. loss "
        r"vectors with arbitrary dependence among coordinates within each round; the "
        r"product-over-actions model is a special case.",
        r"largest regret/bound over the correlated (positive and negative dependence) and "
        r"Beta cells and their checkpoint horizons (upper confidence limit)",
    ),
    "C0": ClaimTeX(
        r"Exact and Monte Carlo regret agree",
        r"The expected pseudoregret up to horizon $T$ is $\mathrm{Reg}_T = "
        r"\mathbb{E}[\sum_{t=1}^T (X_{t,I_t} - X_{t,1})] = \sum_{t=1}^T "
        r"\mathbb{E}[\Delta_{I_t}]$.",
        r"largest $|\text{Monte Carlo} - \text{exact}|$ in standard errors over the cells "
        r"computed both ways (block sums and round by round) and their checkpoint horizons; "
        r"pairs with s.e.~0 within a stated bound",
    ),
    "L4": ClaimTeX(
        r"Lemma 4: $\mathrm{Reg}_T \le 1 + 4 \sum_m F_m$ (the clock reduction)",
        r"Lemma 4 (Clock reduction with explicit constant). For every horizon $T \ge 1$, "
        r"$\mathrm{Reg}_T \le 1 + 4 \sum_{m \ge 1} F_m$. [$F_m = \mathbb{E}[\sum_{j=1}^K "
        r"\Delta_j P_{m,j}]$, $P_{m,j}$ the softmax weights after $m$ i.i.d. loss vectors.]",
        r"largest exact $\mathrm{Reg}/(1 + 4 \sum_m F_m)$ over the rps cells (numerical error "
        r"bounds)",
    ),
    "L5": ClaimTeX(
        r"Lemma 5: $\sum_m F_m \le 200 \log K/\Delta_{\min} + 4 \log K/\eta$",
        r"Lemma 5 (Cumulative softmax-error bound with explicit constants). For "
        r"$\eta \le 1/8$, $\sum_{m \ge 1} F_m \le 200 \log K/\Delta_{\min} + 4 \log K/\eta$.",
        r"largest exact $\sum_m F_m / (200 \log K/\Delta_{\min} + 4 \log K/\eta)$ over the "
        r"rps cells",
    ),
    "L5a": ClaimTeX(
        r"Small-gap half of Lemma 5: eq.~(5)",
        r"$\sum_{m \ge 1} \mathbb{E}[\sum_{j \in \{2,\dots,K\}, \Delta_j \le 4\eta} "
        r"\Delta_j P_{m,j}] [\dots] \le (64 \log(K+1) + 36)/\Delta_{\min} \le "
        r"200 \log K/\Delta_{\min}$, (5)",
        r"largest exact small-gap part $/(200 \log K/\Delta_{\min})$ over the rps cells",
    ),
    "L5b": ClaimTeX(
        r"Large-gap half of Lemma 5: eq.~(6)",
        r"$\sum_{m \ge 1} \mathbb{E}[\sum_{j \in \{2,\dots,K\}, \Delta_j > 4\eta} "
        r"\Delta_j P_{m,j}] \le 4 \log K/\eta$. (6) [through $\sum_{m \ge 1} \mathbb{E}[\dots] "
        r"\le \sum_{m \ge 0} \mathbb{E}[V_m]$ and $\mathbb{E}[\log Z_{m+1}] - "
        r"\mathbb{E}[\log Z_m] \le -(\eta/4) \mathbb{E}[V_m]$.]",
        r"largest exact large-gap part $/(4 \log K/\eta)$ over the rps cells",
    ),
}
