"""Every sensor kind of the scene model is registered everywhere it has to be (docs/extending.md).

The kinds come from one place, the ``Sensor`` union of :mod:`scene_sim_ros.scene.sensors`; each
registration table is reduced to the set of kinds it covers, and :func:`missing_registrations`
compares the two. Where a table legitimately differs from "one entry per kind" the difference is
written down here (:data:`TOPIC_VARIANTS`, :data:`ADAPTER_EXCLUSIONS`), never skipped. The checker
itself is tested against deliberately incomplete copies of the real tables.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

import pytest
import yaml

from scene_sim_ros.scene import sensors as model

REPO_ROOT = Path(__file__).resolve().parents[2]

TOPIC_VARIANTS: dict[str, tuple[str, ...]] = {
    'camera': ('camera', 'panoramic_camera'),
    'depth_camera': ('depth_camera', 'spherical_depth', 'laser_scan'),
}
"""Kinds with more than one key in ``SENSOR_TOPICS`` (``names.sensor_topic_kind``): a spherical
or cylindrical camera publishes no camera_info; a spherical depth camera neither, a one-row one
also a LaserScan. Others use their kind."""

ADAPTER_EXCLUSIONS: dict[str, str] = {}
"""Kinds deliberately without a ROS adapter (kind -> why); they must still have a reader."""


def model_kinds() -> list[str]:
    """The sensor kinds of the scene model: one per class of the ``Sensor`` union."""
    return [cls.kind for cls in typing.get_args(model.Sensor)]


def topic_keys(kind: str) -> tuple[str, ...]:
    return TOPIC_VARIANTS.get(kind, (kind,))


def missing_registrations(kinds: Iterable[str], tables: Mapping[str, Collection[str]]
                          ) -> list[str]:
    """One line per kind missing from a table, and per table entry that is no kind at all.

    ``tables`` maps a table's name to the kinds it registers (see the ``*_kinds`` reducers).
    """
    kinds = list(kinds)
    problems = [f'{kind}: missing from {name}'
                for name, covered in tables.items() for kind in kinds if kind not in covered]
    problems += [f'{name}: {entry!r} is no sensor kind'
                 for name, covered in tables.items() for entry in sorted(covered)
                 if entry not in kinds]
    return problems


# --- reducers: a registration table -> the kinds it covers ------------------------------------

def reader_kinds(readers: Mapping[type, object]) -> set[str]:
    return {cls.kind for cls in readers}


def adapter_kinds(adapters: Mapping[str, object], exclusions: Collection[str] = ()) -> set[str]:
    return set(adapters) | set(exclusions)


def topic_kinds(kinds: Iterable[str], sensor_topics: Mapping[str, object]) -> set[str]:
    """Kinds all of whose ``SENSOR_TOPICS`` keys are present (stale keys are reported too)."""
    covered = {kind for kind in kinds if all(k in sensor_topics for k in topic_keys(kind))}
    known = {key for kind in kinds for key in topic_keys(kind)}
    return covered | {key for key in sensor_topics if key not in known}


def rate_kinds(adapters: Mapping[str, type], rates: Collection[str],
               exclusions: Collection[str] = ()) -> set[str]:
    """Kinds whose adapter's ``rate_key`` is one of ``rates`` (PUBLISH_RATES, params.yaml)."""
    return {kind for kind, adapter in adapters.items()
            if getattr(adapter, 'rate_key', '') in rates} | set(exclusions)


def topic_table_rows(text: str) -> list[tuple[str, str]]:
    """(topic cell, type cell) of each row of docs/topics.md's per-entity topic table."""
    match = re.search(r'^\| topic \| type \| notes \|\n\|[-|]+\|\n((?:\|.*\n)+)', text, re.M)
    if match is None:
        return []
    rows = []
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) >= 2:
            rows.append((cells[0], cells[1]))
    return rows


def topic_table_kinds(kinds: Iterable[str],
                      sensor_topics: Mapping[str, Iterable[tuple[str, str]]],
                      rows: Iterable[tuple[str, str]]) -> set[str]:
    """Kinds each of whose (suffix, message type) has a docs/topics.md row: the suffix in the topic
    cell (``<sensor>/position``, ``imu/data_raw``) and the type's name in the type cell."""
    rows = list(rows)

    def listed(suffix: str, msg_type: str) -> bool:
        name = msg_type.rsplit('/', 1)[-1]
        return any(re.search(rf'/{re.escape(suffix)}\b|`{re.escape(suffix)}`', topic)
                   and re.search(rf'\b{re.escape(name)}\b', type_cell)
                   for topic, type_cell in rows)

    return {kind for kind in kinds
            if all(listed(suffix, msg_type) for key in topic_keys(kind)
                   for suffix, msg_type in sensor_topics.get(key, ()))
            and all(key in sensor_topics for key in topic_keys(kind))}


def params_yaml_rates(path: Path) -> set[str]:
    document = yaml.safe_load(path.read_text())
    return set(document['/**']['ros__parameters']['publish_rates'])


# --- the real tables -------------------------------------------------------------------------

