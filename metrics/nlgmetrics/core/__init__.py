"""The shared model layer below every metric family.

- :mod:`.registry`: every weight at its revision (a commit id where pinned), with its roles and families
- :mod:`.runtime`: where and how a scorer runs, resolved once (:class:`~.runtime.Runtime`)
- :mod:`.device`, :mod:`.precision` (with the table of modes, :mod:`.modes`), :mod:`.weight_cache`,
  :mod:`.progress`, :mod:`.warnings`: the runtime's jobs, one file each
- :mod:`.resolve`: a weight name, Hub repo or folder to the weights it means
- :mod:`.hub`: loading from the Hub or a folder; encoding within a model's window
- :mod:`.batching`: length-sorted and token-budget batches of any tensor fields
- :mod:`.model`: the model wrapper base (a model and its tokenizer from the weight cache, with its batch
  sizes)
- :mod:`.masked_lm`: the masked-LM engine (masked copies packed per forward, head only at the mask)
- :mod:`.validation`: input checks naming the field and the example index
- :mod:`.result`: summaries (means over defined scores) and the reproducibility signature
- :mod:`.files`: files written whole (a temporary name beside the target, renamed once complete)
- ``data/``: the package data (the published revisions; CTC's stopword list, read by
  :mod:`nlgmetrics.ctc.stopwords`)

Nothing here imports a metric family, and importing this package loads no model library.
"""
