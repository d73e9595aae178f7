"""The publish step that puts the converted CTC and USR weights and the Spaces on the Hub (the converters and
their model cards ship in the package: ``nlgmetrics convert ctc|usr``)."""
