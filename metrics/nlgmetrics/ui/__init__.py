"""User interfaces over the modules' declarations: the one-metric widget (widget.py) and the Space (space/),
with what the Space asks of a request (limits.py), reads in (uploads.py), shows (display.py) and hands back
(downloads.py)."""
