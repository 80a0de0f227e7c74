"""The modern link (Schlag, Irie & Schmidhuber 2021): the 1991 system with interface (5) and an
additive write is linear attention (``_equivalence_errors``), and an additive write cannot
latch: :func:`run_linear_attention` and its claims."""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np

from ...book import claims, intervals, sequential
from ...models import fast_weights as fw
from ...book.experiments import Result, executor
from ...book.scale import get_scale
from .sizes import EXPECT, NONE, PLANS, SIZES, Sizes
from .one_run import _sub, make_net, make_stream, train_fast_weights
from .runs import _RUNS, _check_trained, _collect, _runs, _unless


# ----------------------------------------------------------------------------- linear attention
def _equivalence_errors(seed: int = 0, n: int = 50) -> dict:
    """Largest differences: attention vs additive memory, and the 1991 system vs attention."""
    g = np.random.default_rng(_sub(seed, 50))
    q, k, v = g.normal(size=(n, 6)), g.normal(size=(n, 6)), g.normal(size=(n, 4))
    att = fw.linear_attention(q, k, v)
    mem = fw.additive_memory(q, k, v)
    net = fw.FastWeightNet(5, 6, 4, interface="from-to", squash="none")
    U = g.normal(size=net.shape_U) / 2
    xs = g.normal(size=(n, 5))
    s = xs @ U.T
    y = fw.run(net, U, xs, q)["y"]
    att91 = fw.linear_attention(q, s[:, :6], s[:, 6:], include_current=False)
    rel = lambda a, b: float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))  # noqa: E731
    return {"attention_vs_memory": rel(mem, att), "fw1991_vs_attention": rel(y, att91)}


ADDITIVE_RATES = (1.0, 0.1, 0.01)
"""Learning rates tried for the additive write (the squashed write of eq. 7 at eta = 1)."""


def _additive_run(seed: int, cap: int, n_curves: int, k: int) -> dict:
    """Flip-flop run ``k`` with the squash of eq. 7 and with the additive write at every rate."""
    st = make_stream("flipflop", seed, k, cap)
    out = {}
    for name, squash, lr in [("eq. 7", "logistic", 1.0)] + [(f"additive {r:g}", "none", r)
                                                             for r in ADDITIVE_RATES]:
        r = train_fast_weights(st, make_net("flipflop", squash=squash), lr, _sub(seed, 10, k))
        out[name] = {"solved": r["solved"], "diverged": r["diverged"]}
    return out


_RUNS["additive"] = _additive_run


def run_linear_attention(scale="book", seed=0, jobs=1, progress=None, trained=None,
                         checkpoint=None) -> Result:
    """The modern link, then one consequence of the squash: additive writes cannot latch
    (paper scale: the sequential design of :data:`PLANS`; ``checkpoint``: resumable)."""
    scale = get_scale(scale)
    sz = SIZES["fw-linear-attention"][scale]
    names = ["eq. 7"] + [f"additive {lr:g}" for lr in ADDITIVE_RATES]
    if trained is None:
        jobs = executor(jobs)  # cores of this machine, or a cluster's (--cluster)
        errors = _equivalence_errors(seed)

        def data_of(res, design=None):
            return {"experiment": "fw-linear-attention", "scale": scale, "seed": seed,
                    "sizes": asdict(replace(sz, n_seeds=len(res))), "errors": errors,
                    "runs": _collect(res, names), **({"design": design} if design else {})}

        res, design = sequential.run(
            sequential.plan_for(scale, sz.n_seeds, PLANS["fw-linear-attention"]),
            lambda a, b: _runs("additive", seed, sz, a, b, jobs, progress, checkpoint),
            lambda res, level: _linear_attention_claims(data_of(res), scale, level), what="runs")
        data = data_of(res, design)
    else:
        data = _check_trained(trained, "fw-linear-attention", scale, seed, ["runs", "sizes", "errors"])
    return Result(_linear_attention_claims(data, scale, sequential.level_of(data)), data)


def _linear_attention_claims(data, scale, level: float = intervals.LEVEL) -> claims.ClaimsTable:
    """The claims of the modern link from its data, every interval at ``level``."""
    sz = Sizes(**data["sizes"])
    t = claims.ClaimsTable(f"The modern link ({sz.n_seeds} flip-flop runs, cap {sz.cap:,})")
    e = data["errors"]
    t.add("causal unnormalised linear attention == an additive outer-product fast-weight memory",
          "Schlag et al. 2021", None, e["attention_vs_memory"], claims.at_most(1e-12),
          note="largest difference relative to the largest output", kind="computation")
    t.add("the 1991 system with (5) and an additive write == linear attention (keys = FROM, "
          "values = TO, query = F's input, read before write)", "§2, eq. 5", None,
          e["fw1991_vs_attention"], claims.at_most(1e-12), kind="computation")
    runs = data["runs"]
    solved7 = sum(s > 0 for s in runs["eq. 7"]["solved"])
    n = len(runs["eq. 7"]["solved"])
    t.add("with the squash of eq. 7 (interface (4), eta = 1) most runs solve the flip-flop",
          "§3, exp. 1", None, round(100 * solved7 / n, 1), claims.at_least(60.0),
          interval=intervals.percent(solved7, n, level), note=intervals.share_note(solved7, n, level=level))
    add = {name: v for name, v in runs.items() if name.startswith("additive")}
    best = max(sum(s > 0 for s in v["solved"]) for v in add.values())
    div = {name: int(sum(v["diverged"])) for name, v in add.items()}
    # additive writes failing says nothing when the squashed control (eq. 7) fails too
    why = "" if solved7 else "the squash of eq. 7, the control, solves no run either"
    # "no run" can be refuted by runs, never established (0 of n has a Wilson interval above 0
    # at any n; issue 32): tested as a share of runs with a stated threshold.  At the best rate:
    # its interval below the threshold puts every rate's below it too (the same runs)
    t.add(f"with the additive write (linear attention's sum rule) practically no run solves it: "
          f"at most {NONE:g}% of runs at the best rate tried (our test of 'no run', which no "
          "number of runs could establish)", "consequence of (i)", None, round(100 * best / n, 1),
          claims.at_most(NONE), expected=_unless(why, EXPECT["additive-none"][scale]),
          interval=intervals.percent(best, n, level), not_tested=why,
          note="rates " + ", ".join(n_.split()[1] for n_ in add) + "; diverged: "
               + ", ".join(f"{n_.split()[1]}: {d}" for n_, d in div.items())
               + f"; runs solved at the best rate: {best}; {intervals.share_note(best, n, level=level)} (Exercise 8 "
               "proves that an additive write cannot latch)")
    return t
