"""Every SimRobot element class mapped into the scene model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.scene import geometry, motors, sensors
from scene_sim_ros.scene.inertia import box_inertia, rotate_inertia
from scene_sim_ros.scene.transforms import quat_from_axis_angle, quat_from_rpy, quat_normalized

SURFACES = """
<Surface name="red" diffuseColor="#f00"/>
<Surface name="tex" diffuseColor="rgb(100%, 100%, 100%)" diffuseTexture="Textures/a.png"/>
"""


def test_scene_attributes_are_kept(scene_of) -> None:
    scene = scene_of('<QuickSolver iterations="50" skip="2"/>',
                     scene_attributes=' controller="C" stepLength="0.012s" gravity="-5m/s^2" '
                     'color="#102030" ERP="0.2" CFM="0.001" bodyCollisions="false" '
                     'contactSoftERP="0.3" slip1="0.1" iterations="7"')
    assert scene.format == 'simrobot'
    assert scene.name == 'Test'
    assert scene.gravity == (0.0, 0.0, -5.0)
    assert scene.background == pytest.approx((0x10 / 255, 0x20 / 255, 0x30 / 255, 1.0))
    assert (scene.erp, scene.cfm, scene.body_collisions) == (0.2, 0.001, False)
    assert scene.metadata['controller'] == 'C'
    assert scene.metadata['contactSoftERP'] == 0.3
    assert scene.metadata['slip1'] == 0.1
    assert scene.metadata['quick_solver'] == {'iterations': 50, 'skip': 2}
    # an attribute of another element (QuickSolver's) is kept, with a warning
    assert scene.metadata['scene_attributes'] == {'iterations': '7'}
    assert any('unexpected attribute "iterations" of <Scene>' in w for w in scene.warnings)


def test_scene_step_length_with_unit(scene_of) -> None:
    assert scene_of('', scene_attributes=' stepLength="0.0166s"').step_length == pytest.approx(0.0166)


def test_scene_defaults(scene_of) -> None:
    scene = scene_of('')
    assert scene.step_length == 0.01
    assert scene.gravity == (0.0, 0.0, -9.80665)
    assert (scene.erp, scene.cfm, scene.body_collisions) == (None, None, True)


def test_lights_of_both_grammar_versions(scene_of) -> None:
    scene = scene_of("""
        <Light z="8m" ambientColor="rgb(50%, 50%, 50%)"/>
        <DirLight x="1" z="0" diffuseColor="#808080"/>
        <PointLight x="1m" y="2m" z="9m"/>
        <SpotLight z="3m" dirX="1" dirZ="0" cutoff="0.5"/>""")
    old, directional, point, spot = scene.lights
    assert old.kind == 'directional' and old.direction == pytest.approx((0, 0, -1))
    assert old.ambient == pytest.approx((0.5, 0.5, 0.5, 1.0))
    assert directional.direction == pytest.approx((-1, 0, 0))
    assert directional.diffuse[0] == pytest.approx(128 / 255)
    assert point.kind == 'point' and point.position == pytest.approx((1, 2, 9))
    assert spot.kind == 'spot' and spot.direction == pytest.approx((1, 0, 0))
    assert spot.cutoff == pytest.approx(math.acos(0.5))


def test_body_entity_pose_masses_and_primitives(scene_of) -> None:
    scene = scene_of("""
        <Body name="thing">
          <Translation x="1" y="2" z="300mm"/>
          <Rotation z="90degree"/>
          <BoxMass value="2kg" depth="0.4" width="0.2" height="0.1"/>
          <SphereMass value="1kg" radius="0.1"><Translation x="0.3"/></SphereMass>
          <BoxGeometry depth="0.4" width="0.2" height="0.1" name="box"/>
          <SphereGeometry radius="5cm"><Translation z="0.1"/></SphereGeometry>
          <CylinderGeometry radius="1cm" height="10cm"/>
          <CapsuleGeometry radius="1cm" height="10cm"/>
          <TorusGeometry majorRadius="10cm" minorRadius="1cm"/>
        </Body>""")
    entity = scene.entity('thing')
    assert entity.kind == 'object' and not entity.fixed_base
    assert entity.pose.position == pytest.approx((1, 2, 0.3))
    assert entity.pose.orientation == pytest.approx(quat_from_axis_angle((0, 0, 1), math.pi / 2))
    link = entity.root
    assert link.name == 'thing'
    assert link.inertial.mass == pytest.approx(3.0)
    assert link.inertial.com == pytest.approx((0.1, 0.0, 0.0))
    shapes = [c.shape for c in link.collisions]
    assert shapes[0] == geometry.Box((0.4, 0.2, 0.1))  # depth = x, width = y, height = z
    assert link.collisions[0].name == 'box'
    assert shapes[1] == geometry.Sphere(0.05) and link.collisions[1].pose.position == (0, 0, 0.1)
    assert shapes[2] == geometry.Cylinder(0.01, 0.1)
    assert shapes[3] == geometry.Capsule(0.01, pytest.approx(0.08))
    assert shapes[4] == geometry.Torus(0.1, 0.01)


def test_masses_combine_with_parallel_axis_theorem(scene_of) -> None:
    scene = scene_of("""
        <Body name="b">
          <BoxMass value="1kg" depth="0.1" width="0.1" height="0.1"><Translation x="0.5"/></BoxMass>
          <BoxMass value="1kg" depth="0.1" width="0.1" height="0.1"><Translation x="-0.5"/></BoxMass>
        </Body>""")
    inertial = scene.entity('b').root.inertial
    own = box_inertia(1.0, (0.1, 0.1, 0.1))
    assert inertial.com == pytest.approx((0, 0, 0))
    assert inertial.inertia[0] == pytest.approx(2 * own[0])
    assert inertial.inertia[3] == pytest.approx(2 * (own[3] + 0.25))
    assert inertial.inertia[5] == pytest.approx(2 * (own[5] + 0.25))


def test_nested_and_rotated_masses(scene_of) -> None:
    scene = scene_of("""
        <Body name="b">
          <Mass>
            <Translation z="1"/>
            <BoxMass value="1kg" depth="0.4" width="0.2" height="0.1"><Rotation z="90degree"/></BoxMass>
            <CylinderMass value="1kg" radius="0.1" height="0.2"/>
            <CapsuleMass value="1kg" radius="0.1" height="0.4"/>
          </Mass>
        </Body>""")
    inertial = scene.entity('b').root.inertial
    assert inertial.mass == pytest.approx(3.0)
    assert inertial.com == pytest.approx((0, 0, 1))
    rotated = rotate_inertia(box_inertia(1.0, (0.4, 0.2, 0.1)),
                             quat_normalized(quat_from_rpy(0, 0, math.pi / 2)))
    assert rotated[0] == pytest.approx(box_inertia(1.0, (0.2, 0.4, 0.1))[0])
    assert inertial.inertia[0] > rotated[0]


def test_inertia_matrix_mass_in_gram_millimetres(scene_of) -> None:
    scene = scene_of("""
        <Body name="b">
          <InertiaMatrixMass value="1049.56g" x="-4.13mm" z="43.42mm" ixx="5062341.69g*mm^2"
            ixy="14311.60g*mm^2" ixz="155190.83g*mm^2" iyy="4880133.93g*mm^2"
            iyz="-27079.30g*mm^2" izz="1610302.24g*mm^2"/>
        </Body>""")
    inertial = scene.entity('b').root.inertial
    assert inertial.mass == pytest.approx(1.04956)
    assert inertial.com == pytest.approx((-0.00413, 0, 0.04342))
    assert inertial.inertia == pytest.approx((5062341.69e-9, 14311.60e-9, 155190.83e-9,
                                              4880133.93e-9, -27079.30e-9, 1610302.24e-9))


def test_geometry_materials_and_friction_pairs(scene_of) -> None:
    scene = scene_of("""
        <Compound name="ground">
          <Geometry name="group">
            <Translation z="1"/>
            <Material ref="Stone"/>
            <BoxGeometry depth="1" width="1" height="1" name="inner"><Translation x="1"/></BoxGeometry>
          </Geometry>
          <SphereGeometry radius="1"><Material name="Inline"/></SphereGeometry>
        </Compound>""", definitions="""
        <Material name="Wood"/>
        <Material name="Stone">
          <Friction material="Wood" value="0.8"/>
          <RollingFriction material="Wood" value="0.05"/>
        </Material>""")
    ground = scene.entity('ground')
    assert ground.kind == 'static' and ground.fixed_base
    inner, sphere = ground.root.collisions
    assert inner.name == 'inner' and inner.material == 'Stone'
    assert inner.pose.position == pytest.approx((1, 0, 1))
    assert sphere.material == 'Inline'
    (pair,) = scene.material_pairs
    assert (pair.material_a, pair.material_b, pair.friction, pair.rolling_friction) == (
        'Stone', 'Wood', 0.8, 0.05)


def test_appearances_with_surface_colour_texture_and_nesting(scene_of, tmp_path) -> None:
    scene = scene_of("""
        <Compound name="c">
          <Appearance name="group">
            <Translation z="2"/>
            <BoxAppearance depth="1" width="2" height="3" name="box"><Surface ref="red"/></BoxAppearance>
            <SphereAppearance radius="1"><Surface ref="tex"/><Translation x="1"/></SphereAppearance>
          </Appearance>
          <CylinderAppearance radius="1" height="2"><Surface ref="red"/></CylinderAppearance>
          <CapsuleAppearance radius="1" height="4"><Surface ref="red"/></CapsuleAppearance>
        </Compound>""", definitions=SURFACES)
    box, sphere, cylinder, capsule = scene.entity('c').root.visuals
    assert box.shape == geometry.Box((1.0, 2.0, 3.0)) and box.name == 'box'
    assert box.color == (1.0, 0.0, 0.0, 1.0) and box.pose.position == (0, 0, 2)
    assert sphere.pose.position == (1, 0, 2)
    assert sphere.texture == tmp_path / 'Textures' / 'a.png'
    assert cylinder.shape == geometry.Cylinder(1.0, 2.0)
    assert capsule.shape == geometry.Capsule(1.0, 2.0)


COMPLEX = """
<ComplexAppearance name="quad">
  <Surface ref="red"/>
  <Vertices unit="mm">
    0 0 0   # a comment
    1000 0 0
    1000 1000 0
    0 1000 0
  </Vertices>
  <Quads>0 1 2 3</Quads>
  <Triangles>0 1 2</Triangles>
  <TexCoords>0 0 1 0 1 1 0 1</TexCoords>
