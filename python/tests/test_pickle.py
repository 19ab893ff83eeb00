"""Pickling: a fitted estimator (and a loaded Model) carries its model directory's files
and answers exactly as before, wherever the original directory went; an unfitted one
carries its parameters."""

import copy
import gc
import os
import pickle
import shutil

import numpy as np
import pandas as pd

import symgnn
from conftest import FAST


def test_an_unfitted_estimator_pickles_its_parameters():
    est = symgnn.SyMGNN(lowrank_hidden=12, train_epochs=3, seed=7, verbose=False)
    again = pickle.loads(pickle.dumps(est))
    assert again.get_params() == est.get_params() and again.model_ is None
    assert repr(again) == repr(est)


def test_a_fitted_estimator_pickles_with_its_files(fitted, tmp_path):
    model, out = fitted
    # A copy of the directory, removed before unpickling: the pickle needs none of it.
    shutil.copytree(out, tmp_path / "copy")
    est = symgnn.load(tmp_path / "copy", verbose=False)
    users, items, _ = symgnn.load_dataset("synthetic").ratings("test")
    before = est.predict(users, items)
    top = est.recommend(users[:3], k=5)
    blob = pickle.dumps(est)
    shutil.rmtree(tmp_path / "copy")
    again = pickle.loads(blob)
    assert again.path_ != est.path_ and os.path.exists(os.path.join(again.path_, "model.pt"))
    np.testing.assert_array_equal(again.predict(users, items), before)
    pd.testing.assert_frame_equal(again.recommend(users[:3], k=5), top)
    assert again.metrics_ == est.metrics_ and again.get_params() == est.get_params()
    # copy.deepcopy goes the same way; the copy saves like the original.
    np.testing.assert_array_equal(copy.deepcopy(model).predict(users, items), model.predict(users, items))
    again.save(tmp_path / "saved")
    np.testing.assert_array_equal(symgnn.load(tmp_path / "saved", verbose=False).predict(users, items), before)


def test_a_model_in_memory_survives_its_original():
    est = symgnn.SyMGNN(**dict(FAST, train_epochs=2)).fit("synthetic")  # no `out`: in memory only
    assert est.path_ is None
    users, items, _ = symgnn.load_dataset("synthetic").ratings("test")
    before = est.predict(users, items)
    blob = pickle.dumps(est)  # the directory the model would write
    del est
    gc.collect()
    again = pickle.loads(blob)
    np.testing.assert_array_equal(again.predict(users, items), before)
    # The copy's temporary folder goes with it.
    path = again.path_
    assert os.path.exists(os.path.join(path, "model.pt"))
    del again
    gc.collect()
    assert not os.path.exists(path)


def test_a_model_with_new_ratings_pickles_them(fitted):
    model, out = fitted
    item = model.model_.item_ids
    with_alice = symgnn.Model(out, new_ratings=[("alice", item[0], 5.0), ("alice", item[1], 1.0)], verbose=False)
    again = pickle.loads(pickle.dumps(with_alice))
    assert again.new_nodes() == with_alice.new_nodes()
    pd.testing.assert_frame_equal(again.recommend("alice", k=5), with_alice.recommend("alice", k=5))
