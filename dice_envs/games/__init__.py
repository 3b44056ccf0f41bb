"""Pure rules engines, one module per game, behind the engine contract of :mod:`.base`.

Nothing here imports gymnasium or pettingzoo.
"""
