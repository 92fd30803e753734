"""Values that come from outside the simulation: user inputs and joint encoders."""

from __future__ import annotations

import math
from typing import Any

from scene_sim_ros.scene import sensors as model
from scene_sim_ros.sim.sensors.base import Reader
from scene_sim_ros.sim.sensors.noise import add_gaussian
from scene_sim_ros.sim.simulator import Simulator


class UserInputReader(Reader):
    """A float set with :meth:`set` (within ``minimum..maximum``), ``default`` until then and
    after a reset."""

    reads = model.UserInput

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.value = float(sensor.default)

    def set(self, value: float) -> None:
        s = self.sensor
        number = float(value)
        if not math.isfinite(number) or not s.minimum <= number <= s.maximum:
            raise ValueError(f'user input {s.name!r}: {value!r} is outside '
                             f'[{s.minimum}, {s.maximum}]')
        self.value = number

    def reset(self) -> None:
        self.value = float(self.sensor.default)

    def read(self) -> float:
        return self.value


class JointPositionReader(Reader):
    """The position (rad or m) of ``sensor.joint``."""

    reads = model.JointPositionSensor

    def read(self) -> float:
        position = self.sim.joint_states(self.entity)[self.sensor.joint][0]
        return float(add_gaussian(self.sim.rng, float(position), self.sensor.noise))


class LedReader(Reader):
    """An LED's value (Webots' ``wb_led_set``): 0 off, ``1..len(colors)`` a colour of the
    LED, or for a ``gradual`` LED a 0xRRGGBB colour; ``set`` refuses anything else."""

    reads = model.Led

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.value = 0

    def set(self, value: int) -> None:
        s = self.sensor
        top = 0xFFFFFF if s.gradual else len(s.colors)
        if not isinstance(value, int) or not 0 <= value <= top:
            raise ValueError(f'LED {s.name!r}: {value!r} is not 0..{top}'
                             + ('' if s.gradual else ' (0 off, else a colour of the LED)'))
        self.value = value

    def reset(self) -> None:
        self.value = 0

    def read(self) -> int:
        return self.value
