import numpy as np
import pytest

from tempnets._numerics import checks


def test_count_accepts_integers_and_names_what_is_wrong():
    assert checks.count("n", np.int64(3), 1) == 3 and type(checks.count("n", np.int64(3))) is int
    for bad in (0, -1, 1.0, True, "2", None):
        with pytest.raises(ValueError, match=r"n must be an integer >= 1, got "):
            checks.count("n", bad, 1)
