"""``python -m hub_models.convert_usr``: the same as ``nlgmetrics convert usr`` (the converter ships in the
package: :mod:`nlgmetrics.usr.convert`)."""

import sys

from nlgmetrics.usr.convert import *  # noqa: F403
from nlgmetrics.usr.convert import ConversionError, convert, main  # noqa: F401

if __name__ == "__main__":
    sys.exit(main(prog="python -m hub_models.convert_usr"))
