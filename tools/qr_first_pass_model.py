#!/usr/bin/env python3
"""A model, in NumPy, of the Cholesky QR's first pass with its Gram matrix in TF32 against the double first pass
(docs/qr.md, "A first pass in TF32"): for matrices U diag(sigma) V^T of condition numbers 1 to 1e12, how many
passes each takes, where the TF32 first pass leaves the second pass's Cholesky failing (the blocking forms then
start over in double), and the orthogonality and residual of those that finish (in units of m eps).

    python3 tools/qr_first_pass_model.py [--m 20000] [--n 200] [--seed 2]

TF32: A rounded to 10 explicit mantissa bits (to nearest), products summed in float; the shift 2^-22 max_j W(j, j)
first, then 2^-11 max_j W(j, j) growing by 100 (the codelets' rule). Double: the shift of Fukaya et al. 2020,
11 (m n + n (n + 1)) u ||A||_F^2. Both then run CholeskyQR2 in double, the third pass only when the second pass's
Gram matrix is 0.1 or more from the identity in the 2-norm.
"""
import argparse

import numpy as np


def tf32(x):
    """x rounded to TF32, as float32."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x1000) & ~np.uint64(0x1FFF)
    return b.astype(np.uint32).view(np.float32)


def conditioned(rng, m, n, cond):
    u, _ = np.linalg.qr(rng.standard_normal((m, n)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (u * np.logspace(0, -np.log10(cond), n)) @ v.T


def cholesky(w, s):
    try:
        return np.linalg.cholesky(w + s * np.eye(w.shape[0]))
    except np.linalg.LinAlgError:
        return None


def factor(a, low):
    m, n = a.shape
    u = 2.0 ** -53
    if low:
        at = tf32(a)
        w = (at.T @ at).astype(np.float64)
        base = 2.0 ** -11 * np.max(np.diag(w))
        s = base * 2.0 ** -11
    else:
        w = a.T @ a
        base = s = 11 * (m * n + n * (n + 1)) * u * np.trace(w)
    l = cholesky(w, s)
    while l is None:
        s = max(s * 100, base)
        l = cholesky(w, s)
    q, r, passes = np.linalg.solve(l, a.T).T, l.T, 1
    for p in range(2):
        g = q.T @ q
        distance = np.linalg.norm(g - np.eye(n), 2)
        l = cholesky(g, 0)
        if l is None:
            return "second pass fails" if p == 0 else "third pass fails", None, None
        q, r, passes = np.linalg.solve(l, q.T).T, l.T @ r, passes + 1
        if p == 0 and distance < 0.1:
            break
    orth = np.linalg.norm(q.T @ q - np.eye(n), 1) / (m * 2 * u)
    res = np.linalg.norm(a - q @ r, 1) / (np.linalg.norm(a, 1) * m * 2 * u)
    return "%d passes" % passes, orth, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--m", type=int, default=20000)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print("| cond | TF32 first pass | orth, resid | double first pass | orth, resid |")
    print("|---|---|---|---|---|")
    for cond in [1, 1e1, 1e2, 1e3, 1e4, 1e6, 1e8, 1e9, 1e10, 1e11, 1e12]:
        a = conditioned(rng, args.m, args.n, cond)
        cells = []
        for low in (True, False):
            what, orth, res = factor(a, low)
            cells += [what, "-" if orth is None else "%.2g, %.2g" % (orth, res)]
        print("| %g | %s |" % (cond, " | ".join(cells)))


if __name__ == "__main__":
    main()
