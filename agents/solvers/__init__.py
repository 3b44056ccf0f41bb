"""Exact solvers of the three games; the policies they produce are agents.

* :mod:`agents.solvers.syvere`: the turn that minimises Syvere's expected score (agent ``optimal``).
* :mod:`agents.solvers.tenthousand`: the turn that maximises 10 000's expected bank (``optimal``).
* :mod:`agents.solvers.tenthousand_win`: two-player 10 000, best win probability (``winprob``).
* :mod:`agents.solvers.meyer`: two-player Meyer in equilibrium, with lives (``equilibrium``).
* :mod:`agents.solvers.syvere_response`: Syvere, the exact best response of one seat to opponents that
  ignore the totals (how much any player can win against the heuristics).
* :mod:`agents.solvers.syvere_endgame`: Syvere, that best response played once three or fewer players
  are in (``endgame``).

Tables are cached on disk by :mod:`agents.solvers.cache`.
"""
