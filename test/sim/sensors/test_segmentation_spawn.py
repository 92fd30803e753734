"""Segmentation labels after spawn/delete: a deleted entity's PyBullet body id serves the next
spawn (a parked body revived, or an id PyBullet hands out again), so labels go by entity."""

from __future__ import annotations

from dataclasses import replace

from scene_sim_ros.scene.sensors import SegmentationCamera
from scene_sim_ros.sim.sensors import create_reader

FOV_X, FOV_Y = 1.2, 0.9


def test_a_body_id_taken_over_by_another_entity_gets_that_entity_label(parts, simulate):
    seg = SegmentationCamera('seg', 'base', 64, 48, FOV_X, FOV_Y)
    scene = parts.make_scene(parts.sensor_host([seg]))
    sim = simulate(scene)
    reader = create_reader(sim, 'host', scene.entity('host').sensor('seg'))
    first = parts.static_box('first', (0.2, 0.6, 0.6), (2.0, 0.0, 1.0))
    sim.add_entity(first)
    body = sim.body_id('first')
    reader.read()
    assert reader.entity_names[reader.labels[24, 32]] == 'first'
    sim.remove_entity('first')
    sim.add_entity(replace(first, name='second'))  # equal content: the same body comes back
    assert sim.body_id('second') == body
    reader.read()
    assert reader.entity_names[reader.labels[24, 32]] == 'second'
