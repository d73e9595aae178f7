"""User interfaces over the modules' declarations: the one-metric widget (and the Space's blocks)."""
