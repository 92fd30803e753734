"""What a run records while it steps: entity metrics, sensor samples and the final poses.

Each recorder is fed after every step (``after_step(sim)``) and reports plain data at the end
(``result()``): JSON-ready values, or numpy arrays for the samples file.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from scene_sim_ros.batch.spec import Recording, SensorSampling
from scene_sim_ros.scene.transforms import quat_rotate
from scene_sim_ros.sim.simulator import Simulator

UP = (0.0, 0.0, 1.0)


def moving_entities(sim: Simulator, kinds: tuple[str, ...] = ('robot', 'object')) -> list[str]:
    """The scene's entities of ``kinds`` that can move (not pinned to the world)."""
    loaded = set(sim.entity_names())
    return [entity.name for entity in sim.scene.entities
            if entity.name in loaded and entity.kind in kinds and not entity.fixed_base]


class DistanceMetric:
    """Path length (sum of the root's step-to-step moves) and net displacement per entity."""

    def __init__(self, sim: Simulator):
        self.names = moving_entities(sim)
        self.start = {name: np.array(sim.get_pose(name)[0]) for name in self.names}
        self.last = dict(self.start)
        self.path = dict.fromkeys(self.names, 0.0)

    def after_step(self, sim: Simulator) -> None:
        for name in self.names:
            position = np.array(sim.get_pose(name)[0])
            self.path[name] += float(np.linalg.norm(position - self.last[name]))
            self.last[name] = position

    def result(self) -> dict[str, Any]:
        return {'distance': self.path,
                'displacement': {name: float(np.linalg.norm(self.last[name] - self.start[name]))
                                 for name in self.names}}


class FallenMetric:
    """A robot has fallen when its root's up axis has tilted more than ``tilt_deg`` from where it
    pointed at the start (so robots that start lying are judged against that)."""

    def __init__(self, sim: Simulator, tilt_deg: float):
        self.tilt_deg = tilt_deg
        self.names = moving_entities(sim, ('robot',))
        self.start_up = {name: self._up(sim, name) for name in self.names}
        self.tilt: dict[str, float] = dict.fromkeys(self.names, 0.0)

    @staticmethod
    def _up(sim: Simulator, name: str) -> np.ndarray:
        return np.array(quat_rotate(sim.get_pose(name)[1], UP))

    def after_step(self, sim: Simulator) -> None:
        pass  # judged at the end only: a robot that stumbles and stands up again has not fallen

    def finish(self, sim: Simulator) -> None:
        for name in self.names:
            cosine = float(np.clip(np.dot(self.start_up[name], self._up(sim, name)), -1.0, 1.0))
            self.tilt[name] = math.degrees(math.acos(cosine))

    def result(self) -> dict[str, Any]:
        fallen = [name for name in self.names if self.tilt[name] > self.tilt_deg]
        return {'fallen': fallen, 'fallen_count': len(fallen), 'tilt_deg': self.tilt}


class SensorSampler:
    """Readings of one sensor every ``period`` steps, stacked per field at the end."""

    def __init__(self, sim: Simulator, sampling: SensorSampling):
        self.sampling = sampling
        self.name = f'{sampling.entity}/{sampling.sensor}'
        self.period = max(1, round(1.0 / (sampling.rate * sim.step_length)))
        sim.reader(sampling.entity, sampling.sensor)  # an unknown sensor fails before stepping
        self.times: list[float] = []
        self.fields: dict[str, list[Any]] = {}

    def after_step(self, sim: Simulator) -> None:
        if sim.steps % self.period:
            return
        self.times.append(sim.time)
        reading = sim.read(self.sampling.entity, self.sampling.sensor)
        values = reading if isinstance(reading, dict) else {'': reading}
        for field, value in values.items():
            self.fields.setdefault(field, []).append(value)

    def arrays(self) -> dict[str, np.ndarray]:
        arrays = {f'{self.name}/t': np.array(self.times, dtype=np.float64)}
        for field, values in self.fields.items():
            name = f'{self.name}/{field}' if field else self.name
            arrays[name] = _stack(name, values)
        return arrays


def _stack(name: str, values: list[Any]) -> np.ndarray:
    if all(isinstance(v, (bool, int, float, np.ndarray, np.generic)) for v in values):
        try:
            return np.stack([np.asarray(v) for v in values])
        except ValueError:
            raise ValueError(f'sensor {name}: readings change shape; cannot stack them') from None
    # lists of names (contacts): one JSON text per sample
    return np.array([json.dumps(v, sort_keys=True, default=str) for v in values])


class RunRecorder:
    """All recorders of one run, as :class:`~.spec.Recording` asks."""

    def __init__(self, sim: Simulator, recording: Recording):
        self.recording = recording
        self.metrics: list[Any] = []
        if 'distance' in recording.metrics:
            self.metrics.append(DistanceMetric(sim))
        if 'fallen' in recording.metrics:
            self.metrics.append(FallenMetric(sim, recording.fallen_tilt_deg))
        # a spec's scenes differ: a sampling of an entity this scene lacks is skipped, noted
        present = set(sim.entity_names())
        self.samplers = [SensorSampler(sim, s) for s in recording.sensors if s.entity in present]
        self.warnings = [f'no entity {s.entity!r} in this scene: {s.entity}/{s.sensor} not sampled'
                         for s in recording.sensors if s.entity not in present]

    def after_step(self, sim: Simulator) -> None:
        for metric in self.metrics:
            metric.after_step(sim)
        for sampler in self.samplers:
            sampler.after_step(sim)

    def result(self, sim: Simulator) -> dict[str, Any]:
        metrics: dict[str, Any] = {}
        for metric in self.metrics:
            if hasattr(metric, 'finish'):
                metric.finish(sim)
            metrics.update(metric.result())
        result: dict[str, Any] = {'steps': sim.steps, 'sim_time': sim.time, 'metrics': metrics}
        if self.warnings:
            result['warnings'] = self.warnings
        if self.recording.final_poses:
            result['final_poses'] = {name: {'position': list(xyz), 'orientation': list(quat)}
                                     for name in sim.entity_names()
                                     for xyz, quat in [sim.get_pose(name)]}
        return result

    def arrays(self) -> dict[str, np.ndarray]:
        arrays: dict[str, np.ndarray] = {}
        for sampler in self.samplers:
            arrays.update(sampler.arrays())
        return arrays
