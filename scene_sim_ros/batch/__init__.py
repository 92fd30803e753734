"""Many simulations at once: scenes x seeds x parameter sets, run headless without ROS, on local
worker processes or a Ray cluster, results in a folder (``scene-sim-ros batch SPEC.yaml``).

    from scene_sim_ros.batch import load_spec, run_batch
    report = run_batch(load_spec('batch.yaml'), workers=2)   # or ray='auto'
    report.summary                                            # OUTPUT/summary.csv

Modules: ``spec`` (the YAML spec), ``runs`` (the runs and their keys), ``worker`` (one run),
``recording`` (metrics, samples), ``attempt`` (one attempt in its own process),
``executors`` (local, Ray), ``results`` (the folder), ``driver`` (the loop), ``progress``.
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> module; imported on first use, so that the CLI's start-up stays light
_EXPORTS = {'BatchReport': 'driver', 'run_batch': 'driver', 'ResultStore': 'results',
            'RunTask': 'runs', 'plan_runs': 'runs', 'BatchSpec': 'spec', 'load_spec': 'spec',
            'spec_from_mapping': 'spec', 'RunContext': 'worker', 'SpecError': 'yaml_nodes'}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f'{__name__}.{_EXPORTS[name]}'), name)
    raise AttributeError(name)


__all__ = sorted(_EXPORTS)
