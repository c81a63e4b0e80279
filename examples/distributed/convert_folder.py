#!/usr/bin/env python3
"""Converts (or retargets) every humanoid file under a folder on a Dask cluster.

    convert_folder.py INPUT_DIR -o OUT_DIR --to FORMAT [--onto MODEL ...] [--workers N]
                      [--scheduler tcp://host:8786] [--single-process] [--force]
                      [--summary PATH]

Outputs are named as ``humanoid convert INPUT_DIR -o OUT_DIR --to FORMAT --recursive`` names
them: ``OUT_DIR/<folder below INPUT_DIR>/<stem>.<ext>``; with ``--onto`` every input is
retargeted onto each model (several models: ``OUT_DIR/<model stem>/...``). Two inputs that
would land on one output are both refused and neither is written; existing outputs are skipped
unless ``--force``, so a run that was stopped resumes where it was.

Without ``--scheduler`` a local cluster of ``--workers`` processes (one thread each) runs the
files; with it, the cluster at that address does (inputs and outputs must then be on storage
every worker sees under the same path). ``--single-process`` runs the same task function in a
loop in this process: the reference run. One summary JSON is written (``OUT_DIR/summary.json``
unless ``--summary``); the exit code is 1 when any input was refused or failed, else 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
# Local worker processes start with this process's sys.path, so they import the task too.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from humanoid_tasks import Record, make_record, run_job  # noqa: E402

TASKS_FILE = HERE / "humanoid_tasks.py"

EXTENSIONS = {
    "glb": "glb",
    "gltf": "gltf",
    "vrm1": "vrm",
    "vrm0": "vrm",
    "vrma": "vrma",
    "x3d": "x3d",
    "x3dv": "x3dv",
    "wrl": "wrl",
    "bvh": "bvh",
}
"""Output format -> the extension of its files."""

READABLE_SUFFIXES = (
    ".glb",
    ".gltf",
    ".vrm",
    ".vrma",
    ".x3d",
    ".x3dv",
    ".wrl",
    ".bvh",
    ".x3dz",
    ".x3dvz",
    ".wrz",
    ".x3d.gz",
    ".x3dv.gz",
    ".wrl.gz",
)
"""The file names a folder's walk takes (compared in lower case)."""

STATUSES = ("ok", "skipped", "refused", "failed")


@dataclass(frozen=True)
class Job:
    """One task: an input, its output, and the model it is retargeted onto (or ``None``)."""

    input: str
    output: str
    model: Optional[str]


def is_readable(name: str) -> bool:
    """Whether a file name has the extension of a format humanoid reads."""
    return name.lower().endswith(READABLE_SUFFIXES)


def find_inputs(root: Path, skip: Optional[Path] = None) -> List[Path]:
    """The readable files under ``root`` and its subfolders, sorted.

    A symbolic link to a file counts only when the file is inside ``root``; linked folders are
    not entered. The folder ``skip`` (the output folder, when it lies inside ``root``) is not
    entered either, so a second run does not convert the first run's outputs.
    """
    real_root = os.path.realpath(root)
    real_skip = os.path.realpath(skip) if skip is not None else None
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [
            name
            for name in subfolders
            if os.path.realpath(os.path.join(folder, name)) != real_skip
        ]
        for name in files:
            path = os.path.join(folder, name)
            if not is_readable(name) or not os.path.isfile(path):
                continue
            target = os.path.realpath(path)
            if os.path.commonpath([real_root, target]) == real_root:
                found.append(Path(path))
    return sorted(found)


def plan(
    root: Path, out_dir: Path, to: str, models: Sequence[Path] = ()
) -> Tuple[List[Job], List[Record]]:
    """The jobs of a run and the inputs refused up front (two inputs, one output name).

    Without ``models`` each input is converted; with them each input is retargeted onto each
    model, into ``out_dir`` for one model and ``out_dir/<model stem>`` for several.
    """
    inputs = find_inputs(root, skip=out_dir)
    targets: List[Tuple[Path, Optional[Path]]]  # (output folder, model)
    if len(models) > 1:
        targets = [(out_dir / model.stem, model) for model in models]
    else:
        targets = [(out_dir, models[0] if models else None)]
    by_output: Dict[Path, List[Job]] = {}
    for folder, model in targets:
        for path in inputs:
            output = folder / path.relative_to(root).with_suffix("." + EXTENSIONS[to])
            job = Job(str(path), str(output), None if model is None else str(model))
            by_output.setdefault(output, []).append(job)
    jobs: List[Job] = []
    refused: List[Record] = []
    for output, claimants in by_output.items():
        if len(claimants) == 1:
            jobs.extend(claimants)
            continue
        for job in claimants:
            others = ", ".join(o.input for o in claimants if o is not job)
            message = (
                f"{job.input}: {output} would also be written from {others}:"
                " rename one of them"
            )
            refused.append(
                make_record(
                    job.input,
                    job.output,
                    job.model,
                    "refused",
                    code="BATCH_OUTPUT_COLLISION",
                    message=message,
                )
            )
    jobs.sort(key=lambda job: (job.input, job.model or ""))
    return jobs, refused


def run_single_process(jobs: Sequence[Job], to: str, force: bool) -> List[Record]:
    """Runs every job in this process, one after the other (the reference run)."""
    return [run_job(job.input, job.output, to, job.model, force) for job in jobs]


