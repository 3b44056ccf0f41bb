"""Training entry points (Stable-Baselines3); see the README's roadmap."""
