"""Simox robot files: transforms, joints, units, physics, includes, metadata (inline files)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from formats.simox.helpers import link_matrix, rot_x, rot_y, rot_z, trans

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import format_of, load_scene
from scene_sim_ros.formats.simox import load
from scene_sim_ros.scene.geometry import Box, Cylinder, Mesh, Sphere
from scene_sim_ros.scene.motors import ServoMotor

BOX_IV = """\
#Inventor V2.1 ascii
Separator {
  Units { units MILLIMETERS }
  Coordinate3 { point [ -50 -50 -50, 50 -50 -50, 50 50 -50, -50 50 -50,
                        -50 -50 150, 50 -50 150, 50 50 150, -50 50 150 ] }
  IndexedFaceSet { coordIndex [ 0,1,2,3,-1, 4,5,6,7,-1, 0,1,5,4,-1, 2,3,7,6,-1,
                                0,3,7,4,-1, 1,2,6,5,-1 ] }
}
"""


def test_robot_transform_elements_compose_in_order(write_file):
    path = write_file('r.xml', """
        <Robot Type='T' RootNode='a'>
          <RobotNode name='a'><Child name='b'/></RobotNode>
          <RobotNode name='b'>
            <Transform>
              <Translation x='100' y='0' z='0'/>
              <rollpitchyaw roll='0' pitch='0' yaw='90' unitsAngle='degree'/>
              <Translation x='0.5' y='0' z='0' units='m'/>
            </Transform>
          </RobotNode>
        </Robot>""")
    entity = load(path).entities[0]
    expected = trans(0.1, 0, 0) @ rot_z(math.pi / 2) @ trans(0.5, 0, 0)
    np.testing.assert_allclose(link_matrix(entity, 'b'), expected, atol=1e-12)
    assert entity.joint('b').type == 'fixed'


def test_robot_dh_matrix_and_quaternion_transforms(write_file):
    path = write_file('r.xml', """
        <Robot Type='T' RootNode='a'>
          <RobotNode name='a'><Child name='b'/><Child name='c'/></RobotNode>
          <RobotNode name='b'>
            <Transform><DH a='20' d='30' theta='40' alpha='50' unitsangle='degree'/></Transform>
          </RobotNode>
          <RobotNode name='c'>
            <Transform>
              <Matrix4x4>
                <row1 c1='0' c2='-1' c3='0' c4='10'/>
                <row2 c1='1' c2='0' c3='0' c4='20'/>
                <row3 c1='0' c2='0' c3='1' c4='30'/>
                <row4 c1='0' c2='0' c3='0' c4='1'/>
              </Matrix4x4>
              <Quaternion x='0' y='0' z='0.7071067811865476' w='0.7071067811865476'/>
            </Transform>
          </RobotNode>
        </Robot>""")
    entity = load(path).entities[0]
    d = math.radians
    dh = rot_z(d(40)) @ trans(0, 0, 0.030) @ trans(0.020, 0, 0) @ rot_x(d(50))
    np.testing.assert_allclose(link_matrix(entity, 'b'), dh, atol=1e-12)
    matrix = np.array([[0, -1, 0, 0.010], [1, 0, 0, 0.020], [0, 0, 1, 0.030], [0, 0, 0, 1.0]])
    np.testing.assert_allclose(link_matrix(entity, 'c'), matrix @ rot_z(math.pi / 2), atol=1e-12)


def test_robot_joint_follows_node_transform_and_offset(write_file):
    path = write_file('r.xml', """
        <robot type='T' rootnode='a'>
          <robotnode name='a'><child name='b'/></robotnode>
          <robotnode name='b'>
            <transform><translation x='0' y='0' z='200'/></transform>
            <joint type='revolute' offset='0.5'>
              <axis x='0' y='2' z='0'/>
              <limits unit='degree' lo='-90' hi='45'/>
              <MaxVelocity value='3' unit='radian'/>
            </joint>
            <child name='c'/>
          </robotnode>
          <robotnode name='c'>
            <Joint type='prismatic' offset='100' initialValue='50'>
              <TranslationDirection x='1' y='0' z='0'/>
              <Limits unit='mm' lo='-10' hi='30'/>
            </Joint>
          </robotnode>
        </robot>""")
    entity = load(path).entities[0]
    b, c = entity.joint('b'), entity.joint('c')
    assert b.type == 'revolute' and b.axis == (0.0, 1.0, 0.0)
    assert b.limits == pytest.approx((-math.pi / 2, math.pi / 4))
    assert isinstance(b.motor, ServoMotor) and b.motor.max_velocity == pytest.approx(3.0)
    q = 0.25
    np.testing.assert_allclose(link_matrix(entity, 'b', {'b': q}),
                               trans(0, 0, 0.2) @ rot_y(0.5 + q), atol=1e-12)
    assert c.type == 'prismatic' and c.limits == pytest.approx((-0.010, 0.030))
    assert c.initial_position == pytest.approx(0.030)  # 50 mm clamped to the upper limit
    np.testing.assert_allclose(link_matrix(entity, 'c', {'b': 0.0, 'c': 0.02}),
                               trans(0, 0, 0.2) @ rot_y(0.5) @ trans(0.1 + 0.02, 0, 0),
                               atol=1e-12)


def test_robot_physics_units_com_and_inertia(write_file):
    write_file('box.iv', BOX_IV)
    path = write_file('r.xml', """
        <Robot Type='T' RootNode='a'>
          <RobotNode name='a'>
            <Visualization><File type='Inventor'>box.iv</File><UseAsCollisionModel/></Visualization>
            <Physics>
              <Mass value='1500' units='g'/>
              <CoM location='VisualizationBBoxCenter'/>
            </Physics>
            <Child name='b'/>
          </RobotNode>
          <RobotNode name='b'>
            <Physics>
              <Mass value='2' unitsWeight='kg'/>
              <CoM location='Joint' x='10' y='20' z='30'/>
              <InertiaMatrix unitsWeight='g' unitsLength='mm'>
                <row1 c1='1000' c2='0' c3='0'/>
                <row2 c1='0' c2='2000' c3='0'/>
                <row3 c1='0' c2='0' c3='3000'/>
              </InertiaMatrix>
              <IgnoreCollision name='a'/>
            </Physics>
          </RobotNode>
        </Robot>""")
    entity = load(path).entities[0]
    a = entity.link('a')
    assert a.inertial.mass == pytest.approx(1.5)
    assert a.inertial.com == pytest.approx((0.0, 0.0, 0.05))
    # no matrix: a solid box of the collision model's bounds, 0.1 x 0.1 x 0.2 m
    assert a.inertial.inertia[0] == pytest.approx(1.5 / 12 * (0.1 ** 2 + 0.2 ** 2))
    assert isinstance(a.visuals[0].shape, Mesh) and len(a.visuals[0].shape.triangles) == 12
    assert a.collisions[0].shape == a.visuals[0].shape
    b = entity.link('b')
    assert b.inertial.com == pytest.approx((0.01, 0.02, 0.03))
    assert b.inertial.inertia == pytest.approx((1e-6, 0, 0, 2e-6, 0, 3e-6))  # g*mm^2 = 1e-9 kg*m^2
    assert ('b', 'a') in entity.disabled_collisions


def test_robot_child_from_robot_includes_nodes_sets_and_endeffectors(write_file):
    write_file('hand.xml', """
        <Robot Type='Hand' RootNode='palm'>
          <RobotNode name='palm'><Child name='finger'/></RobotNode>
          <RobotNode name='finger'>
            <Transform><Translation x='0' y='0' z='50'/></Transform>
            <Joint type='revolute'><Axis x='1' y='0' z='0'/></Joint>
          </RobotNode>
          <RobotNodeSet name='Fingers' kinematicRoot='palm'><Node name='finger'/></RobotNodeSet>
          <Endeffector name='Hand' base='palm' tcp='palm'>
            <Static><Node name='palm'/></Static>
            <Actor name='All'><Node name='finger' considerCollisions='All'/></Actor>
          </Endeffector>
        </Robot>""")
    path = write_file('arm.xml', """
        <Robot Type='Arm' RootNode='base'>
          <RobotNode name='base'>
            <Transform><Translation x='100' y='0' z='0'/></Transform>
            <ChildFromRobot><File importEEF='true'>hand.xml</File></ChildFromRobot>
          </RobotNode>
        </Robot>""")
    scene = load(path)
    entity = scene.entities[0]
    assert [link.name for link in entity.links] == ['base', 'palm', 'finger']
    assert entity.joint('palm').parent == 'base'
    np.testing.assert_allclose(link_matrix(entity, 'finger'), trans(0, 0, 0.05), atol=1e-12)
    meta = scene.metadata['simox']['robots']['Arm']
    assert meta['robot_node_sets']['Fingers']['nodes'] == ['finger']
    assert meta['endeffectors']['Hand']['actors'] == {'All': ['finger']}


def test_robot_primitives_are_relative_to_the_previous_one(write_file):
    path = write_file('r.xml', """
        <Robot Type='T' RootNode='a'>
          <RobotNode name='a'>
            <Visualization>
              <Primitives>
                <Box width='100' height='200' depth='300'/>
                <Sphere radius='0.05' unitsLength='m'>
                  <Transform><Translation x='0' y='100' z='0'/></Transform>
                </Sphere>
                <Cylinder radius='10' height='40'>
                  <Transform><Translation x='0' y='100' z='0'/></Transform>
                </Cylinder>
              </Primitives>
            </Visualization>
          </RobotNode>
        </Robot>""")
    visuals = load(path).entities[0].link('a').visuals
    assert visuals[0].shape == Box((0.1, 0.2, 0.3))
    assert visuals[1].shape == Sphere(0.05) and visuals[1].pose.position == pytest.approx((0, 0.1, 0))
    assert visuals[2].shape == Cylinder(0.01, 0.04)
    assert visuals[2].pose.position == pytest.approx((0, 0.2, 0))
    assert visuals[2].pose.rotate((0.0, 0.0, 1.0)) == pytest.approx((0.0, 1.0, 0.0))  # along y


def test_robot_missing_mesh_gets_stand_in_with_warning(write_file):
    path = write_file('r.xml', """
        <Robot Type='T' RootNode='a'>
          <RobotNode name='a'>
            <Visualization><File type='Inventor'>nowhere.iv</File></Visualization>
          </RobotNode>
        </Robot>""")
    scene = load(path)
    assert isinstance(scene.entities[0].link('a').visuals[0].shape, Sphere)
    assert any(w.startswith(f'{path}:3:') and 'nowhere.iv' in w for w in scene.warnings)
    with pytest.raises(SceneLoadError, match='nowhere.iv'):
        load(path, strict=True)


def test_robot_unknown_element_warns_and_strict_raises(write_file):
    path = write_file('r.xml', """
        <Robot Type='T' RootNode='a'>
          <RobotNode name='a'><Gadget/></RobotNode>
        </Robot>""")
    assert any(':2:' in w and 'gadget' in w for w in load(path).warnings)
    with pytest.raises(SceneLoadError, match=r'r\.xml:2: .*gadget'):
        load(path, strict=True)


def test_robot_bad_structure_raises_with_location(write_file):
    path = write_file('r.xml', """
        <Robot Type='T' RootNode='a'>
          <RobotNode name='a'><Child name='ghost'/></RobotNode>
        </Robot>""")
    with pytest.raises(SceneLoadError, match=r"r\.xml:2: child 'ghost'"):
        load(path)


def test_robot_malformed_xml_loads_with_warnings(write_file):
    write_file('box.iv', BOX_IV)
    path = write_file('r.xml', """
        <?xml version="1.0"?>
        <Robot Type='T' RootNode='a'>
          <!-- old -- comment -->
          <RobotNode name='a'>
            <Visualization><File type='Inventor'>box.iv</Fil></Visualization>
          </RobotNode>
        </Robot>""")
    scene = load_scene(path)
    assert isinstance(scene.entities[0].link('a').visuals[0].shape, Mesh)
    assert any(w.startswith(f'{path}:3:') and '--' in w for w in scene.warnings)
    assert any(w.startswith(f'{path}:5:') and 'malformed' in w for w in scene.warnings)


def test_robot_xml_entities_are_not_expanded(write_file, tmp_path):
    secret = tmp_path / 'secret.txt'
    secret.write_text('SECRET')
    path = write_file('r.xml', f"""
        <!DOCTYPE Robot [<!ENTITY leak SYSTEM "file://{secret}">]>
        <Robot Type='&leak;' RootNode='a'><RobotNode name='a'/></Robot>""")
    scene = load(path)
    assert 'SECRET' not in scene.entities[0].name
    assert 'SECRET' not in str(scene.metadata)


def test_robot_detected_by_content_not_urdf(write_file):
    path = write_file('model.xml', "<Robot Type='T' RootNode='a'><RobotNode name='a'/></Robot>")
    assert format_of(path) == 'simox'
    scene = load_scene(path)
    assert scene.format == 'simox' and scene.entities[0].kind == 'robot'
    assert scene.entities[0].fixed_base


def test_nodes_that_are_children_of_each_other_apart_from_the_root_are_an_error(write_file):
    """b a child of c and c of b: the root never reaches them; they were left out silently."""
    path = write_file('r.xml', """<Robot Type='A' RootNode='a'>
        <RobotNode name='a'/>
        <RobotNode name='b'><Child name='c'/></RobotNode>
        <RobotNode name='c'><Child name='b'/><Child name='d'/></RobotNode>
        <RobotNode name='d'/></Robot>""")
    with pytest.raises(SceneLoadError) as info:
        load_scene(path)
    assert str(info.value) == (f"{path}:4: robot nodes 'c', 'b' are children of each other in a "
                               "loop, apart from the root 'a'")
