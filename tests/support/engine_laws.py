"""Constants and closed forms shared by the tests of the simulation engines
(:mod:`privdtol.engine.fast`, :mod:`privdtol.engine.explicit`) and the exact engine."""

from __future__ import annotations

import math

import numpy as np

#: the unit roundoff of IEEE doubles, in which the exact engine states its error bounds
U = 2.0**-53

#: a 3 x 2 loss matrix to replay: means (1/3, 2/3), gap 1/3
LOSSES = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])

#: Reg_3 of rps at eps = 1 (eta = 1/8) replaying LOSSES: A_0 uniform on B_0 = {1} (regret
#: (1/3)/2 = 1/6), A_1 drawn from softmax(-eta S) with S = row 1 = (0, 1) (M_0 = 1) on
#: B_1 = {2, 3}: 1/6 + 2 (1/3) e^(-1/8) / (1 + e^(-1/8)) (Rao-Blackwellised charges)
RPS_REPLAY_REGRET_3 = 1 / 6 + 2 / 3 * math.exp(-0.125) / (1 + math.exp(-0.125))
