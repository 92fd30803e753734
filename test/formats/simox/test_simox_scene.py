"""Simox scene and object files."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import format_of, load_scene
from scene_sim_ros.formats.simox import load
from scene_sim_ros.scene.geometry import Box

ROBOT = """
    <Robot Type='Arm' RootNode='base'>
      <RobotNode name='base'><Child name='shoulder'/><Child name='slide'/></RobotNode>
      <RobotNode name='shoulder'>
        <Joint type='revolute'><Axis x='0' y='0' z='1'/><Limits unit='degree' lo='-90' hi='90'/></Joint>
      </RobotNode>
      <RobotNode name='slide'>
        <Joint type='prismatic'><TranslationDirection x='1' y='0' z='0'/>
          <Limits unit='mm' lo='0' hi='500'/></Joint>
      </RobotNode>
    </Robot>"""


def _data_dir(write_file):
    write_file('data/robots/arm/Arm.xml', ROBOT)
    write_file('data/objects/block.xml', """
        <ManipulationObject name='Block'>
          <Visualization>
            <Primitives><Box width='100' height='100' depth='100'/></Primitives>
            <UseAsCollisionModel/>
          </Visualization>
          <Physics><Mass value='200' units='g'/></Physics>
        </ManipulationObject>""")


def test_scene_robot_configuration_pose_and_objects(write_file):
    _data_dir(write_file)
    path = write_file('data/scenes/demo/scene.XML', """
        <Scene name='Demo'>
          <Robot name='Arm1' initConfig='start'>
            <File>/robots/arm/Arm.xml</File>
            <Configuration name='start'>
              <Node name='shoulder' unit='degree' value='45'/>
              <Node name='slide' unit='mm' value='250'/>
            </Configuration>
            <GlobalPose><Transform><Translation x='1000' y='0' z='0'/></Transform></GlobalPose>
          </Robot>
          <ManipulationObject name='Cube'>
            <File>objects/block.xml</File>
            <GlobalPose><Transform><Translation x='0' y='500' z='0'/></Transform></GlobalPose>
          </ManipulationObject>
          <Obstacle name='Wall'>
            <Visualization><Primitives><Box width='10' height='2000' depth='1000'/></Primitives>
              <UseAsCollisionModel/></Visualization>
          </Obstacle>
          <SceneObjectSet name='Things'><SceneObject name='Cube'/><SceneObject name='Wall'/></SceneObjectSet>
        </Scene>""")
    assert format_of(path) == 'simox'
    scene = load_scene(path)
    assert scene.name == 'Demo' and scene.warnings == ()
    arm = scene.entity('Arm1')
    assert arm.kind == 'robot' and arm.pose.position == pytest.approx((1.0, 0, 0))
    assert arm.joint('shoulder').initial_position == pytest.approx(math.pi / 4)
    assert arm.joint('slide').initial_position == pytest.approx(0.25)
    cube = scene.entity('Cube')
    assert cube.kind == 'object' and cube.mass == pytest.approx(0.2)
    assert cube.pose.position == pytest.approx((0, 0.5, 0))
    assert cube.root.collisions[0].shape == Box((0.1, 0.1, 0.1))
    wall = scene.entity('Wall')
    assert wall.kind == 'static' and wall.fixed_base
    meta = scene.metadata['simox']
    assert meta['scene_object_sets'] == {'Things': ['Cube', 'Wall']}
    assert meta['robots']['Arm1']['configurations']['start']['slide'] == pytest.approx(0.25)


def test_scene_data_path_parameter_and_missing_files(write_file, tmp_path):
    _data_dir(write_file)
    path = write_file('elsewhere/scene.xml', """
        <Scene name='S'>
          <Robot name='A'><File>robots/arm/Arm.xml</File></Robot>
          <Robot name='B'><File>robots/none/None.xml</File></Robot>
        </Scene>""")
    scene = load(path)
    assert scene.entity_names() == []
    assert any(w.startswith(f'{path}:2:') and 'Arm.xml' in w for w in scene.warnings)
    scene = load(path, parameters={'SIMOX_DATA_PATH': str(tmp_path / 'data')})
    assert scene.entity_names() == ['A']
    with pytest.raises(SceneLoadError, match=r'scene\.xml:3: .*None\.xml'):
        load(path, parameters={'SIMOX_DATA_PATH': str(tmp_path / 'data')}, strict=True)


def test_scene_unknown_init_config_is_an_error(write_file):
    _data_dir(write_file)
    path = write_file('data/s.xml', """
        <Scene name='S'>
          <Robot name='A' initConfig='nope'><File>robots/arm/Arm.xml</File></Robot>
        </Scene>""")
    with pytest.raises(SceneLoadError, match=r"s\.xml:2: .*'nope'"):
        load(path)
