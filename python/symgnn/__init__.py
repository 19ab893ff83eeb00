"""symgnn: geometric matrix completion with Sylvester Multi-Graph Neural Networks.

A thin Python layer over the C++ core (the same code as the `symgnn` command line):

    import symgnn
    data = symgnn.load_dataset("../shared/data/ml-100k", split="u1")
    model = symgnn.SyMGNN(config="configs/ml100k_lowrank_encoder.conf").fit(data)
    print(model.rmse(data))             # test RMSE (score() is its negative, as scikit-learn's)
    print(model.recommend("1", k=10))   # top 10 for user 1
    model.save("runs/ml100k")           # a directory `symgnn predict --model` reads
"""

import os as _os

# As the symgnn command does (src/cli/main.cpp): GNU OpenMP reads its wait policy when it
# is loaded, which is when the C++ core below is imported; spin-waiting threads made
# element-wise ops 10-50x slower under CPU contention. OpenBLAS reads its workers' spin
# (2^28 cycles after each product, here 2^24) when it is loaded: the spin took the core
# LibTorch's second thread computes on. What the user set is kept; a BLAS that numpy
# loaded first keeps its own.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
_os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "24")

from . import sylvester, tune  # noqa: E402
from ._errors import ConfigError, DataError, Error, MissingFileError
from .dataset import Dataset, load_dataset
from .estimator import SyMGNN, load
from .model import Model

__all__ = ["SyMGNN", "Model", "Dataset", "load_dataset", "load", "sylvester", "tune", "Error", "ConfigError",
           "DataError", "MissingFileError"]
