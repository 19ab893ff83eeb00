"""The estimator's parameters, generated from the config's one field list
(include/symgnn/config.h, through symgnn._core.config_fields): adding a config key adds a
parameter, its default, range and doc here without touching the binding.

A config key "section.name" is the parameter "section_name" (e.g. lowrank.hidden ->
lowrank_hidden, train.epochs -> train_epochs). The data section is not a parameter: it
belongs to the Dataset (load_dataset's keyword arguments)."""

from . import _core

#: The preset a model starts from when none is named (the command line's default).
DEFAULT_PRESET = _core.default_preset()

#: Keys of the estimator that are not config fields, with their defaults.
EXPLICIT = {
    "model": None,
    "variant": None,
    "preset": None,
    "config": None,
    "seed": 1,
    "device": "cpu",
    "threads": None,
    "verbose": True,
}


#: Config keys with a parameter of their own in EXPLICIT.
_SHORTCUTS = {"train.seed": "seed", "train.device": "device", "train.threads": "threads"}


def _fields():
    by_preset = {}
    for preset in _core.preset_names().split("|"):
        by_preset[preset] = {f["key"]: f for f in _core.config_fields(preset)}
    out = {}
    for key, f in by_preset[DEFAULT_PRESET].items():
        if f["section"] == "data" or key in _SHORTCUTS:
            continue
        name = key.replace(".", "_")
        f = dict(f)
        f["defaults"] = {p: by_preset[p][key]["default"] for p in by_preset}
        out[name] = f
    return out


#: parameter name -> field row (key, section, name, type, default, doc, min, max, choices,
#: defaults per preset).
FIELDS = _fields()


def _describe(name, f):
    kind = f["type"]
    allowed = ""
    if f["choices"]:
        allowed = ", one of " + ", ".join(f["choices"].split("|"))
    elif kind in ("int", "float") and (f["min"] > -1e299 or f["max"] < 1e299):
        lo = "-inf" if f["min"] <= -1e299 else f"{f['min']:g}"
        hi = "inf" if f["max"] >= 1e299 else f"{f['max']:g}"
        allowed = f", in [{lo}, {hi}]"
    defaults = ", ".join(f"{p}: {v!r}" for p, v in f["defaults"].items())
    return f"{name} : {kind} or None{allowed}\n    {f['doc']} (config key {f['key']}; default by preset: {defaults})"


def docstring():
    """The parameter section of SyMGNN's docstring."""
    lines = [
        "model : str or None\n    the model kind (default: the config file's, else lowrank):\n" +
        "\n".join(f"    - {k['name']}: {k['summary']}" for k in _core.model_kinds()),
        "variant : str or None\n    full, G or A: the variant of the kinds that have one (" +
        ", ".join(k["name"] for k in _core.model_kinds() if k["variants"]) + ").",
        "preset : str or None\n    recommended (the default) or paper (the faithful reading).",
        "config : str or None\n    a config file of 'section.key = value' lines (configs/), applied after the preset.",
        "seed : int, default 1\n    seed of the first run (train.seed).",
        "device : str, default 'cpu'\n    cpu, cuda or cuda:N (train.device).",
        "threads : int or None\n    compute threads (default: one per core).",
        "verbose : bool, default True\n    a progress bar (tqdm when installed, else lines); False: silent.",
    ]
    lines += [_describe(name, f) for name, f in FIELDS.items()]
    return "\n".join(lines)


def to_text(value):
    """A parameter value as the config's text form."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(to_text(v) for v in value)
    return str(value)
