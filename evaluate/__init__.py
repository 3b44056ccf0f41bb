"""Evaluation: matches and tournaments between agents, ratings, Wilson intervals, the results store, reports, exploitability."""
