import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scene_sim_ros.scene.inertia import (
    box_inertia,
    capsule_inertia,
    combine,
    cylinder_inertia,
    rotate_inertia,
    sphere_inertia,
)
from scene_sim_ros.scene.transforms import quat_from_axis_angle

positive = st.floats(min_value=0.01, max_value=10.0)


def test_box_inertia_of_unit_cube():
    assert box_inertia(6.0, (1, 1, 1)) == pytest.approx((1, 0, 0, 1, 0, 1))


def test_capsule_with_zero_length_is_a_sphere():
    assert capsule_inertia(2.0, 0.3, 0.0) == pytest.approx(sphere_inertia(2.0, 0.3))


def test_combine_two_point_masses_uses_parallel_axis_theorem():
    mass, com, inertia = combine([(1.0, (1, 0, 0), (0,) * 6), (1.0, (-1, 0, 0), (0,) * 6)])
    assert mass == 2.0
    assert com == pytest.approx((0, 0, 0))
    assert inertia == pytest.approx((0, 0, 0, 2, 0, 2))


def test_combine_ignores_massless_parts():
    assert combine([(0.0, (5, 5, 5), (1,) * 6), (2.0, (1, 2, 3), (1, 0, 0, 1, 0, 1))])[:2] == (
        2.0, (1.0, 2.0, 3.0))


def test_rotating_a_cylinder_a_quarter_turn_swaps_axes():
    cyl = cylinder_inertia(1.0, 0.1, 1.0)
    rotated = rotate_inertia(cyl, quat_from_axis_angle((1, 0, 0), math.pi / 2))
    assert rotated[3] == pytest.approx(cyl[5])  # old z axis now lies along y
    assert rotated[5] == pytest.approx(cyl[3])


@given(positive, positive, positive, positive)
def test_split_box_combines_to_whole_box(mass, x, y, z):
    half = (x / 2, y, z)
    parts = [(mass / 2, (-x / 4, 0, 0), box_inertia(mass / 2, half)),
             (mass / 2, (x / 4, 0, 0), box_inertia(mass / 2, half))]
    total_mass, com, inertia = combine(parts)
    assert total_mass == pytest.approx(mass)
    assert com == pytest.approx((0, 0, 0), abs=1e-9)
    assert inertia == pytest.approx(box_inertia(mass, (x, y, z)), rel=1e-9, abs=1e-12)
