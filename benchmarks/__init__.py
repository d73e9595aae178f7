"""Speed and meta-evaluation runs (not part of the test suite)."""