@pytest.fixture(scope='module')
def registry():
    pytest.importorskip('rclpy')
    from scene_sim_ros.ros.bridge.adapters import ADAPTERS
    from scene_sim_ros.ros.bridge.names import SENSOR_TOPICS
    from scene_sim_ros.ros.runtime.node import PUBLISH_RATES
    from scene_sim_ros.sim.sensors import READERS
    return {
        'READERS': READERS, 'ADAPTERS': ADAPTERS, 'SENSOR_TOPICS': SENSOR_TOPICS,
        'PUBLISH_RATES': PUBLISH_RATES,
        'params.yaml': params_yaml_rates(REPO_ROOT / 'config' / 'params.yaml'),
        'README': topic_table_rows((REPO_ROOT / 'docs' / 'topics.md').read_text()),
    }


def registration_tables(reg: Mapping[str, typing.Any], kinds: list[str]
                        ) -> dict[str, set[str]]:
    return {
        'sim/sensors READERS': reader_kinds(reg['READERS']),
        'ros/adapters ADAPTERS': adapter_kinds(reg['ADAPTERS'], ADAPTER_EXCLUSIONS),
        'ros/names SENSOR_TOPICS': topic_kinds(kinds, reg['SENSOR_TOPICS']),
        'ros/node PUBLISH_RATES (adapter rate_key)': rate_kinds(
            reg['ADAPTERS'], reg['PUBLISH_RATES'], ADAPTER_EXCLUSIONS),
        'config/params.yaml publish_rates (adapter rate_key)': rate_kinds(
            reg['ADAPTERS'], reg['params.yaml'], ADAPTER_EXCLUSIONS),
        'docs/topics.md topic table': topic_table_kinds(kinds, reg['SENSOR_TOPICS'], reg['README']),
    }


def test_model_kinds_are_unique_and_every_class_has_one():
    kinds = model_kinds()
    assert len(kinds) == len(set(kinds)) >= 13
    assert all(isinstance(k, str) and k for k in kinds)


def test_every_sensor_kind_is_registered_in_every_table(registry):
    kinds = model_kinds()
    assert missing_registrations(kinds, registration_tables(registry, kinds)) == []


def test_publish_rates_in_code_and_params_yaml_agree(registry):
    assert set(registry['PUBLISH_RATES']) == registry['params.yaml']


def test_adapter_exclusions_are_explained_and_not_also_registered(registry):
    for kind, reason in ADAPTER_EXCLUSIONS.items():
        assert reason.strip(), kind
        assert kind not in registry['ADAPTERS'], kind


# --- the checker fails when a table lacks a kind ---------------------------------------------

def test_missing_registrations_names_the_kind_and_the_table():
    tables = {'A': {'camera', 'gps'}, 'B': {'camera'}}
    assert missing_registrations(['camera', 'gps'], tables) == ['gps: missing from B']


def test_missing_registrations_reports_entries_that_are_no_kind():
    assert missing_registrations(['camera'], {'A': {'camera', 'sonar'}}) == [
        "A: 'sonar' is no sensor kind"]


def _without(table: Mapping, key: object) -> dict:
    return {k: v for k, v in table.items() if k != key}


@pytest.mark.parametrize(('table', 'drop', 'expected'), [
    ('READERS', model.Gps, 'gps: missing from sim/sensors READERS'),
    ('ADAPTERS', 'compass', 'compass: missing from ros/adapters ADAPTERS'),
    ('SENSOR_TOPICS', 'laser_scan', 'depth_camera: missing from ros/names SENSOR_TOPICS'),
    ('SENSOR_TOPICS', 'joint_position', 'joint_position: missing from ros/names SENSOR_TOPICS'),
    ('PUBLISH_RATES', 'gps', 'gps: missing from ros/node PUBLISH_RATES (adapter rate_key)'),
])
def test_checker_fails_on_an_incomplete_copy_of_a_table(registry, table, drop, expected):
    kinds = model_kinds()
    incomplete = dict(registry, **{table: _without(registry[table], drop)})
    assert expected in missing_registrations(kinds, registration_tables(incomplete, kinds))


def test_checker_fails_on_a_new_kind_registered_nowhere(registry):
    kinds = [*model_kinds(), 'thermometer']
    problems = missing_registrations(kinds, registration_tables(registry, kinds))
    assert len([p for p in problems if p.startswith('thermometer: missing from')]) == 6


def test_checker_fails_on_a_topic_table_without_a_row(registry):
    kinds = model_kinds()
    rows = [row for row in registry['README'] if 'MagneticField' not in row[1]]
    tables = registration_tables(dict(registry, README=rows), kinds)
    assert missing_registrations(kinds, tables) == ['compass: missing from docs/topics.md topic table']


def test_checker_fails_on_params_yaml_without_a_rate(registry):
    kinds = model_kinds()
    rates = registry['params.yaml'] - {'range'}
    problems = missing_registrations(kinds, registration_tables(
        dict(registry, **{'params.yaml': rates}), kinds))
    table = 'config/params.yaml publish_rates (adapter rate_key)'
    assert problems == [f'single_distance: missing from {table}',
                        f'approx_distance: missing from {table}']
