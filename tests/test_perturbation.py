"""No verdict hangs on the last bit: every book-scale experiment, run again with every
initial weight perturbed by one part in 10^12 (``reproduce --perturb 1e-12``), gives
the same verdict for every claim.

A perturbation that small is what another machine's arithmetic does to a run
(a different vector width, FMA, BLAS kernel): a verdict that changes under it
would change on a reader's machine.  The two runs of each experiment go in two
processes side by side (~4 minutes in all on 2 cores).
"""

import json
import os
import subprocess
import sys

import pytest

from tempnets.experiments import EXPERIMENTS

SKIP = {"tk-serial-recall": "its book scale takes ~5 minutes; checked by its own seeds (robustness record)"}


def _start(tmp_path, eid, *extra):
    out = tmp_path / f"{eid}{'-perturbed' if extra else ''}.json"
    env = {**os.environ, "TEMPNETS_PERTURB": ""}
    proc = subprocess.Popen([sys.executable, "-m", "tempnets", "reproduce", eid, "--scale", "book",
                             "--no-progress", "--out", str(out), *extra],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return proc, out


def _verdicts(proc, out):
    _, err = proc.communicate(timeout=1200)
    assert out.exists(), err[-2000:]
    return [(r["statement"], r["verdict"], r["ours"]) for r in json.loads(out.read_text())["claims"]]


@pytest.mark.parametrize("eid", [e.id for e in EXPERIMENTS])
def test_every_verdict_survives_a_perturbation_of_1e_12(tmp_path, eid):
    if eid in SKIP:
        pytest.skip(SKIP[eid])
    plain = _start(tmp_path, eid)
    perturbed = _start(tmp_path, eid, "--perturb", "1e-12")
    a, b = _verdicts(*plain), _verdicts(*perturbed)
    changed = [f"{s!r}: {va} (ours {oa}) -> {vb} (ours {ob})"
               for (s, va, oa), (_, vb, ob) in zip(a, b) if va != vb]
    assert not changed, "\n".join(changed)
