"""Speed of the SRN training engine (tempnets.models.bptt / tempnets.training.srn_trainers).

Run as a script: ``python benchmarks/bench_engine.py [--strings N] [--repeat K]``.

For each rule (SRN = BPTT(2,1), BPTT(5,1), PA = 8 normal + 7 PA units of period 7
with the SRN rule) it trains one 7-15-7 network online on embedded Reber strings
with the compiled engine and, in the same run, a naive numpy per-step loop of
the same rule, and prints the cost per network-step of both and their ratio.
Then it times the momentum update alone (every weight and its velocity written
at every step, as the papers' online rule requires): the floor under the
rules' costs on this machine, compiled for the same CPU as the rules; when a variable forces
another CPU's code (``NUMBA_CPU_NAME``, see ``machine.py``), also the floor compiled for this
CPU, in a fresh process.  Last it trains R = 8 networks with 1 thread and
with 2 threads and prints the speed-up.  Times are the best of ``--repeat`` runs (the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys

import numba
import numpy as np

from tempnets.tasks.grammars import embedded_reber
from tempnets.models.srn import pa_attention
from tempnets.training.srn_trainers import TrainConfig, sample_strings, train_online
import machine
from timing import best_time


def naive_numpy(strings, h, period, phase, lr=0.01, mom=0.3, seed=0):
    """Straightforward numpy, one step at a time: BPTT(h, 1) (h = 2: the SRN rule) with
    momentum, and PA masks when some period is not 1.  Returns the number of steps."""
    rng = np.random.default_rng(seed)
    params = [rng.uniform(-1, 1, s) for s in [(15, 7), (15, 15), (15,), (7, 15), (7,)]]
    W_ih, W_hh, b_h, W_ho, b_o = params
    vel = [np.zeros_like(p) for p in params]
    pa = bool(np.any(period != 1))
    eye = np.eye(7)
    steps = 0
    for s in strings:
        c = np.zeros(15)
        hist = []  # (x, context, h, attention) of the last h - 1 steps
        for pos in range(len(s) - 1):
            x = eye[s[pos]]
            hid = 1 / (1 + np.exp(-(W_ih @ x + W_hh @ c + b_h)))
            a = ((pos - phase) % period == 0).astype(float) if pa else None
            if pa:
                hid = a * hid + (1 - a) * c
            y = 1 / (1 + np.exp(-(W_ho @ hid + b_o)))
            dy = (eye[s[pos + 1]] - y) * y * (1 - y)
            hist.append((x, c, hid, a))
            if len(hist) > h - 1:
                hist.pop(0)
            g_ih, g_hh, g_bh = np.zeros_like(W_ih), np.zeros_like(W_hh), np.zeros_like(b_h)
            d = hid * (1 - hid) * (W_ho.T @ dy)
            for k in range(len(hist) - 1, -1, -1):
                xk, ck, hk, ak = hist[k]
                if k < len(hist) - 1:  # one step further back through W_hh
                    an = hist[k + 1][3]
                    if pa:
                        d = hk * (1 - hk) * (W_hh.T @ (an * d)) + (1 - an) * d
                    else:
                        d = hk * (1 - hk) * (W_hh.T @ d)
                ad = ak * d if pa else d
                g_ih += np.outer(ad, xk)
                g_hh += np.outer(ad, ck)
                g_bh += ad
            for p, v, gi in zip(params, vel, (g_ih, g_hh, g_bh, np.outer(dy, hid), dy)):
                v *= mom
                v += lr * gi
                p += v
            c = hid
            steps += 1
    return steps


@numba.njit(cache=True, fastmath={"reassoc", "contract", "nsz", "arcp"})
def _momentum_rows(W, V, delta, src):
    """``V[i] = mom V[i] + lr delta[i] src``, ``W[i] += V[i]`` for every row (mom 0.9, lr 0.1)."""
    for i in range(W.shape[0]):
        g = 0.1 * delta[i]
        for j in range(W.shape[1]):
            v = 0.9 * V[i, j] + g * src[j]
            V[i, j] = v
            W[i, j] += v


@numba.njit(cache=True)
def momentum_update_only(Wh, Vh, Wy, Vy, z, h, d, dy, n_steps):
    """``n_steps`` of the momentum update alone of a 7-15-7 network in the fused kernel's
    layout (hidden rows of 24, output rows of 16): the floor under a kernel that, like
    the papers' online rule written plainly, stores every weight and its velocity at
    every step."""
    for _ in range(n_steps):
        _momentum_rows(Wh, Vh, d, z)
        _momentum_rows(Wy, Vy, dy, h)


def cpu_name():
    """The processor's model name (Linux: /proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()




