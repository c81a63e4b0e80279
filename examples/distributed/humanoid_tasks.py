"""The unit of work of the distributed example: one input converted (or retargeted) into one
output, as a plain top-level function that takes strings and returns a small dict.

This module is what Dask workers import (``convert_folder.py`` puts its folder on
``sys.path`` for local workers and uploads this file to a remote cluster's workers). It holds
no state: every call reads its input from the path it is given and writes its output there, so
only paths and the small result dict cross the wire, never a character.
"""

from __future__ import annotations

import os
import time
from typing import Any, Dict, Optional

import humanoid

Record = Dict[str, Any]
"""One input's result: ``input``, ``output``, ``model``, ``status`` (``ok``, ``skipped``,
``refused`` or ``failed``), ``code``, ``message``, ``diagnostics_count`` and ``seconds``."""


def make_record(
    input_path: str,
    output_path: str,
    model: Optional[str],
    status: str,
    *,
    code: Optional[str] = None,
    message: Optional[str] = None,
    diagnostics_count: int = 0,
    seconds: float = 0.0,
) -> Record:
    """Builds a :data:`Record` (also used for inputs refused before any task runs)."""
    return {
        "input": input_path,
        "output": output_path,
        "model": model,
        "status": status,
        "code": code,
        "message": message,
        "diagnostics_count": diagnostics_count,
        "seconds": seconds,
    }


def run_job(
    input_path: str, output_path: str, to: str, model: Optional[str], force: bool
) -> Record:
    """Converts ``input_path`` into ``output_path`` in format ``to`` (with ``model``: retargets
    the input's clip onto that character instead) and says how it went.

    An existing output is skipped unless ``force``. The output's folder is created. A bad
    input never raises: an :class:`humanoid.UnsupportedError` is ``refused``, any other error
    ``failed`` (a :class:`humanoid.HumanoidError` with its code and message, anything else, a
    panic of the Rust library included, with its class name and ``repr``).
    """
    started = time.perf_counter()

    def finish(status: str, **fields: Any) -> Record:
        seconds = round(time.perf_counter() - started, 6)
        return make_record(
            input_path, output_path, model, status, seconds=seconds, **fields
        )

    if not force and os.path.lexists(output_path):
        return finish(
            "skipped", message=f"{output_path} exists: skipped (--force replaces it)"
        )
    try:
        os.makedirs(os.path.dirname(output_path), exist_ok=True)
        if model is None:
            report = humanoid.convert(input_path, output_path, to=to, force=force)
        else:
            report = humanoid.retarget(
                input_path, model, output_path, to=to, force=force
            )
    except humanoid.UnsupportedError as error:
        return finish("refused", code=error.code, message=error.message)
    except humanoid.HumanoidError as error:
        return finish("failed", code=error.code, message=error.message)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # noqa: BLE001 - one bad input must not stop the batch
        # BaseException: a Rust panic arrives as pyo3's PanicException, not an Exception.
        return finish("failed", code=type(error).__name__, message=repr(error))
    return finish("ok", diagnostics_count=len(report["diagnostics"]))
