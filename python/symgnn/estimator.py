"""SyMGNN: the scikit-learn-style estimator. fit() runs the library's one run, symgnn::fit
(include/symgnn/fit.h), in-process (the GIL released), as `symgnn train` runs it, and keeps
the model fit evaluated in memory (FitResult::model). Given `out`, the model directory it
writes is the one `symgnn train --out DIR` writes: `symgnn predict` reads it, and
symgnn.load() reads directories the command line wrote. Without `out` nothing is written:
save() writes the model directory (include/symgnn/model_dir.h) when asked."""

import json
import os
import shutil

import numpy as np

from . import _args, _core, _frames, _log, _params
from ._errors import ConfigError, MissingFileError
from ._progress import Progress
from .dataset import Dataset, load_dataset
from .model import Model


class SyMGNN:
    __doc__ = (
        "Geometric matrix completion with a Sylvester Multi-Graph Neural Network.\n\n"
        "Parameters left at None take their value from the preset (and the config file);\n"
        "each config key 'section.name' is the parameter 'section_name'.\n\n"
        "Parameters\n----------\n" + _params.docstring()
    )

    def __init__(self, model=None, variant=None, preset=None, config=None, seed=1, device="cpu",
                 threads=None, verbose=True, **params):
        for name, value in _params.EXPLICIT.items():
            setattr(self, name, locals()[name])
        self._check_names(params)
        for name in _params.FIELDS:
            setattr(self, name, params.get(name))
        self.model_ = None
        self._workdir = None

    # ---- scikit-learn protocol ----
    def get_params(self, deep=True):
        names = list(_params.EXPLICIT) + list(_params.FIELDS)
        return {n: getattr(self, n) for n in names}

    def set_params(self, **params):
        self._check_names({k: v for k, v in params.items() if k not in _params.EXPLICIT})
        for k, v in params.items():
            setattr(self, k, v)
        return self

    @staticmethod
    def _check_names(params):
        for name in params:
            if name not in _params.FIELDS:
                raise ConfigError(f"unknown parameter {name!r} (parameters are config keys with '_' for '.', "
                                  f"e.g. lowrank_hidden; see help(symgnn.SyMGNN))")

    def _assignments(self):
        sets = []
        if self.seed is not None:
            sets.append(f"train.seed={_args.integer(self.seed, 'seed')}")
        if self.device is not None:
            sets.append(f"train.device={_args.text(self.device, 'device')}")
        if self.threads is not None:
            sets.append(f"train.threads={_args.integer(self.threads, 'threads')}")
        for name, f in _params.FIELDS.items():
            value = getattr(self, name)
            if value is not None:
                sets.append(f"{f['key']}={_params.to_text(value)}")
        return sets

    def config_text(self, data=None):
        """The configuration fit() would use, as 'key = value' lines (checked: a bad value
        raises ConfigError naming the parameter's key)."""
        sets = ([] if data is None else _as_dataset(data).settings())
        if self.model is not None:
            sets.append(f"model={_args.text(self.model, 'model')}")
        preset = "" if self.preset is None else _args.text(self.preset, "preset")
        variant = "" if self.variant is None else _args.text(self.variant, "variant")
        return _core.resolve_config(preset, self._config_file(), sets + self._assignments(), variant)

    def _config_file(self):
        if self.config is None:
            return ""
        config = _args.path(self.config, "config")
        if not os.path.isfile(config):
            raise MissingFileError(f"{config}: no such config file")
        return os.path.abspath(config)

    def fit(self, data, out=None, overwrite=False, user_col="user", item_col="item", rating_col="rating",
            mlflow_dir=None, holdout=None, user_ids=None, item_ids=None, feedback=None):
        """Trains on `data` and keeps the model in memory. `data`: a Dataset, a source for
        load_dataset ('synthetic', a path), a pandas DataFrame with columns user, item,
        rating, or the columns named by user_col, item_col and rating_col, or a scipy.sparse
        users x items matrix whose stored entries are the ratings (implicit's input; rows and
        columns are named by user_ids and item_ids, else by their index)
        (Dataset.from_arrays: held in memory, a random tenth of the ratings the test set).

        feedback: what the values are (data.feedback, docs/your_data.md): 'ratings' to
        predict; 'implicit' interactions (clicks, plays, purchases: a DataFrame of user and
        item columns alone, or rating_col=None, is read so without the keyword); 'counts'
        (the value a count, weighted log(1 + count), as implicit's ALS damps them). On
        interactions the kinds that rank are trained, the default choosing among them on
        validation NDCG@10, and no rating is predicted (predict, rmse and score refuse).

        holdout: the fraction of the ratings held out at random as the test set
        (data.test_fraction; None: the config's, 0.1 by default). 0 trains on every rating
        given, as Surprise's build_full_trainset and implicit do: validation (a val_fraction
        of them) still stops early and chooses, and the run reports no test figures. Data
        that give their own test ratings (test=, test_file, MovieLens-100K's splits, a .mat
        file) and the time-aware splits take no holdout.

        out: the model directory to write as `symgnn train --out` writes it (default: none;
        nothing is written, and save() writes the model when asked).
        overwrite: replace a run already in `out` (without it, such an `out` is refused, as
        `symgnn train --out` refuses it).
        mlflow_dir: also write the run into this MLflow file store, as `symgnn train
        --mlflow-dir` does (docs/mlflow.md).
        Ctrl-C stops training with KeyboardInterrupt; the checkpoints written so far stay in
        `out` (`symgnn train --resume OUT` continues them)."""
        if out is not None and _is_column(out):  # scikit-learn's fit(X, y): X the pairs, y the ratings
            ds, out = Dataset.from_arrays(*_with_ratings(data, out, user_col, item_col, "fit")), None
        else:
            ds = _as_dataset(data, _column_names(user_col, item_col, rating_col), user_ids, item_ids, feedback)
        if holdout is not None:
            ds = ds._holding_out(holdout)
        text = self.config_text(ds)  # every value checked before any work
        overwrite = _args.flag(overwrite, "overwrite")
        if out is not None:
            out = os.path.abspath(_args.path(out, "out"))
        _core.keep_freed_memory()  # as the symgnn command does: epochs reuse large tensors
        shown = Progress(self.verbose)
        hook = getattr(self, "_epoch_hook", None)  # symgnn.tune's pruning (tune.py)

        def progress(e):
            shown(e)
            if hook is not None:
                hook(e)
        progress.close = shown.close
        try:
            core, metrics = _core.fit(text, out or "", overwrite, bool(self.verbose), progress, ds._rows,
                                      _log.line_logger() if self.verbose else None,
                                      "" if mlflow_dir is None else os.path.abspath(_args.path(mlflow_dir, "mlflow_dir")))
            progress.close(finished=True)
        finally:
            progress.close()
        self._workdir = None
        # The model fit evaluated, as it is in memory: the directory is not read back.
        self.model_ = Model._of_core(core, out, device=self.device or "cpu", verbose=bool(self.verbose))
        self.path_ = out
        self.metrics_ = json.loads(metrics)
        self._metrics_text = metrics
        return self

    def _load(self, path, model=None):
        """Keeps the model directory `path` (loaded here unless `model` is given) and its metrics."""
        self.model_ = model or Model(path, device=self.device or "cpu", verbose=bool(self.verbose))
        self.path_ = self.model_.path
        folder = self.path_ if os.path.isdir(self.path_) else os.path.dirname(self.path_)
        metrics = os.path.join(folder, "metrics.json")
        self._metrics_text = _core.read_verified_file(metrics).decode() if os.path.exists(metrics) else ""
        self.metrics_ = json.loads(self._metrics_text) if self._metrics_text else {}
        return self

    def _fitted(self):
        if self.model_ is None:
            raise ConfigError("this SyMGNN is not fitted yet: call fit() or symgnn.load()")
        return self.model_

    def predict(self, users, items=None, unknown="known-mean", user_col="user", item_col="item"):
        """Predicted ratings of (user, item) pairs by original id: predict(users, items),
        predict(DataFrame with user and item columns, or those user_col and item_col name), or
        predict(Dataset) for its test ratings. predict(user, item) with two ids: one float (a
        string is one id). unknown: how a pair naming an id not in the model's data is rated
        (Model.predict: 'known-mean', as `symgnn evaluate` rates them, with a warning; 'error'
        refuses)."""
        if isinstance(users, Dataset):
            users, items, _ = users.ratings("test")
        elif items is None and hasattr(users, "columns"):
            users, items = map(list, _frames.frame_columns(users, "predict", ("user", "item"), min_rows=0,
                                                           names=_column_names(user_col, item_col, None)))
        return self._fitted().predict(users, items, unknown)

    def rmse(self, users, items=None, ratings=None, unknown="known-mean", user_col="user", item_col="item",
             rating_col="rating"):
        """RMSE of the predictions (lower is better): rmse(Dataset) on its test ratings,
        rmse(users, items, ratings), or rmse(DataFrame with user, item, rating, or the columns
        user_col, item_col and rating_col name). Pairs with an id not in the model's data are
        rated by `unknown` (predict). A model of interactions (feedback) has no RMSE: ConfigError."""
        self._fitted()._refuse_interactions("rmse/score")
        if isinstance(users, Dataset):
            users, items, ratings = users.ratings("test")
        elif ratings is None and items is not None and hasattr(users, "columns") and _is_column(items):
            # scikit-learn's score(X, y): X the pairs, y their ratings
            users, items, ratings = _with_ratings(users, items, user_col, item_col, "score")
        elif items is None and hasattr(users, "columns"):
            users, items, ratings = _frames.frame_columns(
                users, "score", names=_column_names(user_col, item_col, rating_col))
        if ratings is None:
            raise ConfigError("score: ratings missing; call score(users, items, ratings), score(DataFrame with "
                              "user, item, rating) or score(Dataset)")
        r = _frames.ratings(ratings, "score: ratings")
        p = np.ravel(self.predict(users, items, unknown))
        if len(p) != len(r):
            raise ConfigError(f"score: {len(p)} predictions for {len(r)} ratings")
        return float(np.sqrt(np.mean((p - r) ** 2)))

    def score(self, users, items=None, ratings=None, unknown="known-mean", user_col="user", item_col="item",
              rating_col="rating"):
        """The negative RMSE of the predictions, higher is better, as scikit-learn's scorers
        are (its neg_root_mean_squared_error): what GridSearchCV maximises. Arguments as
        rmse(), which gives the RMSE itself."""
        return -self.rmse(users, items, ratings, unknown, user_col, item_col, rating_col)

    def partial_fit_users(self, ratings):
        """Folds in the ratings of users the model has not seen, or fresh ratings of users it
        knows (a DataFrame with columns user, item, rating, or (user, item, rating) triples),
        and keeps them: the fitted model becomes Model.with_new_ratings(ratings) (implicit's
        partial_fit_users). No retraining: the network's weights stay. Returns self."""
        self.model_ = self._fitted().with_new_ratings(ratings)
        return self

    def recommend(self, users, k=10, exclude_seen=True, exclude=None, items=None, where=None, item_attributes=None):
        """The top k items of each user (original ids), with Model.recommend's filters."""
        return self._fitted().recommend(users, k, exclude_seen, exclude, items, where, item_attributes)

    def rank(self, user, items):
        """The candidate `items` of one user in the model's order; see Model.rank."""
        return self._fitted().rank(user, items)

    def edit_graph(self, edits):
        """Adds or removes graph edges without retraining; see Model.edit_graph."""
        return self._fitted().edit_graph(edits)

    def explain(self, user, item, target="list", top=5, candidates=24):
        """Why the model scores `item` for `user`; see Model.explain."""
        return self._fitted().explain(user, item, target, top, candidates)

    def similar_items(self, items, k=10):
        """The k items most similar to each of `items`; see Model.similar_items."""
        return self._fitted().similar_items(items, k)

    def similar_users(self, users, k=10):
        """The k users most similar to each of `users`; see Model.similar_users."""
        return self._fitted().similar_users(users, k)

    def similarity_basis(self, side="items"):
        """What similar_items / similar_users compare; see Model.similarity_basis."""
        return self._fitted().similarity_basis(side)

    def recommend_new_user(self, ratings, k=10, exclude_seen=True, user=None, edges=None, features=None):
        """The top k items of a user absent from training, from their ratings (a dict item ->
        rating, (item, rating) pairs or a DataFrame), and their graph neighbours and side
        features where given; see Model.recommend_new_user."""
        return self._fitted().recommend_new_user(ratings, k, exclude_seen, user, edges, features)

    def predict_new_user(self, ratings, items, user=None, edges=None, features=None):
        """Predicted ratings of `items` by a user absent from training; see
        Model.predict_new_user."""
        return self._fitted().predict_new_user(ratings, items, user, edges, features)

    def with_new_ratings(self, ratings):
        """The model with several new users' (or items') ratings, a Model; see
        Model.with_new_ratings."""
        return self._fitted().with_new_ratings(ratings)

    def evaluate(self, k=(5, 10, 20), relevant_min=None):
        """RMSE, MAE and ranking metrics on the test ratings; see Model.evaluate."""
        return self._fitted().evaluate(k, relevant_min)

    def save(self, path):
        """Writes the model directory to `path` (a directory `symgnn predict --model` reads):
        a copy of `out` where fit() wrote one, else the model in memory written as one
        (model.pt, dataset.bin, config.txt, metrics.json, the ranker; include/symgnn/model_dir.h).
        `path` must not exist."""
        model = self._fitted()
        path = _args.path(path, "path")
        if os.path.exists(path) and not (model.path and os.path.abspath(path) == os.path.abspath(model.path)):
            raise ConfigError(f"{path}: exists; save() does not overwrite")
        if model.path is None:  # fitted in memory
            model._save(os.path.abspath(path), getattr(self, "_metrics_text", "") or "")
            return path
        src = model.path
        if os.path.abspath(path) == os.path.abspath(src):
            return path
        tmp = path + ".tmp-" + str(os.getpid())
        shutil.copytree(src, tmp)
        os.rename(tmp, path)
        return path

    # ---- pickling: the parameters, and the fitted model with its directory's files ----
    def __getstate__(self):
        state = self.__dict__.copy()
        state["_workdir"] = None  # the fit's temporary folder: model_ carries its files
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.model_ is not None:
            self.path_ = self.model_.path  # the unpickled model's own temporary directory

    def __repr__(self):
        changed = {k: v for k, v in self.get_params().items()
                   if v is not None and v != _params.EXPLICIT.get(k)}
        return "SyMGNN(" + ", ".join(f"{k}={v!r}" for k, v in changed.items()) + ")"


