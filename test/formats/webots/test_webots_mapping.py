"""Webots nodes -> scene model: world settings, physics, shapes, joints, motors, devices."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.webots import load
from scene_sim_ros.scene.transforms import Pose, quat_from_axis_angle

HEADER = '#VRML_SIM R2023b utf8\n'


def one(write_file, text, header=HEADER):
    return load(write_file('w.wbt', header + text))


def test_world_info_sets_step_gravity_and_contact_pairs(write_file):
    scene = one(write_file, """
    WorldInfo {
      basicTimeStep 8  gravity 3.7  ERP 0.4
      contactProperties [ ContactProperties { material1 "wheel" material2 "floor"
                                              coulombFriction [ 0.3 ] bounce 0.1 }
                          ContactProperties { material2 "ice" coulombFriction [ -1 ] } ]
    }
    Solid { contactMaterial "floor" boundingObject Plane { } }
    """)
    assert scene.step_length == 0.008 and scene.gravity == (0.0, 0.0, -3.7) and scene.erp == 0.4
    wheel, ice = scene.material_pairs
    assert (wheel.material_a, wheel.material_b, wheel.friction, wheel.restitution) == \
        ('wheel', 'floor', 0.3, 0.1)
    assert (ice.material_a, ice.friction) == ('default', 1e4)
    assert scene.entities[0].root.collisions[0].material == 'floor'


def test_rolling_friction_coefficients_are_reported_not_misread_as_decelerations(write_file):
    scene = one(write_file, """
    WorldInfo {
      contactProperties [ ContactProperties { material1 "ball" rollingFriction 0.01 0 0 } ]
    }
    """)
    assert scene.material_pairs[0].rolling_friction is None
    assert any('w.wbt:' in w and 'rollingFriction' in w for w in scene.warnings)


def test_physics_mass_from_density_times_bounding_volume(write_file):
    scene = one(write_file, """
    Solid { boundingObject Box { size 0.1 0.2 0.5 } physics Physics { density 500 } }
    Solid { boundingObject Sphere { radius 0.1 } physics Physics { density -1 mass 3 } }
    """)
    box, ball = scene.entities
    assert box.mass == pytest.approx(500 * 0.01)
    assert box.root.inertial.inertia[0] == pytest.approx(5.0 / 12 * (0.04 + 0.25))
    assert ball.mass == 3.0 and ball.root.inertial.inertia[5] == pytest.approx(0.4 * 3 * 0.01)
    assert (box.name, ball.name) == ('solid', 'solid(1)')
    assert box.kind == 'object' and not box.fixed_base


def test_physics_center_of_mass_and_inertia_matrix_are_taken_as_given(write_file):
    solid = one(write_file, """
    Solid { boundingObject Box { size 1 1 1 }
            physics Physics { mass 2 centerOfMass [ 0 0 0.1 ]
                              inertiaMatrix [ 1 2 3, 0.1 0.2 0.3 ] } }
    """).entities[0]
    assert solid.root.inertial.com == (0.0, 0.0, 0.1)
    assert solid.root.inertial.inertia == (1.0, 0.1, 0.2, 2.0, 0.3, 3.0)


def test_solid_without_physics_is_static_and_shapes_become_visuals(write_file):
    solid = one(write_file, """
    Solid {
      translation 1 0 0
      children [ Pose { translation 0 0 1 children [
        Shape { appearance PBRAppearance { baseColor 1 0 0 transparency 0.25 }
                geometry Cylinder { radius 0.1 height 0.4 } }
        Shape { appearance Appearance { material Material { diffuseColor 0 1 0 } }
                geometry Capsule { radius 0.1 height 0.2 } } ] } ]
    }""").entities[0]
    assert solid.kind == 'static' and solid.fixed_base
    cylinder, capsule = solid.root.visuals
    assert cylinder.color == (1.0, 0.0, 0.0, 0.75) and cylinder.pose.position == (0.0, 0.0, 1.0)
    assert cylinder.shape.length == 0.4 and capsule.color == (0.0, 1.0, 0.0, 1.0)


def test_vrml_material_becomes_a_phong_surface_pbr_keeps_its_colour_as_diffuse(write_file):
    solid = one(write_file, """
    Solid {
      children [
        Shape { appearance Appearance { material Material {
                  diffuseColor 0 1 0 ambientIntensity 0.5 specularColor 1 1 1 shininess 0.25
                  emissiveColor 0.1 0 0 } }
                geometry Box { size 1 1 1 } }
        Shape { appearance PBRAppearance { baseColor 1 0 0 } geometry Sphere { radius 0.1 } } ]
    }""").entities[0]
    box, sphere = solid.root.visuals
    assert box.surface.diffuse == (0.0, 1.0, 0.0, 1.0)
    assert box.surface.ambient == (0.0, 0.5, 0.0, 1.0)  # ambientIntensity x diffuseColor
    assert box.surface.specular[:3] == (1.0, 1.0, 1.0) and box.surface.shininess == 32.0
    assert box.surface.emission[:3] == (0.1, 0.0, 0.0)
    assert sphere.color == (1.0, 0.0, 0.0, 1.0)
    assert sphere.surface.diffuse == sphere.surface.ambient == (1.0, 0.0, 0.0, 1.0)


@pytest.mark.parametrize('fields, specular, shininess', [
    ('', (1.0, 0.0, 0.0), 128.0),  # Webots' defaults: metalness 1, roughness 0 (a mirror)
    ('metalness 0 roughness 0.5', (0.04, 0.04, 0.04), 30.0),  # 2 / 0.25^2 - 2
    ('metalness 0.5 roughness 1', (0.52, 0.02, 0.02), 1.0),
    ('metalness 0 roughness 0.2', (0.04, 0.04, 0.04), 128.0),  # 2 / 0.04^2 - 2 > 128
])
def test_pbr_appearance_maps_metalness_and_roughness_to_phong(write_file, fields, specular,
                                                              shininess):
    """Fresnel F0 = mix(0.04, baseColor, metalness); exponent 2/alpha^2 - 2 with alpha =
    roughness^2 (Walter et al. 2007), within 1..128."""
    solid = one(write_file, f"""
    Solid {{ children [ Shape {{
      appearance PBRAppearance {{ baseColor 1 0 0 {fields} emissiveColor 0 0 1
                                 emissiveIntensity 0.5 }}
      geometry Sphere {{ radius 0.1 }} }} ] }}""").entities[0]
    surface = solid.root.visuals[0].surface
    assert surface.specular[:3] == pytest.approx(specular, abs=1e-12)
    assert surface.shininess == pytest.approx(shininess, abs=1e-9)
    assert surface.emission[:3] == (0.0, 0.0, 0.5)


def test_indexed_face_set_becomes_a_triangulated_mesh(write_file):
    solid = one(write_file, """
    Solid { boundingObject IndexedFaceSet {
      coord Coordinate { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0, 0 0 1 ] }
      coordIndex [ 0 1 2 3 -1 0 1 4 -1 ] } }""").entities[0]
    mesh = solid.root.collisions[0].shape
    assert mesh.kind == 'mesh' and mesh.triangles.tolist() == [[0, 1, 2], [0, 2, 3], [0, 1, 4]]


HINGE = """
Robot {
  name "arm"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 1 position %s }
      device [ RotationalMotor { name "shoulder" maxVelocity 2 maxTorque 30
                                 minPosition -1 maxPosition 1.5 controlPID 20 0.1 0.5 }
               PositionSensor { name "shoulder sensor" } ]
      endPoint Solid { translation 0.5 0 1 rotation %s name "upper"
                       boundingObject Box { size 0.1 0.1 0.1 } physics Physics { mass 1 } }
    }
  ]
  physics Physics { mass 5 }
}
"""


def test_hinge_joint_becomes_a_revolute_joint_with_a_servo(write_file):
    arm = one(write_file, HINGE % ('0', '0 0 1 0')).entities[0]
    joint = arm.joint('shoulder')
    assert (joint.type, joint.parent, joint.child) == ('revolute', 'arm', 'upper')
    assert joint.origin.position == (0.0, 0.0, 1.0)  # the joint frame sits on the anchor
    assert joint.axis == pytest.approx((0.0, 1.0, 0.0))
    assert joint.limits == (-1.0, 1.5)
    motor = joint.motor
    assert (motor.kind, motor.max_velocity, motor.max_force, motor.i, motor.d) == \
        ('servo', 2.0, 30.0, 0.1, 0.5)
    assert motor.p == pytest.approx(1 / 0.032)  # P 20 raised to 1 / basicTimeStep
    # the child's contents keep their place: the box is 0.5 m along x from the anchor
    assert arm.link('upper').collisions[0].pose.position == pytest.approx((0.5, 0.0, 0.0))
    sensor = arm.sensor('shoulder sensor')
    assert (sensor.kind, sensor.joint, sensor.link) == ('joint_position', 'shoulder', 'upper')
    assert arm.kind == 'robot' and not arm.fixed_base


def test_hinge_axis_is_expressed_in_the_rotated_child_frame(write_file):
    arm = one(write_file, HINGE % ('0', '0 0 1 1.5707963267948966')).entities[0]
    joint = arm.joint('shoulder')
    # parent y seen from a child turned +90 deg about z is the child's +x
    assert joint.origin.rotate(joint.axis) == pytest.approx((0.0, 1.0, 0.0))
    assert joint.axis == pytest.approx((1.0, 0.0, 0.0), abs=1e-9)


def test_hinge_position_moves_the_end_point_back_to_zero(write_file):
    angle = 0.3
    # the file shows the upper arm turned by `angle` about y through the anchor (0 0 1)
    turned = Pose((0, 0, 1)) * Pose(orientation=quat_from_axis_angle((0, 1, 0), angle)) \
        * Pose((0.5, 0, 0))
    axis_angle = f'0 1 0 {angle}'
    text = HINGE % (str(angle), axis_angle)
    text = text.replace('translation 0.5 0 1', 'translation {!r} {!r} {!r}'.format(*turned.position))
    joint = one(write_file, text).entities[0].joint('shoulder')
    assert joint.initial_position == angle
    assert joint.origin.is_close(Pose((0.0, 0.0, 1.0)), 1e-9, 1e-9)


def test_slider_joint_becomes_prismatic_with_linear_motor_force(write_file):
    robot = one(write_file, """
    Robot { children [ SliderJoint {
      jointParameters JointParameters { axis 0 0 1 minStop -0.1 maxStop 0.2 }
      device [ LinearMotor { name "lift" maxForce 50 } ]
      endPoint Solid { translation 0 0 0.3 name "carriage" physics Physics { mass 1 }
                       boundingObject Box { size 0.1 0.1 0.1 } } } ] }""").entities[0]
    joint = robot.joint('lift')
    assert (joint.type, joint.limits, joint.motor.max_force) == ('prismatic', (-0.1, 0.2), 50.0)
    assert joint.origin.position == (0.0, 0.0, 0.3) and robot.fixed_base


def test_hinge2_joint_is_two_revolute_joints_and_ball_joint_is_ball(write_file):
    robot = one(write_file, """
    Robot { children [
      Hinge2Joint {
        jointParameters HingeJointParameters { axis 0 0 1 anchor 1 0 0 }
        jointParameters2 JointParameters { axis 0 1 0 }
        device [ RotationalMotor { name "steer" } ]
        device2 [ RotationalMotor { name "spin" } ]
        endPoint Solid { translation 1 0 0 name "wheel" physics Physics { mass 1 }
                         boundingObject Sphere { radius 0.1 } } }
      BallJoint { jointParameters BallJointParameters { anchor 0 1 0 }
                  endPoint Solid { translation 0 1 0 name "ball" } } ] }""").entities[0]
    steer, spin, ball = robot.joints
    assert (steer.name, steer.child, spin.parent, spin.child) == \
        ('steer', 'wheel hinge2', 'wheel hinge2', 'wheel')
    assert steer.axis == (0.0, 0.0, 1.0) and spin.axis == (0.0, 1.0, 0.0)
    assert steer.origin.position == (1.0, 0.0, 0.0)
    assert (ball.type, ball.child, ball.origin.position) == ('ball', 'ball', (0.0, 1.0, 0.0))


def test_nested_solid_with_physics_is_a_fixed_link_and_without_is_fused(write_file):
    robot = one(write_file, """
    Robot { name "r" children [
      Solid { translation 0 0 1 name "heavy" physics Physics { mass 1 }
              boundingObject Box { size 0.1 0.1 0.1 } }
      Solid { translation 1 0 0 name "light" boundingObject Sphere { radius 0.2 } } ]
      physics Physics { mass 2 } }""").entities[0]
    assert [link.name for link in robot.links] == ['r', 'heavy']
    assert robot.joints[0].type == 'fixed' and robot.joints[0].origin.position == (0, 0, 1)
    assert robot.root.collisions[0].pose.position == (1.0, 0.0, 0.0)


def test_devices_become_sensors_with_webots_defaults(write_file):
    robot = one(write_file, """
    Robot { children [
      Camera { translation 0.1 0 0.2 width 320 height 240 fieldOfView 1.2 noise 0.01 }
      RangeFinder { name "depth" minRange 0.1 maxRange 5 }
      RangeFinder { name "pano" projection "cylindrical" width 90 height 10 fieldOfView 3 }
      Lidar { horizontalResolution 360 numberOfLayers 1 fieldOfView 6.28 maxRange 8 }
      DistanceSensor { lookupTable [ 0.02 1000 0, 0.8 0 0 ] }
      TouchSensor { boundingObject Box { size 0.1 0.1 0.1 } }
      Accelerometer { } Gyro { } InertialUnit { } GPS { } Compass { } Gyro { } ] }
    """).entities[0]
    by_name = {s.name: s for s in robot.sensors}
    camera = by_name['camera']
    assert (camera.width, camera.height, camera.fov_x, camera.noise) == (320, 240, 1.2, 0.01)
    assert camera.fov_y == pytest.approx(2 * math.atan(math.tan(0.6) * 0.75))
    assert camera.pose.position == (0.1, 0.0, 0.2) and camera.pose.is_close(
        Pose((0.1, 0.0, 0.2)))  # R2022a+: Webots cameras already look along +x, z up
    depth = by_name['depth']
    assert (depth.kind, depth.projection, depth.min_range, depth.max_range) == \
        ('depth_camera', 'perspective', 0.1, 5.0)
    assert by_name['pano'].projection == 'spherical'
    assert by_name['pano'].fov_y == pytest.approx(3 * 10 / 90)
    lidar = by_name['lidar']
    assert (lidar.projection, lidar.width, lidar.height, lidar.max_range) == \
        ('spherical', 360, 1, 8.0)
    distance = by_name['distance sensor']
    assert (distance.kind, distance.min_range, distance.max_range) == \
        ('single_distance', 0.02, 0.8)
    touch = by_name['touch sensor']
    assert touch.kind == 'collision' and touch.shapes == ('touch sensor:0',)
    assert [c.name for c in robot.root.collisions] == ['touch sensor:0']
    kinds = sorted(s.kind for s in robot.sensors)
    assert kinds.count('gyroscope') == 2 and 'gyro(1)' in by_name
    assert {'accelerometer', 'inertial_unit', 'gps', 'compass'} <= set(kinds)


@pytest.mark.parametrize(('device', 'field'), [
    ('Camera { width 1e-320 }', 'Camera.width'), ('RangeFinder { height 0 }', 'RangeFinder.height')])
def test_image_of_no_pixels_is_refused_at_its_field(write_file, device, field):
    """A width of 1e-320 (read as 0) divided by zero for the vertical field of view."""
    path = write_file('w.wbt', f'{HEADER}Robot {{ children [\n  {device} ] }}\n')
    with pytest.raises(SceneLoadError, match=f'^{path}:3: {field} is -?[01]; it must be at '
                                             'least 1$'):
        load(path)


def test_old_y_up_world_is_turned_z_up_and_old_cameras_are_rotated(write_file):
    scene = one(write_file, """
    WorldInfo { gravity 0 -9.81 0 }
    Robot {
      translation 0 1 2
      children [ Camera { } ]
      boundingObject Cylinder { radius 0.1 height 1 }
    }""", header='#VRML_SIM R2021a utf8\n')
    assert scene.gravity == pytest.approx((0.0, 0.0, -9.81))
    robot = scene.entities[0]
    assert robot.pose.position == pytest.approx((0.0, -2.0, 1.0))  # y up -> z up
    # an old cylinder lies along its y: in the world it stands upright (along z)
    world_cylinder = robot.pose * robot.root.collisions[0].pose
    assert world_cylinder.rotate((0, 0, 1)) == pytest.approx((0.0, 0.0, 1.0), abs=1e-9)
    # an old camera looked along its -z with y up: our sensor x (forward) must be the old -z
    # (world +y after turning the world) and our z (up) the old y (world z)
    camera = robot.pose * robot.sensors[0].pose
    assert camera.rotate((1, 0, 0)) == pytest.approx((0.0, 1.0, 0.0), abs=1e-9)
    assert camera.rotate((0, 0, 1)) == pytest.approx((0.0, 0.0, 1.0), abs=1e-9)


def test_unknown_nodes_are_warnings_or_strict_errors(write_file):
    text = 'Robot { children [ Frobnicator { } Speaker { } ] }'
    scene = one(write_file, text)
    assert any('unknown node Frobnicator' in w for w in scene.warnings)
    assert any('Speaker is not simulated (no sound is simulated)' in w for w in scene.warnings)
    from scene_sim_ros.errors import SceneLoadError
    with pytest.raises(SceneLoadError, match='Frobnicator'):
        load(write_file('s.wbt', HEADER + text), strict=True)


def test_contact_bounce_and_bounce_velocity_with_webots_defaults(write_file):
    scene = one(write_file, """
    WorldInfo {
      contactProperties [ ContactProperties { material1 "ball" bounce 0.7 bounceVelocity 0.3 }
                          ContactProperties { material1 "box" } ]
    }
    """)
    ball, box = scene.material_pairs
    assert (ball.restitution, ball.restitution_threshold) == (0.7, 0.3)
    assert (box.restitution, box.restitution_threshold) == (0.5, 0.01)  # ContactProperties'


def test_unnamed_solids_are_named_as_webots_names_them_skipping_names_taken():
    """Webots: the second ``solid`` is ``solid(1)``; a name the file gives is never reused."""
    from scene_sim_ros.formats.webots.context import NameSet, unique
    used = NameSet()
    names = [unique('solid', used) for _ in range(3)]
    used.add('solid(4)')   # written in the file
    names += [unique('solid', used) for _ in range(2)]
    assert names == ['solid', 'solid(1)', 'solid(2)', 'solid(3)', 'solid(5)']
    plain: set[str] = set()   # a plain set gives the same names
    assert [unique('solid', plain) for _ in range(3)] == names[:3]
