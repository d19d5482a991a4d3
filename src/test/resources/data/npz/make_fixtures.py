"""Writes the numpy-made .npz fixtures that NpzNumpyFixturesTest reads back.

Run from this folder:  python3 make_fixtures.py
Every value is a simple function of its position (see the comments) so that the Java test can
state the expected numbers without reading them from numpy.
"""
import io
import zipfile

import numpy as np


def example_arrays(unary_dtype, int_dtype):
    # a 2x3 image: V = 6 pixels, 7 grid edges (4 horizontal, then 3 vertical, as Grids.grid orders them)
    unary = (np.arange(12).reshape(6, 2) / 4.0).astype(unary_dtype)        # unary[v, k] = (2v + k) / 4
    edges = np.array([[0, 1], [1, 2], [3, 4], [4, 5], [0, 3], [1, 4], [2, 5]], dtype=int_dtype)
    pairwise = (np.arange(7)[:, None] * np.array([1.0, -0.5])).astype(np.float32)  # [e, -e/2]
    labels = np.array([0, 1, 1, 0, 2, 1], dtype=int_dtype)
    return dict(unary=unary, edges=edges, pairwise=pairwise, labels=labels,
                num_labels=np.array(3, dtype=np.int32),           # a 0-d (scalar) array
                shape=np.array([2, 3], dtype=int_dtype),
                edge_type=np.array([0, 0, 0, 0, 1, 1, 1], dtype=int_dtype))


# numpy.savez: stored entries; float32 features, int32 integers
np.savez("example_savez_f32_i32.npz", **example_arrays(np.float32, np.int32))
# numpy.savez_compressed: deflated entries; float64 features, int64 integers (numpy's defaults)
np.savez_compressed("example_compressed_f64_i64.npz", **example_arrays(np.float64, np.int64))

# every supported dtype and layout
a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)  # C-order value = flat C index
np.savez_compressed(
    "dtypes.npz",
    f4=np.array([1.5, -2.25, np.float32(1e-7), 3.4e38], dtype=np.float32),
    f8=np.array([[0.1, -1e300], [np.pi, 2.0 ** -1074]], dtype=np.float64),
    i4=np.array([-2147483648, -1, 0, 2147483647], dtype=np.int32),
    i8=np.array([-(2 ** 63), -1, 0, 2 ** 63 - 1], dtype=np.int64),
    u1=np.array([0, 1, 127, 128, 255], dtype=np.uint8),
    b1=np.array([True, False, True], dtype=np.bool_),
    scalar_f8=np.array(2.5),
    scalar_i8=np.array(-7, dtype=np.int64),
    fortran2=np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)),
    fortran3=np.asfortranarray(a),
    big_f8=np.arange(5, dtype=">f8") * 0.5,
    big_i4=np.array([[1, -2], [300000, -400000]], dtype=">i4"),
    big_fortran_f4=np.asfortranarray(np.arange(6, dtype=">f4").reshape(3, 2)),
    empty=np.zeros((0, 2), dtype=np.int32),
)
assert np.load("dtypes.npz")["fortran3"].flags["F_CONTIGUOUS"]

# .npy format version 2.0 (numpy writes it only for huge headers, so force it here)
buf = io.BytesIO()
np.lib.format.write_array(buf, np.arange(10, dtype=np.int64).reshape(2, 5), version=(2, 0))
with zipfile.ZipFile("version2.npz", "w", zipfile.ZIP_STORED) as z:
    z.writestr("v2.npy", buf.getvalue())