def load(path, device="cpu", verbose=True):
    """A SyMGNN from a model directory (written by fit() and save(), or by the command line's
    `symgnn train --out`), with its parameters read from the model's configuration."""
    model = Model(path, device=device, verbose=verbose)
    cfg = model.config()
    params = {}
    for name, f in _params.FIELDS.items():
        if f["key"] in cfg:
            params[name] = _parse(cfg[f["key"]], f["type"])
    est = SyMGNN(model=cfg.get("model", "lowrank"), preset=cfg.get("preset"),
                 seed=int(cfg.get("train.seed", 1)), device=device, verbose=verbose, **params)
    return est._load(model.path, model)


def _parse(text, kind):
    if kind == "bool":
        return text == "true"
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    return text


def _is_column(x):
    """Whether `x` is a column of values (scikit-learn's y) rather than a path or an id."""
    return hasattr(x, "__len__") and not isinstance(x, (str, bytes, os.PathLike, dict))


def _with_ratings(pairs, y, user_col, item_col, what):
    """(users, items, ratings) of scikit-learn's (X, y): X's user and item columns, checked,
    beside the ratings y."""
    if not hasattr(pairs, "columns"):
        raise ConfigError(f"{what}(X, y): X must be a DataFrame with user and item columns (or those "
                          f"user_col and item_col name); got {type(pairs).__name__}")
    u, i = _frames.frame_columns(pairs, what, ("user", "item"), names=_column_names(user_col, item_col, None))
    r = _frames.ratings(y, f"{what}: y")
    if len(r) != len(u):
        raise ConfigError(f"{what}(X, y): {len(u)} rows of X and {len(r)} ratings in y")
    return u, i, r


