"""Python raises only symgnn.Error subclasses (issue 30): arguments of the wrong type (None,
text for a number, a number for a path, an object for ids) raise ConfigError with a
one-line message naming the argument, never the TypeError or ValueError of int(),
float(), os.fspath() or iteration."""

import numpy as np
import pytest

import symgnn
from conftest import FAST

SQUARE = [[0.0, 1.0], [1.0, 0.0]]
PRIOR = [[1.0, 2.0], [3.0, 4.0]]


def raises_named(cls, name, call, *args, **kwargs):
    """`call` raises exactly `cls` (a symgnn.Error), one line naming `name`."""
    with pytest.raises(symgnn.Error) as e:
        call(*args, **kwargs)
    assert type(e.value) is cls, f"{type(e.value).__name__}: {e.value}"
    assert name in str(e.value), str(e.value)
    assert "\n" not in str(e.value)
    return e.value


@pytest.mark.parametrize("call, name", [
    (lambda m: m.recommend(None), "users"),
    (lambda m: m.recommend(object(), k=3), "users"),
    (lambda m: m.predict(None, None), "users"),
    (lambda m: m.predict(object(), "5"), "users"),
    (lambda m: m.predict("0", object()), "items"),
    (lambda m: m.predict([None]), "pair 0"),
    (lambda m: m.similar_items(None), "items"),
    (lambda m: m.similar_users(object()), "users"),
    (lambda m: m.similarity_basis(None), "side"),
    (lambda m: m.evaluate(relevant_min="a"), "relevant_min"),
])
def test_model_arguments(fitted, call, name):
    est, _ = fitted
    raises_named(symgnn.ConfigError, name, call, est.model_)
    raises_named(symgnn.ConfigError, name, call, est)  # the estimator forwards them


def test_score_ratings(fitted):
    est, _ = fitted
    raises_named(symgnn.ConfigError, "ratings", est.score, ["0"], ["0"])
    raises_named(symgnn.ConfigError, "ratings", est.score, ["0"], ["0"], [1.0, 2.0])
    raises_named(symgnn.DataError, "ratings", est.score, ["0"], ["0"], ["a"])


def test_paths(fitted, tmp_path):
    est, out = fitted
    for bad in (123, None):
        raises_named(symgnn.ConfigError, "path", symgnn.Model, bad)
        raises_named(symgnn.ConfigError, "path", symgnn.load, bad)
    raises_named(symgnn.ConfigError, "device", symgnn.Model, out, device=5)
    raises_named(symgnn.ConfigError, "new_user_graph", symgnn.Model, out, new_user_graph=5)
    raises_named(symgnn.ConfigError, "path", est.save, None)
    raises_named(symgnn.ConfigError, "out", symgnn.SyMGNN(**FAST).fit, "synthetic", out=5)
    raises_named(symgnn.ConfigError, "source", symgnn.load_dataset, None)
    raises_named(symgnn.ConfigError, "user_graph_file", symgnn.load_dataset, "synthetic", user_graph_file=5)


@pytest.mark.parametrize("params, name", [
    (dict(seed="a"), "seed"),
    (dict(seed=1.5), "seed"),  # refused, not rounded
    (dict(threads="x"), "threads"),
    (dict(device=5), "device"),
    (dict(model=5), "model"),
    (dict(preset=5), "preset"),
    (dict(variant=5), "variant"),
    (dict(config=5), "config"),
    (dict(train_epochs="x"), "train.epochs"),  # checked by the config's field list
])
def test_estimator_parameters_checked_at_fit(params, name):
    est = symgnn.SyMGNN(**dict(FAST, **params))  # stored as given, as scikit-learn does
    assert est.get_params()[next(iter(params))] == next(iter(params.values()))
    raises_named(symgnn.ConfigError, name, est.config_text)
    raises_named(symgnn.ConfigError, name, est.fit, "synthetic")


@pytest.mark.parametrize("args, kwargs, name", [
    (("a", "b", "c", 0.5), {}, "prior"),
    (("a", SQUARE, PRIOR, 0.5), {}, "user_graph"),
    ((SQUARE, [[0.0, 1.0], [1.0]], PRIOR, 0.5), {}, "item_graph"),
    ((SQUARE, SQUARE, PRIOR, "x"), {}, "alpha"),
    ((SQUARE, SQUARE, PRIOR, 0.5), dict(tol="x"), "tol"),
    ((SQUARE, SQUARE, PRIOR, 0.5), dict(max_iter="x"), "max_iter"),
    ((SQUARE, SQUARE, PRIOR, 0.5), dict(max_iter=2.5), "max_iter"),
    ((SQUARE, SQUARE, PRIOR, 0.5), dict(solver=5), "solver"),
])
def test_sylvester_arguments(args, kwargs, name):
    raises_named(symgnn.ConfigError, name, symgnn.sylvester.solve, *args, **kwargs)


def test_sylvester_still_solves():
    x, report = symgnn.sylvester.solve(np.array(SQUARE), SQUARE, PRIOR, 0.5, max_iter=np.int64(100))
    assert x.shape == (2, 2) and report["converged"]


def test_from_arrays_arguments(tmp_path):
    args = (["a", "b"], ["x", "y"], [1.0, 2.0])
    raises_named(symgnn.ConfigError, "test", symgnn.Dataset.from_arrays, *args, test=5)
    raises_named(symgnn.ConfigError, "user_features", symgnn.Dataset.from_arrays, *args, user_features="x")
    raises_named(symgnn.ConfigError, "user_graph", symgnn.Dataset.from_arrays, *args,
                 user_graph=[["a", "b", "heavy"]])
    raises_named(symgnn.ConfigError, "path", symgnn.Dataset.from_arrays, *args, path=5)