def floor_us(repeat: int) -> float:
    """Microseconds per network-step of :func:`momentum_update_only`, best of ``repeat``."""
    n = 200_000
    gen = np.random.default_rng(0)
    arrays = [gen.random((15, 24)), np.zeros((15, 24)), gen.random((7, 16)), np.zeros((7, 16)),
              gen.random(24), gen.random(16), 1e-9 * gen.random(15), 1e-9 * gen.random(7)]
    momentum_update_only(*arrays, 10)
    t, _ = best_time(lambda: momentum_update_only(*arrays, n), repeat)
    return t / n * 1e6


def host_cpu() -> str:
    """The CPU numba compiles for when nothing forces another (LLVM's name for this one)."""
    import llvmlite.binding as llvm

    return llvm.get_host_cpu_name()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strings", type=int, default=20000, help="strings per engine run")
    ap.add_argument("--naive-strings", type=int, default=150, help="strings for naive numpy")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--floor-only", action="store_true", help="print the floor's us/network-step alone")
    args = ap.parse_args(argv)
    if args.floor_only:
        print(floor_us(args.repeat))
        return
    target = os.environ.get("NUMBA_CPU_NAME") or host_cpu()
    print(f"{cpu_name()}, {os.cpu_count()} logical cores, numba {numba.__version__} compiling for {target}")
    for line in machine.describe():
        print(line)
    tables = embedded_reber().tables()
    flat, offsets = sample_strings(tables, args.naive_strings, 1)
    naive_strings = [flat[offsets[i]:offsets[i + 1]] for i in range(offsets.size - 1)]
    ones, zeros = np.ones(15, np.int64), np.zeros(15, np.int64)
    rules = [("SRN", TrainConfig(), 2, ones, zeros),
             ("BPTT(5,1)", TrainConfig(h=5), 5, ones, zeros),
             ("PA", TrainConfig.pa(), 2, *pa_attention())]
    numba.set_num_threads(1)
    for name, cfg, h, period, phase in rules:
        train_online(tables, 50, config=cfg, rng=0, progress=False)  # compile / load cache
        t, hist = best_time(lambda: train_online(tables, args.strings, config=cfg, rng=0,
                                                 chunk_strings=args.strings, progress=False),
                            args.repeat)
        n_steps = int(hist.n_steps[0])
        tn, steps_naive = best_time(lambda: naive_numpy(naive_strings, h, period, phase),
                                    max(1, args.repeat // 2))
        fast = t / n_steps * 1e6
        slow = tn / steps_naive * 1e6
        print(f"{name} rule  {fast:.2f} us/network-step  naive numpy {slow:.1f} us  "
              f"ratio {slow / fast:.0f}x")
    print(f"floor  {floor_us(args.repeat):.2f} us/network-step for the momentum update alone (every "
          f"weight and velocity of the 7-15-7 network written at every step; nothing else; "
          f"compiled as the rules above were)")
    if machine.forced() != "none":  # the rules ran on another CPU's code: say what this one does
        out = subprocess.run([sys.executable, __file__, "--floor-only", "--repeat", str(args.repeat)],
                             env=machine.clean_environment(), capture_output=True, text=True, check=True)
        print(f"floor  {float(out.stdout):.2f} us/network-step compiled for this CPU ({host_cpu()}, "
              f"a fresh process without {machine.forced()})")
    R = 8
    n = args.strings  # per network: long enough (about a second) that timer noise stays small
    times = {}
    for threads in (1, 2):
        numba.set_num_threads(threads)
        train_online(tables, 20, config=TrainConfig(), n_networks=R, rng=0, progress=False)
        times[threads], _ = best_time(lambda: train_online(
            tables, n, config=TrainConfig(), n_networks=R, rng=0, chunk_strings=n,
            progress=False), args.repeat)
    print(f"R={R} SRN networks: 1 core {times[1]:.2f} s, 2 cores {times[2]:.2f} s, "
          f"speed-up {times[1] / times[2]:.2f}x (numba threads: {numba.config.NUMBA_NUM_THREADS})")


if __name__ == "__main__":
    main()
