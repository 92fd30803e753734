"""Inertial and pose sensors from the simulation's own link states.

Accelerometer: specific force ``a - g`` of the sensor point in the sensor frame, ``a`` from the
change of the point's world velocity over the last physics step (SimRobot's method); at rest and
upright it reads (0, 0, +9.81). Gyroscope: the link's angular velocity in the sensor frame.
InertialUnit: quaternion (x, y, z, w) of the sensor frame in the world. Gps: sensor position in
the world. Compass: unit vector to north (world +y, ENU) in the sensor frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scene_sim_ros.scene import sensors as model
from scene_sim_ros.scene.transforms import (
    Pose,
    Quat,
    cross,
    matrix_from_quat,
    quat_conjugate,
    quat_normalized,
    quat_rotate,
)
from scene_sim_ros.sim.sensors.base import Reader
from scene_sim_ros.sim.sensors.noise import add_gaussian
from scene_sim_ros.sim.simulator import Simulator

NORTH = np.array([0.0, 1.0, 0.0])


def _rotation(pose: Pose) -> np.ndarray:
    return np.array(matrix_from_quat(pose.orientation))


def _into_sensor(link: Pose, mount_inverse: Quat, vector: Any) -> np.ndarray:
    """World ``vector`` in the frame of a sensor on ``link`` (``mount_inverse``: the inverse
    of its mount rotation). Plain tuples: every IMU of a scene reads after every step, and a
    composed Pose and a 3x3 numpy matrix per read cost four times as much."""
    in_link = quat_rotate(quat_conjugate(link.orientation), vector)
    return np.array(quat_rotate(mount_inverse, in_link), dtype=np.float64)


def _mount_inverse(sensor: Any) -> Quat:
    return quat_conjugate(quat_normalized(sensor.pose.orientation))


class AccelerometerReader(Reader):
    """(3,) float64 specific force (m/s^2) in the sensor frame."""

    reads = model.Accelerometer

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self._gravity = np.asarray(sim.scene.gravity, dtype=np.float64)
        self._mount_inverse = _mount_inverse(sensor)
        self._velocity: np.ndarray | None = None
        self._acceleration = np.zeros(3)

    def _point_velocity(self) -> np.ndarray:
        pose, linear, angular = self.sim.link_world_state(self.entity, self.sensor.link)
        offset = pose.rotate(self.sensor.pose.position)
        # plain tuples: this runs after every step for every accelerometer (np.cross costs 10x)
        return np.add(linear, cross(angular, offset))

    def after_step(self) -> None:
        velocity = self._point_velocity()
        if self._velocity is not None:
            self._acceleration = (velocity - self._velocity) / self.sim.step_length
        self._velocity = velocity

    def reset(self) -> None:
        self._velocity = None
        self._acceleration = np.zeros(3)

    def read(self) -> np.ndarray:
        pose, _, _ = self.sim.link_world_state(self.entity, self.sensor.link)
        specific_force = _into_sensor(pose, self._mount_inverse,
                                      (self._acceleration - self._gravity).tolist())
        return add_gaussian(self.sim.rng, specific_force, self.sensor.noise)


class GyroscopeReader(Reader):
    """(3,) float64 angular velocity (rad/s) in the sensor frame."""

    reads = model.Gyroscope

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self._mount_inverse = _mount_inverse(sensor)

    def read(self) -> np.ndarray:
        pose, _, angular = self.sim.link_world_state(self.entity, self.sensor.link)
        rate = _into_sensor(pose, self._mount_inverse, angular)
        return add_gaussian(self.sim.rng, rate, self.sensor.noise)


class InertialUnitReader(Reader):
    """(4,) float64 quaternion (x, y, z, w) of the sensor frame in the world; ``noise`` (rad) is
    a random rotation vector added to it."""

    reads = model.InertialUnit

    def read(self) -> np.ndarray:
        orientation = self.sensor_pose().orientation
        if self.sensor.noise > 0.0:
            error = Pose.from_xyz_rpy(rpy=tuple(self.sim.rng.normal(0.0, self.sensor.noise, 3)))
            orientation = quat_normalized((Pose((0, 0, 0), orientation) * error).orientation)
        return np.array(orientation, dtype=np.float64)


class GpsReader(Reader):
    """(3,) float64 world position (m) of the sensor."""

    reads = model.Gps

    def read(self) -> np.ndarray:
        position = np.array(self.sensor_pose().position, dtype=np.float64)
        return add_gaussian(self.sim.rng, position, self.sensor.noise)


class CompassReader(Reader):
    """(3,) float64 unit vector to north (world +y) in the sensor frame."""

    reads = model.Compass

    def read(self) -> np.ndarray:
        north = _rotation(self.sensor_pose()).T @ NORTH
        noisy = add_gaussian(self.sim.rng, north, self.sensor.noise)
        return noisy / np.linalg.norm(noisy)