FEEDBACK = ("ratings", "implicit", "counts")


def _pairs_only(frame, names):
    """Whether a DataFrame is interactions: rating_col=None, or a frame of two columns
    without the rating column (a user, item log as implicit and LightFM take it)."""
    if "rating" in names and names["rating"] is None:
        return True
    return names.get("rating", "rating") not in list(frame.columns) and len(frame.columns) == 2


def _column_names(user_col, item_col, rating_col):
    """role -> column of the user_col, item_col and rating_col keywords (None: the role's name)."""
    out = {}
    for role, name, keyword in (("user", user_col, "user_col"), ("item", item_col, "item_col"),
                                ("rating", rating_col, "rating_col")):
        if name is None and role == "rating":
            out[role] = None  # interactions: no rating column (fit)
        elif name is not None:
            if not isinstance(name, (str, int)) or isinstance(name, bool):
                raise ConfigError(f"{keyword}={name!r}: a column name (a string, or an integer label)")
            out[role] = name
    return out


def _as_dataset(data, names=None, user_ids=None, item_ids=None, feedback=None):
    if (user_ids is not None or item_ids is not None) and not hasattr(data, "tocoo"):
        raise ConfigError("user_ids and item_ids name the rows and columns of a scipy.sparse matrix; data is a "
                          f"{type(data).__name__}")
    if feedback is not None and feedback not in FEEDBACK:
        raise ConfigError(f"feedback={feedback!r}: one of {', '.join(map(repr, FEEDBACK))} (data.feedback, "
                          "docs/your_data.md)")
    if isinstance(data, Dataset):
        if feedback is not None:
            raise ConfigError("feedback= says what a DataFrame's or a matrix's values are; a Dataset says it "
                              "itself (Dataset.from_arrays(..., feedback=) or load_dataset(..., feedback=))")
        return data
    if hasattr(data, "columns"):  # a pandas DataFrame of ratings, or of interactions
        names = dict(names or {})
        if feedback == "implicit" or (feedback is None and _pairs_only(data, names)):
            names.pop("rating", None)
            users, items = _frames.frame_columns(data, "fit", ("user", "item"), names=names)
            return Dataset.from_arrays(users, items, feedback="implicit")
        return Dataset.from_arrays(*_frames.frame_columns(data, "fit", names=names), feedback=feedback)
    if hasattr(data, "tocoo"):  # a scipy.sparse users x items matrix, implicit's input
        return Dataset.from_arrays(*_frames.matrix_entries(data, user_ids, item_ids), feedback=feedback)
    if feedback is not None:
        return load_dataset(data, feedback=feedback)
    if not isinstance(data, (str, os.PathLike)):
        raise ConfigError(f"data: expected a Dataset, a DataFrame with columns user, item, rating, a "
                          f"scipy.sparse users x items matrix, or a source ('synthetic', a path); got "
                          f"{type(data).__name__}")
    return load_dataset(data)
