"""User interfaces over the modules' declarations: the one-metric widget and the Space (availability of
configs, records and uploads with their limits, the app)."""
