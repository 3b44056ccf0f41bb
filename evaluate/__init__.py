"""Evaluation: matches between agents, win rates and confidence intervals (tournaments later)."""
