"""Simulated voters and simulated generation-time samples (the demo and the benches)."""
