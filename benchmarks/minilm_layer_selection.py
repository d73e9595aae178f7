"""Which hidden layer of all-MiniLM-L6-v2 should E-minilm use? Pearson with human scores per layer.

    python -m benchmarks.minilm_layer_selection      # writes results/minilm_layer_selection.json

The registry's choice (layer 6, the last) is the best on average over the seven CTC sets.
"""

from __future__ import annotations

import json
from pathlib import Path

from scipy.stats import pearsonr

from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.ctc import ASPECTS, CTCScorer, aspect_spec
from nlgmetrics.ctc.aligners.base import source_of
from references import meta_eval_data


def correlations(aligner: str) -> dict[str, float]:
    summeval, summeval_human = meta_eval_data.summeval()
    yelp, yelp_human = meta_eval_data.yelp()
    runs = [
        ("summeval_cons", "consistency", summeval, summeval_human),
        ("summeval_rel", "relevance", summeval, summeval_human),
    ]
    runs.append(("yelp_pres", "preservation", yelp, yelp_human))
    for short, name in (("tc", "topical_chat"), ("pc", "persona_chat")):
        inputs, human = meta_eval_data.dialog(name)
        runs += [
            (f"{short}_eng", "engagingness", inputs, human),
            (f"{short}_gro", "groundedness", inputs, human),
        ]
    out = {}
    for key, aspect, inputs, human in runs:
        scorer = CTCScorer(aspect_spec(aspect), aligner, batch_size=32)
        scores = scorer.score(**{f: inputs[f] for f in ASPECTS[aspect].inputs})["scores"]
        out[key] = round(float(pearsonr(scores, human[aspect])[0]), 4)
    return out


def main() -> None:
    spec = WEIGHTS["all-MiniLM-L6-v2"]
    folder = source_of(spec, "E").source
    by_layer = {layer: correlations(f"E:{folder}@{layer}") for layer in range(1, spec.num_layers + 1)}
    result = {
        "what": "Pearson correlation with human judgments of CTC aspects, all-MiniLM-L6-v2 E aligner, per "
        "layer",
        "pearson_by_layer": by_layer,
        "mean_by_layer": {layer: round(sum(v.values()) / len(v), 4) for layer, v in by_layer.items()},
        "chosen_layer": spec.hidden_layer,
    }
    path = Path(__file__).parent / "results" / "minilm_layer_selection.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["mean_by_layer"]))


if __name__ == "__main__":
    main()
