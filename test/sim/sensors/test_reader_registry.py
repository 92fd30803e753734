"""Sensor readers register themselves for the model class they declare (sim.sensors.base.register)."""

from __future__ import annotations

import typing
from collections.abc import Iterator

import pytest

from scene_sim_ros.scene import sensors as model
from scene_sim_ros.sim.sensors import READERS, base
from scene_sim_ros.sim.sensors.base import Reader
from scene_sim_ros.sim.sensors.cameras import CameraReader
from scene_sim_ros.sim.sensors.rays import SphericalDepthReader


@pytest.fixture
def registry() -> Iterator[dict[type, type[Reader]]]:
    """The registry, restored after the test (a class defined in a test registers itself)."""
    saved = dict(base.REGISTERED)
    yield base.REGISTERED
    base.REGISTERED.clear()
    base.REGISTERED.update(saved)


def test_every_model_class_has_the_reader_that_declares_it():
    assert set(READERS) == set(typing.get_args(model.Sensor))
    assert all(reader.reads is cls for cls, reader in READERS.items())
    assert SphericalDepthReader not in READERS.values()  # create_reader picks it by projection


def test_a_reader_that_declares_a_model_class_registers_itself(registry):
    class Thermometer:
        kind = 'thermometer'

    class ThermometerReader(Reader):
        reads = Thermometer

    assert registry[Thermometer] is ThermometerReader


def test_a_subclass_that_declares_nothing_registers_nothing(registry):
    before = dict(registry)

    class BrighterCameraReader(CameraReader):
        pass

    assert registry == before


def test_a_second_reader_for_one_model_class_is_an_error(registry):
    before = dict(registry)
    with pytest.raises(TypeError, match='reads Camera, which .*CameraReader reads already'):
        type('OtherCameraReader', (Reader,), {'reads': model.Camera})
    assert registry == before