</ComplexAppearance>
<ComplexAppearance name="withNormals">
  <Surface ref="red"/>
  <Vertices>0 0 0 1 0 0 0 1 0</Vertices>
  <Normals>0 0 1 0 0 -1</Normals>
  <Triangles>0 0 1 0 2 0  0 1 2 1 1 1</Triangles>
</ComplexAppearance>
"""


def test_complex_appearance_meshes(scene_of) -> None:
    scene = scene_of("""
        <Compound name="c">
          <ComplexAppearance ref="quad"/>
          <ComplexAppearance ref="quad" name="second"><Translation x="5"/></ComplexAppearance>
          <ComplexAppearance ref="withNormals"/>
        </Compound>""", definitions=SURFACES + COMPLEX)
    first, second, normals = scene.entity('c').root.visuals
    mesh = first.shape
    assert isinstance(mesh, geometry.Mesh)
    assert mesh.vertices[2] == pytest.approx((1.0, 1.0, 0.0))
    assert mesh.triangles.tolist() == [[0, 1, 2], [0, 2, 3], [0, 1, 2]]
    assert mesh.texcoords is not None and mesh.texcoords.shape == (4, 2)
    assert second.shape is mesh and second.name == 'second'
    assert second.pose.position == (5, 0, 0)
    split = normals.shape
    assert len(split.vertices) == 6  # each vertex appears with two different normals
    assert split.normals is not None and len(split.normals) == 6
    corners = split.vertices[split.triangles]
    corner_normals = split.normals[split.triangles]
    assert corners[0].tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert np.allclose(corner_normals[0], [0, 0, 1]) and np.allclose(corner_normals[1], [0, 0, -1])


def test_hinge_joint_with_servo_limits_and_initial_position(scene_of) -> None:
    scene = scene_of("""
        <Body name="robot">
          <BoxMass value="1kg" depth="0.1" width="0.1" height="0.1"/>
          <Hinge name="joint">
            <Translation z="0.1"/>
            <Rotation z="90degree"/>
            <Axis y="2">
              <Deflection min="-30degree" max="60degree" init="10degree"/>
              <ServoMotor maxVelocity="474degree/s" maxForce="3N" p="40" i="0.1" d="2"/>
            </Axis>
            <Body name="arm">
              <Translation y="0.05"/>
              <SphereMass value="0.5kg" radius="0.01"/>
            </Body>
          </Hinge>
        </Body>""")
    robot = scene.entity('robot')
    assert robot.kind == 'robot' and [link.name for link in robot.links] == ['robot', 'arm']
    joint = robot.joint('joint')
    assert (joint.type, joint.parent, joint.child) == ('revolute', 'robot', 'arm')
    assert joint.axis == pytest.approx((0, 1, 0))
    # the body's y offset lies on the axis, so it moves into the origin (rotated by the hinge)
    assert joint.origin.position == pytest.approx((-0.05, 0, 0.1))
    assert joint.origin.orientation == pytest.approx(quat_from_axis_angle((0, 0, 1), math.pi / 2))
    assert joint.limits == pytest.approx((-math.pi / 6, math.pi / 3))
    assert joint.initial_position == pytest.approx(math.radians(10))
    # p/d/maxForce of B-Human's MuJoCo-era NAO and no ODE attribute: SimRobotCore3's torque law
    assert joint.motor == motors.ServoMotor(pytest.approx(math.radians(474)), 3.0, 40.0, 0.1, 2.0,
                                            control='torque')
    assert robot.mass == pytest.approx(1.5)
    assert ('robot', 'arm') in robot.disabled_collisions
    assert robot.self_collision is False  # one Body tree: one collision space in SimRobot


def test_hinge_with_body_off_the_axis_keeps_rotation_centre(scene_of) -> None:
    scene = scene_of("""
        <Compound name="machine">
          <Hinge name="door">
            <Translation y="-0.4" z="0.5"/>
            <Axis x="1"/>
            <Body name="leaf">
              <Translation y="0.1"/>
              <BoxMass value="1kg" depth="0.1" width="0.1" height="0.1"/>
              <BoxGeometry depth="0.1" width="0.1" height="0.1"/>
            </Body>
          </Hinge>
        </Compound>""")
    machine = scene.entity('machine')
    assert machine.kind == 'robot' and machine.fixed_base
    joint = machine.joint('door')
    assert joint.origin.position == pytest.approx((0, -0.4, 0.5))  # on the hinge axis
    leaf = machine.link('leaf')
    assert leaf.collisions[0].pose.position == pytest.approx((0, 0.1, 0))
    assert leaf.inertial.com == pytest.approx((0, 0.1, 0))
    assert joint.limits is None and joint.motor is None


def test_slider_with_velocity_and_pt2_motors(scene_of) -> None:
    scene = scene_of("""
        <Body name="base">
          <BoxMass value="1kg" depth="0.1" width="0.1" height="0.1"/>
          <Slider name="lift">
            <Axis z="1">
              <Deflection min="10mm" max="0.5" init="5cm"/>
              <VelocityMotor maxVelocity="200mm/s" maxForce="10"/>
            </Axis>
            <Body name="top"><Translation z="0.2"/><BoxMass value="1kg" depth="0.1" width="0.1" height="0.1"/></Body>
          </Slider>
          <Hinge name="pt2">
            <Axis x="1"><PT2Motor T="0.1" D="0.7" K="1" V="5" F="2N"/></Axis>
            <Body name="other"><BoxMass value="1kg" depth="0.1" width="0.1" height="0.1"/></Body>
          </Hinge>
        </Body>""")
    base = scene.entity('base')
    lift = base.joint('lift')
    assert lift.type == 'prismatic' and lift.limits == pytest.approx((0.01, 0.5))
    assert lift.initial_position == pytest.approx(0.05)
    assert lift.origin.position == pytest.approx((0, 0, 0.2))
    assert lift.motor == motors.VelocityMotor(pytest.approx(0.2), 10.0)
    assert base.joint('pt2').motor == motors.PT2Motor(0.1, 0.7, 1.0, 5.0, 2.0)


def test_sensors_of_every_kind(scene_of) -> None:
    scene = scene_of("""
        <Body name="r">
          <BoxMass value="1kg" depth="0.1" width="0.1" height="0.1"/>
          <Camera name="cam" imageWidth="640" imageHeight="480" angleX="60degree" angleY="45degree">
            <Translation x="0.05"/><Rotation y="10degree"/>
          </Camera>
          <DepthImageSensor name="depth" imageWidth="64" imageHeight="48" angleX="1" angleY="0.75" min="10cm" max="5m"/>
          <DepthImageSensor name="laser" imageWidth="100" angleX="120degree" angleY="0.1degree" projection="spherical"/>
          <ObjectSegmentedImageSensor name="seg" imageWidth="32" imageHeight="24" angleX="1" angleY="1"/>
          <SingleDistanceSensor name="sonar" min="1cm" max="2m"/>
          <ApproxDistanceSensor name="approx" max="1400mm" angleX="40degree" angleY="40degree"/>
          <Accelerometer/>
          <Gyroscope><Translation z="0.01"/></Gyroscope>
          <CollisionSensor name="bumper">
            <Translation x="0.1"/>
            <BoxGeometry depth="0.01" width="0.1" height="0.1"/>
            <SphereGeometry radius="0.02" name="tip"/>
          </CollisionSensor>
          <UserInput name="knob" type="angle" min="-90degree" max="90degree" default="10degree"/>
        </Body>""")
    robot = scene.entity('r')
    assert robot.kind == 'robot'
    cam = robot.sensor('cam')
    assert isinstance(cam, sensors.Camera) and (cam.width, cam.height) == (640, 480)
    assert (cam.fov_x, cam.fov_y) == pytest.approx((math.pi / 3, math.pi / 4))
    assert cam.link == 'r' and cam.pose.position == (0.05, 0, 0)
    depth = robot.sensor('depth')
    assert isinstance(depth, sensors.DepthCamera) and depth.projection == 'perspective'
    assert (depth.min_range, depth.max_range) == pytest.approx((0.1, 5.0))
    laser = robot.sensor('laser')
    assert laser.projection == 'spherical' and laser.height == 1
    assert isinstance(robot.sensor('seg'), sensors.SegmentationCamera)
    sonar = robot.sensor('sonar')
    assert isinstance(sonar, sensors.SingleDistanceSensor) and sonar.max_range == pytest.approx(2)
    approx = robot.sensor('approx')
    assert isinstance(approx, sensors.ApproxDistanceSensor) and approx.max_range == pytest.approx(1.4)
    assert isinstance(robot.sensor('Accelerometer'), sensors.Accelerometer)
    assert robot.sensor('Gyroscope').pose.position == (0, 0, 0.01)
    bumper = robot.sensor('bumper')
    assert isinstance(bumper, sensors.CollisionSensor)
    assert bumper.shapes == ('bumper_0', 'tip')
    names = {c.name: c for c in robot.root.collisions}
    assert names['tip'].pose.position == pytest.approx((0.1, 0, 0))
    knob = robot.sensor('knob')
    assert isinstance(knob, sensors.UserInput) and knob.unit == 'rad'
    assert (knob.minimum, knob.maximum, knob.default) == pytest.approx(
        (-math.pi / 2, math.pi / 2, math.radians(10)))


def test_compound_flattens_nested_compounds_and_frees_bodies(scene_of) -> None:
    scene = scene_of("""
        <Compound name="outer">
          <Translation x="1"/>
          <Compound name="inner">
            <Translation y="2"/>
            <BoxGeometry depth="1" width="1" height="1"/>
            <Body name="free"><Translation z="3"/><SphereMass value="1kg" radius="0.1"/></Body>
          </Compound>
        </Compound>
        <Compound name="empty"/>""")
    assert scene.entity_names() == ['outer', 'free']
    assert scene.entity('outer').root.collisions[0].pose.position == (0, 2, 0)
    assert scene.entity('free').pose.position == pytest.approx((1, 2, 3))
    assert scene.entity('free').kind == 'object'
    assert scene.metadata['empty_compounds'] == ['empty']


def test_unnamed_and_duplicate_entities_get_unique_deterministic_names(scene_of) -> None:
    body = '<Body><SphereMass value="1kg" radius="0.1"/></Body>'
    scene = scene_of(body * 2 + '<Body name="body"><SphereMass value="1kg" radius="0.1"/></Body>')
    assert scene.entity_names() == ['body', 'body_2', 'body_3']


def test_ros3_extension_loads_with_same_grammar(scene_of) -> None:
    scene = scene_of('<Body name="b"><SphereMass value="1kg" radius="0.1"/></Body>',
                     name='x.ros3')
    assert scene.entity('b').mass == pytest.approx(1.0)


def test_misplaced_elements_and_attributes_warn_or_fail_in_strict_mode(scene_of) -> None:
    """Names some SimRobot element takes, in the wrong place: warnings (errors if strict).
    Names no grammar knows are errors: test_simrobot_typos.py."""
    body = ('<Body name="b" radius="1"><SphereMass value="1kg" radius="0.1"/>'
            '<Deflection min="0" max="1"/></Body>')
    scene = scene_of(body)
    assert len(scene.warnings) == 2
    assert any('test.ros2:' in w and 'unexpected element <Deflection> in <Body>' in w
               for w in scene.warnings)
    assert any('unexpected attribute "radius" of <Body>' in w for w in scene.warnings)
    from scene_sim_ros.errors import SceneLoadError
    with pytest.raises(SceneLoadError, match='Deflection'):
        scene_of(body, name='strict.ros2', strict=True)


def test_surface_lit_only_by_its_ambient_colour_keeps_that_colour(scene_of) -> None:
    scene = scene_of("""
        <Compound name="c">
          <BoxAppearance depth="1" width="1" height="1"><Surface ref="field"/></BoxAppearance>
          <BoxAppearance depth="1" width="1" height="1"><Surface ref="goal"/></BoxAppearance>
        </Compound>""", definitions="""
        <Surface name="field" diffuseColor="#000000" ambientColor="#279f27"/>
        <Surface name="goal" diffuseColor="rgba(70%, 70%, 70%, 0.5)" ambientColor="rgb(45%, 45%, 45%)"/>
        """)
    field, goal = scene.entity('c').root.visuals
    assert field.color == pytest.approx((0x27 / 255, 0x9f / 255, 0x27 / 255, 1.0))
    assert goal.color == pytest.approx((0.7, 0.7, 0.7, 0.5))
