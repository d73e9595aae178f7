"""The package version, in a module of its own so that any floor can read it without importing the
package top (``pyproject.toml`` holds the same number; a test checks they agree)."""

__version__ = "0.1.0"
