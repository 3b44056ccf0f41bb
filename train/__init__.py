"""Training entry points (Stable-Baselines3 and sb3-contrib on torch): not written yet.

The ``train`` extra of the package installs their dependencies; ``make run`` installs it.
"""
