"""Where a periodically-attentive-units paper-scale run spends its time (issue 35, item 6).

Run as a script: ``python benchmarks/bench_pa_run.py [--strings N] [--jobs J]``.

It runs ``pa-4.2`` (SRN vs PA network, O'Connell Figures 4.2-4.3) as ``reproduce pa-4.2
--scale paper`` does, with the paper's 20 networks, its test sets (1000 strings, and the long
ones of chapter 5) and its 7 tests, but ``N`` training strings per network instead of 2.4
million, and times in that one run:

* training: the compiled training kernels (:class:`tempnets.training.srn_trainers._Engine`);
* sampling: the rest of :func:`tempnets.training.srn_trainers.train_online` (drawing the strings);
* test scoring: the forward passes and the embed/final measures of every test;
* bookkeeping: everything else (test sets, initial weights, claims, the best network's units).

Training is then put per network-step against the momentum-update floor and the naive numpy
loop of ``bench_engine.py`` (the PA rule), measured in the same run, and the shares are
scaled to the paper's 2.4 million strings (training and sampling grow with the strings,
scoring and bookkeeping do not: the same 7 tests).
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from tempnets.training import srn_trainers as training
from tempnets.chapters import periodically_attentive_units as pa
from tempnets.chapters.periodically_attentive_units import trainer as pa_trainer
from tempnets.tasks.grammars import embedded_reber
from tempnets.models.srn import pa_attention
from tempnets.training.srn_trainers import sample_strings

from bench_engine import floor_us, naive_numpy
from timing import best_time

PAPER_STRINGS = 2_400_000


class Timers:
    """Seconds spent in named functions (wrapped in place), and training steps counted."""

    def __init__(self):
        self.seconds = {}
        self.steps = 0

    def wrap(self, owner, name, key, count_steps=False):
        fn = getattr(owner, name)

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            out = fn(*args, **kwargs)
            self.seconds[key] = self.seconds.get(key, 0.0) + time.perf_counter() - t0
            if count_steps:
                self.steps += int(sum(h.n_steps.sum() for h in out))
            return out

        setattr(owner, name, timed)


def profile_run(n_strings: int, jobs: int) -> tuple[float, Timers]:
    """Run pa-4.2 at paper size but ``n_strings`` strings per network; ``(seconds, timers)``."""
    size = pa.SIZES["pa-4.2"]["paper"]
    pa.SIZES["pa-4.2"]["paper"] = pa.Sizes(size.n_networks, n_strings, n_strings // 6, size.n_test)
    timers = Timers()
    timers.wrap(training._Engine, "run", "training")
    # wrapped where train_conditions reads them (its module, trainer.py)
    timers.wrap(pa_trainer, "train_online", "train_online", count_steps=True)
    timers.wrap(pa_trainer, "_score", "scoring")
    timers.wrap(pa_trainer, "_encoded", "scoring")
    t0 = time.perf_counter()
    pa.run_fig4_2("paper", 0, jobs, progress=False)
    return time.perf_counter() - t0, timers


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strings", type=int, default=12_000, help="training strings per network "
                    "(a multiple of 6; the paper: 2,400,000)")
    ap.add_argument("--jobs", type=int, default=1, help="threads (the records use 2)")
    ap.add_argument("--repeat", type=int, default=3, help="repeats of the floor and naive numpy")
    args = ap.parse_args(argv)
    if args.strings < 6 or args.strings % 6:
        ap.error(f"--strings must be a positive multiple of 6 (7 tests), got {args.strings}")
    numba.set_num_threads(args.jobs)
    profile_run(6, args.jobs)  # compile (or load from numba's cache) every kernel first
    total, t = profile_run(args.strings, args.jobs)
    s = t.seconds
    parts = {"training": s["training"], "sampling": s["train_online"] - s["training"],
             "test scoring": s["scoring"]}
    parts["bookkeeping"] = total - sum(parts.values())
    print(f"PA paper run (pa-4.2: SRN + PA, {pa.SIZES['pa-4.2']['paper'].n_networks} networks, paper test sets, 7 tests) with "
          f"{args.strings:,} strings per network, {args.jobs} thread(s): {total:.1f} s")
    print("  " + ", ".join(f"{k} {v:.2f} s ({100 * v / total:.1f}%)" for k, v in parts.items()))
    grow = PAPER_STRINGS / args.strings
    paper = {k: v * (grow if k in ("training", "sampling") else 1.0) for k, v in parts.items()}
    whole = sum(paper.values())
    print(f"  at the paper's {PAPER_STRINGS:,} strings (training and sampling x{grow:.0f}): "
          f"{whole / 60:.1f} min, " + ", ".join(f"{k} {100 * v / whole:.1f}%" for k, v in paper.items()))
    per_step = s["training"] / t.steps * 1e6 * args.jobs  # per network-step on one core
    floor = floor_us(args.repeat)
    flat, offsets = sample_strings(embedded_reber().tables(), 100, 1)
    strings = [flat[offsets[i]:offsets[i + 1]] for i in range(offsets.size - 1)]
    tn, n_naive = best_time(lambda: naive_numpy(strings, 2, *pa_attention()), 1)
    naive = tn / n_naive * 1e6
    print(f"  training {per_step:.2f} us/network-step (SRN and PA rules, {t.steps:,} network-steps, "
          f"per core) = {per_step / floor:.1f}x the momentum-update floor ({floor:.2f} us); "
          f"naive numpy PA {naive:.1f} us = {naive / per_step:.0f}x the run's training")


if __name__ == "__main__":
    main()