def run_on_cluster(client: Any, jobs: Sequence[Job], to: str, force: bool) -> List[Record]:
    """Runs every job as one task on the cluster behind ``client``; returns the records in
    the order the tasks finished. A task that died with its worker is recorded as failed."""
    from distributed import as_completed

    futures = client.map(
        run_job,
        [job.input for job in jobs],
        [job.output for job in jobs],
        [to] * len(jobs),
        [job.model for job in jobs],
        [force] * len(jobs),
        pure=False,
    )
    job_of = {future.key: job for future, job in zip(futures, jobs)}
    records = []
    for future in as_completed(futures):
        if future.status == "error":
            job = job_of[future.key]
            error = future.exception()
            records.append(
                make_record(
                    job.input,
                    job.output,
                    job.model,
                    "failed",
                    code=type(error).__name__,
                    message=repr(error),
                )
            )
        else:
            records.append(future.result())
    return records


def summarize(
    records: Sequence[Record],
    *,
    to: str,
    mode: str,
    workers: int,
    startup_seconds: float,
    wall_seconds: float,
) -> Dict[str, Any]:
    """The summary of a run: totals per status, refused and failed inputs per code, time,
    rate, workers, and every record, sorted by input."""
    records = sorted(records, key=lambda r: (r["input"], r["model"] or "", r["output"]))
    totals = Counter(record["status"] for record in records)
    codes = Counter(record["code"] for record in records if record["code"])
    return {
        "format": to,
        "mode": mode,
        "workers": workers,
        "inputs": len(records),
        "totals": {status: totals[status] for status in STATUSES},
        "codes": dict(sorted(codes.items())),
        "startup_seconds": round(startup_seconds, 3),
        "wall_seconds": round(wall_seconds, 3),
        "files_per_second": round(len(records) / wall_seconds, 1) if wall_seconds > 0 else 0.0,
        "records": records,
    }


def write_json_atomically(path: Path, data: Any) -> None:
    """Writes ``data`` as JSON to ``path`` through a temporary file beside it, so a reader
    never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", dir=path.parent, prefix=path.name + ".", suffix=".tmp", delete=False
    ) as temp:
        json.dump(data, temp, indent=2)
        temp.write("\n")
    os.replace(temp.name, path)


def print_summary(summary: Dict[str, Any], summary_path: Path) -> None:
    """Prints the refused and failed inputs, then the counts per status and per code."""
    for record in summary["records"]:
        if record["status"] in ("refused", "failed"):
            print(f"{record['status']:8} {record['code']}: {record['message']}")
    print(
        f"{summary['inputs']} inputs in {summary['wall_seconds']:.2f} s"
        f" ({summary['files_per_second']} files/s, {summary['workers']} workers,"
        f" {summary['mode']})"
    )
    rows = list(summary["totals"].items()) + list(summary["codes"].items())
    width = max(len(name) for name, _ in rows)
    for name, count in rows:
        print(f"  {name:{width}} {count:5}")
    print(f"summary: {summary_path}")


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        description="Convert or retarget every humanoid file under a folder on Dask."
    )
    parser.add_argument("input_dir", type=Path, help="folder of inputs (read recursively)")
    parser.add_argument("-o", "--out", type=Path, required=True, help="output folder")
    parser.add_argument("--to", required=True, choices=sorted(EXTENSIONS))
    parser.add_argument(
        "--onto",
        type=Path,
        action="append",
        default=[],
        metavar="MODEL",
        help="retarget every input onto this character (repeatable)",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler", metavar="ADDRESS", help="a running Dask scheduler (tcp://host:8786)"
    )
    where.add_argument(
        "--single-process",
        action="store_true",
        help="run every file in this process, without Dask (the reference run)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="worker processes of the local cluster (default 2; not with --scheduler)",
    )
    parser.add_argument("--force", action="store_true", help="replace existing outputs")
    parser.add_argument(
        "--summary", type=Path, help="summary JSON (default OUT_DIR/summary.json)"
    )
    args = parser.parse_args(argv)
    if not args.input_dir.is_dir():
        parser.error(f"{args.input_dir}: not a folder")
    if args.workers < 1:
        parser.error("--workers: expected at least 1")
    for model in args.onto:
        if not model.is_file():
            parser.error(f"--onto {model}: not a file")
    stems = Counter(model.stem for model in args.onto)
    shared = sorted(stem for stem, count in stems.items() if count > 1)
    if shared:
        parser.error(
            f"--onto: several models are named {shared[0]!r}: their outputs would share"
            f" {args.out / shared[0]}; rename one"
        )
    # Absolute paths: a worker's working folder is not this process's.
    args.input_dir = args.input_dir.resolve()
    args.out = args.out.resolve()
    args.onto = [model.resolve() for model in args.onto]
    args.summary = (args.summary or args.out / "summary.json").resolve()
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command line; returns the exit code."""
    args = parse_args(argv)
    jobs, records = plan(args.input_dir, args.out, args.to, args.onto)
    started = time.perf_counter()
    if args.single_process:
        mode, workers = "single-process", 1
        ready = time.perf_counter()
        records += run_single_process(jobs, args.to, args.force)
    else:
        from distributed import Client, LocalCluster

        with ExitStack() as stack:
            if args.scheduler:
                mode = f"scheduler {args.scheduler}"
                client = stack.enter_context(Client(args.scheduler))
                client.wait_for_workers(1)
            else:
                mode = "local cluster"
                cluster = LocalCluster(
                    n_workers=args.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
                client = stack.enter_context(Client(stack.enter_context(cluster)))
                client.wait_for_workers(args.workers)
            # Remote workers do not have this folder: send them the task's module.
            client.upload_file(str(TASKS_FILE))
            workers = len(client.nthreads())
            ready = time.perf_counter()
            records += run_on_cluster(client, jobs, args.to, args.force)
    finished = time.perf_counter()
    summary = summarize(
        records,
        to=args.to,
        mode=mode,
        workers=workers,
        startup_seconds=ready - started,
        wall_seconds=finished - ready,
    )
    write_json_atomically(args.summary, summary)
    print_summary(summary, args.summary)
    failed = summary["totals"]["refused"] + summary["totals"]["failed"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
