"""Converters, model cards and the publish step that put CTC's trained aligners on the Hub."""
