"""``python -m hub_models.convert_ctc``: the same as ``nlgmetrics convert ctc`` (the converter ships in the
package: :mod:`nlgmetrics.ctc.convert`)."""

import sys

from nlgmetrics.ctc.convert import *  # noqa: F403
from nlgmetrics.ctc.convert import ConversionError, convert, main  # noqa: F401

if __name__ == "__main__":
    sys.exit(main(prog="python -m hub_models.convert_ctc"))
