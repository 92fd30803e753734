"""Many simulations at once: scenes x engines x parameter sets x seeds, run headless without ROS,
on local worker processes or a Ray cluster, results in a folder (``scene-sim-ros batch
SPEC.yaml``).

    from scene_sim_ros.batch import load_spec, run_batch
    report = run_batch(load_spec('batch.yaml'), workers=2)   # or ray='auto'
    report.summary                                            # OUTPUT/summary.csv

Modules: ``spec`` (the YAML spec), ``runs`` (the runs and their keys), ``worker`` (one run),
``recording`` (metrics, samples), ``attempt`` (one attempt in its own process),
``executors`` (local, Ray), ``results`` (the folder), ``driver`` (the loop), ``progress``.
"""

from __future__ import annotations

from typing import Any

__all__ = ['BatchReport', 'BatchSpec', 'ResultStore', 'RunContext', 'RunTask', 'SpecError',
           'load_spec', 'plan_runs', 'run_batch', 'spec_from_mapping']


def __getattr__(name: str) -> Any:
    # imported on first use, so that the CLI's start-up stays light
    if name in ('BatchReport', 'run_batch'):
        from scene_sim_ros.batch import driver
        return getattr(driver, name)
    if name == 'ResultStore':
        from scene_sim_ros.batch import results
        return getattr(results, name)
    if name in ('RunTask', 'plan_runs'):
        from scene_sim_ros.batch import runs
        return getattr(runs, name)
    if name in ('BatchSpec', 'load_spec', 'spec_from_mapping'):
        from scene_sim_ros.batch import spec
        return getattr(spec, name)
    if name == 'RunContext':
        from scene_sim_ros.batch import worker
        return getattr(worker, name)
    if name == 'SpecError':
        from scene_sim_ros.batch import yaml_nodes
        return getattr(yaml_nodes, name)
    raise AttributeError(name)
