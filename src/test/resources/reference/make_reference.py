"""Writes grid4x4.json: the 4x4 grid, L=3 example of the shared float64 reference, run to convergence.

Usage (from the repository root):
    python3 src/test/resources/reference/make_reference.py ../shared/reference [out.json]

The path names the folder holding smoothed_mp.py (docs/design.md §2). The problem is the one of that
module's __main__ (seed 0, eps 0.1, edges: horizontal row-major then vertical row-major, the order
of Grids.grid); the JSON holds the potentials flattened as the Java engines take them
(unary [V][L], pairwise [E][L*L] at y_i*L+y_j), the converged dual and primal, the plain LP value
and the Theorem-1 bound eps * sum over regions of log(number of joint labels).
"""
import json, os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
ref_dir = sys.argv[1] if len(sys.argv) > 1 else "../shared/reference"
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "grid4x4.json")
sys.path.insert(0, os.path.abspath(ref_dir))
import smoothed_mp as ref  # noqa: E402

rng = np.random.default_rng(0)
H, W, L, eps = 4, 4, 3, 0.1
idx = lambda r, c: r * W + c
edges = [(idx(r, c), idx(r, c + 1)) for r in range(H) for c in range(W - 1)] + \
        [(idx(r, c), idx(r + 1, c)) for r in range(H - 1) for c in range(W)]
V, E = H * W, len(edges)
th_u = rng.normal(size=(V, L))
th_p = rng.normal(size=(E, L, L))
lam = np.zeros((E, 2, L))
prev = ref.dual(th_u, th_p, edges, lam, eps)
monotone = True
sweeps = 0
for sweeps in range(1, 5001):
    for i in range(V):
        ref.star(th_u, th_p, edges, lam, eps, i)
    d = ref.dual(th_u, th_p, edges, lam, eps)
    monotone &= bool(d <= prev + 1e-9)
    prev = d
    if sweeps % 50 == 0:
        bu, bp = ref.beliefs(th_u, th_p, edges, lam, eps)
        if abs(d - ref.primal(th_u, th_p, bu, bp, eps)) < 1e-11:
            break
bu, bp = ref.beliefs(th_u, th_p, edges, lam, eps)
p = ref.primal(th_u, th_p, bu, bp, eps)
lp = ref.lp_value(th_u, th_p, edges, L)
bound = eps * (V * np.log(L) + E * np.log(L * L))
doc = {
    "source": "shared/reference/smoothed_mp.py, __main__ problem, numpy default_rng(0)",
    "height": H, "width": W, "labels": L, "eps": eps,
    "edges": [list(e) for e in edges],
    "unary": th_u.tolist(),
    "pairwise": th_p.reshape(E, L * L).tolist(),
    "sweeps": sweeps, "monotone": monotone,
    "dual": prev, "primal": p, "gap": prev - p,
    "lp": lp, "bound": bound,
}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
print(f"sweeps={sweeps} dual={prev:.12f} primal={p:.12f} gap={prev-p:.2e} lp={lp:.9f} bound={bound:.6f} -> {out}")
