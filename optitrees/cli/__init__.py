"""The ``optitrees`` command: fit any estimator, save and load it, predict, export, write its MIP, run studies.

::

    optitrees fit MODEL (--dataset NAME | --csv FILE | --libsvm FILE) [--PARAM VALUE ...] [--save model.json]
    optitrees predict model.json (--csv FILE | --libsvm FILE | --dataset NAME) [--output predictions.csv]
    optitrees export model.json --format {text,json,sql,lp,mps} [--output FILE] [--table NAME]
                                                              (.lp / .mps need the data)
    optitrees load model.json
    optitrees write MODEL DATA OUTPUT.lp|.mps
    optitrees solvers
    optitrees study CONFIG.toml [--n-jobs N | --dask-workers N | --scheduler ADDRESS]

Every estimator parameter is an option of ``fit`` (``--max-depth 3``, ``--C 10,1``, ``--warm-start tao``),
its default and its description in ``optitrees fit MODEL --help``. A user error (a missing file, an unknown
column, a string column without ``--one-hot``, a wrong output suffix) is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys

from ..readable import printable
from ._commands import _export, _fit, _load_command, _predict, _solvers, _study, _write
from ._options import MODELS, UserError, _add_data_options, _estimator_class, _model_parser, parse_value

__all__ = ["main", "MODELS", "parse_value"]


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line on stderr (no usage block) and exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


# ---------------------------------------------------------------- entry point
def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="optitrees", description="Interpretable models learned by optimization.",
                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    fit = sub.add_parser("fit", help="fit a model: print it, its fit report and test scores; --save it as JSON")
    models = fit.add_subparsers(dest="model", required=True, metavar="MODEL", parser_class=_Parser)
    write = sub.add_parser("write", help="write the MIP a model's fit would solve to .lp or .mps")
    write_models = write.add_subparsers(dest="model", required=True, metavar="MODEL", parser_class=_Parser)
    for name in MODELS:
        cls = _estimator_class(name)
        p = _model_parser(models, name, cls.__name__, cls)
        _add_data_options(p)
        p.add_argument("--test-size", type=float, default=0.2,
                       help="share of rows held out (0: fit on all; default: 0.2)")
        p.add_argument("--seed", type=int, default=0, help="seed of the train / test split (default: 0)")
        p.add_argument("--save", help="save the fitted model as JSON to this file (default: not saved)")
        p.set_defaults(func=_fit)
        if hasattr(cls, "build_formulation"):
            p = _model_parser(write_models, name, cls.__name__, cls)
            _add_data_options(p)
            p.add_argument("output", help="file name ending in .lp or .mps")
            p.set_defaults(func=_write)

    p = sub.add_parser("predict", help="predict with a saved model; CSV of predictions to stdout or --output")
    p.add_argument("model_file", help="a model saved by fit --save")
    _add_data_options(p)
    p.add_argument("--output", help="write the predictions to this .csv file (default: stdout)")
    p.set_defaults(func=_predict)

    p = sub.add_parser("export", help="a saved model as text, JSON, SQL, or its MIP as .lp / .mps")
    p.add_argument("model_file", help="a model saved by fit --save")
    p.add_argument("--format", choices=("text", "json", "sql", "lp", "mps"), default="text",
                   help="text, json (the model as a dict), sql (one expression), lp / mps (needs the data)")
    p.add_argument("--output", help="the file to write (default: stdout; required for lp / mps)")
    p.add_argument("--table", help="sql: qualify every column by this table, so a column it lacks is an error "
                                   "(SQLite reads an unknown bare quoted name as a string; default: bare columns)")
    _add_data_options(p)
    p.set_defaults(func=_export)

    p = sub.add_parser("load", help="load a saved model and print it with its fit report")
    p.add_argument("model_file", help="a model saved by fit --save")
    p.set_defaults(func=_load_command)

    p = sub.add_parser("solvers", help="the solvers optitrees can use, installed or not, with versions")
    p.set_defaults(func=_solvers)

    p = sub.add_parser("study", help="run a study (datasets x seeds x models x grids) from a TOML file")
    p.add_argument("config", help="the study's TOML file (see optitrees.study)")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel fits on this machine (default: 1)")
    p.add_argument("--dask-workers", type=int, help="run on a Dask LocalCluster of this many one-thread workers "
                                                   "(default: no cluster)")
    p.add_argument("--scheduler", help="run on the Dask cluster of this scheduler address, e.g. tcp://host:8786 "
                                       "(default: no cluster)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_study)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``optitrees`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    from ..datasets import DataFileError
    from ..persistence import ModelFormatError
    from ..solvers import SolverNotAvailableError
    from ..study import StudyLockedError

    try:
        args = _parser().parse_args(argv)
        return args.func(args)
    except (UserError, DataFileError, ModelFormatError, StudyLockedError, SolverNotAvailableError, OSError) as exc:
        print(f"optitrees: error: {printable(exc)}", file=sys.stderr)
        return 2
    except ValueError as exc:                     # an estimator's own check of the data or its parameters
        print(f"optitrees: error: {printable(str(exc).splitlines()[0])}", file=sys.stderr)
        return 2
    except RecursionError:
        print("optitrees: error: the model or data is nested too deeply to process", file=sys.stderr)
        return 2
    except MemoryError:
        print("optitrees: error: out of memory (the model or data is too large for this machine)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
