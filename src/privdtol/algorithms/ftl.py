"""Non-private Follow-The-Leader with ties broken uniformly at random (Kotlowski 2018):
I_t uniform on argmin_j L_(t-1, j).  Its stochastic regret is O(log K / Delta_min)."""

from __future__ import annotations

from privdtol.algorithms.base import RoundAlgorithm


class FollowTheLeader(RoundAlgorithm):
    name = "ftl"
    display_name = "FTL (non-private)"
    role = "baseline"
    source = "Kotłowski 2018, Theoretical Computer Science 742"
    reference = "kotlowski2018"
    symmetric = True

    def law(self, cumulative, t):
        leaders = cumulative == cumulative.min(axis=1, keepdims=True)
        return leaders / leaders.sum(axis=1, keepdims=True)
