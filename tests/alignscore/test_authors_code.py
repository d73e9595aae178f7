"""AlignScore against the authors' own code (github.com/yuh-zha/AlignScore at the commit the card names), run
from a checkout given by ``NLGMETRICS_ALIGNSCORE_SRC`` on the same tiny checkpoints, with only the shims
today's stack needs:

- transformers 5 has no ``AdamW`` (model.py imports it for training): torch's is put there for the import;
- pytorch-lightning 2 refuses ``load_from_checkpoint`` called on an instance (``Inferencer`` does so): the
  model is built from the checkpoint's ``hyper_parameters`` (its ``model`` replaced by the instance's, a local
  folder: the checkpoint names ``roberta-base``, a Hub id) and loaded with ``load_state_dict(strict=False)``,
  which is what pytorch-lightning 1 did;
- ``Inferencer`` loads spaCy's ``en_core_web_sm`` at start-up, which only its SMART modes read (not the six
  modes here): where the model is not installed, ``spacy.load`` gives None for it.

Without the variable (CI has no GitHub) the tests skip, saying so.

    git clone https://github.com/yuh-zha/AlignScore /tmp/alignscore_src && git -C /tmp/alignscore_src checkout
    a0936d5 NLGMETRICS_ALIGNSCORE_SRC=/tmp/alignscore_src pytest tests/alignscore/test_authors_code.py
"""

from __future__ import annotations

import os

import pytest

import nlgmetrics
from references.alignscore import MODES, authors_alignscore
from references.unieval import nltk_sent_tokenize
from tests.alignscore.conftest import CLAIMS, CONTEXTS
from tests.helpers import assert_parity

SOURCE = os.environ.get("NLGMETRICS_ALIGNSCORE_SRC")
pytestmark = pytest.mark.skipif(
    not SOURCE,
    reason="NLGMETRICS_ALIGNSCORE_SRC is not set: it names a checkout of github.com/yuh-zha/AlignScore (CI "
    "has no GitHub); references/alignscore.py's step-by-step parity runs instead",
)


@pytest.fixture(scope="module")
def authors():
    nltk_sent_tokenize("Punkt files. Written once.")  # nltk.sent_tokenize's punkt_tab, offline
    return authors_alignscore(SOURCE)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("config", ["base", "large"])
def test_every_mode_matches_the_authors_inferencer(authors, checkpoint_files, config):
    checkpoint, base = checkpoint_files[config]
    ours = nlgmetrics.load("alignscore", config, device="cpu", batch_size=7)
    for mode in MODES:
        theirs = authors(
            model=str(base),
            batch_size=32,
            device="cpu",
            ckpt_path=str(checkpoint),
            evaluation_mode=mode,
            verbose=False,
        ).score(contexts=CONTEXTS, claims=CLAIMS)
        got = ours.compute(predictions=CLAIMS, sources=CONTEXTS, mode=mode)["scores"]
        assert_parity(f"alignscore vs authors' Inferencer {config} {mode}", got, theirs)


def test_the_authors_code_crashes_on_a_claim_with_no_sentence_where_we_give_nan(authors, checkpoint_files):
    checkpoint, base = checkpoint_files["base"]
    theirs = authors(model=str(base), batch_size=32, device="cpu", ckpt_path=str(checkpoint), verbose=False)
    with pytest.raises(ValueError, match="non-empty list of Tensors"):  # no pair to score
        theirs.score(contexts=["A cat sat."], claims=[""])
