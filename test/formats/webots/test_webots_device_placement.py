"""Devices and solids wherever the Webots grammar allows them: a device as a joint endPoint is
a moving body of its own that carries its sensor (a device is a Solid in Webots), Slots pass
their endPoint through, Group/Transform/Pose nesting composes, a device's ``children`` hold its
shapes and further devices, and a device that cannot be mapped is a warning."""

from __future__ import annotations

import pytest

from scene_sim_ros.formats.webots import load
from scene_sim_ros.scene.sensors import Accelerometer, Camera, CollisionSensor, Gyroscope

HEADER = '#VRML_SIM R2023b utf8\n'


def one(write_file, text):
    return load(write_file('w.wbt', HEADER + text))


def robot(scene):
    (entity,) = [e for e in scene.entities if e.kind == 'robot']
    return entity


def test_devices_as_joint_end_points_are_links_carrying_their_sensors(write_file):
    scene = one(write_file, """
    Robot {
      name "arm"
      children [
        HingeJoint {
          jointParameters HingeJointParameters { axis 0 0 1 anchor 0 0 0.1 }
          device RotationalMotor { name "yaw" }
          endPoint Gyro {
            translation 0 0 0.1  name "wrist gyro"
            boundingObject Box { size 0.02 0.02 0.02 }
            physics Physics { density -1 mass 0.05 }
          }
        }
        SliderJoint {
          jointParameters JointParameters { axis 0 0 1 }
          endPoint Accelerometer { translation 0.1 0 0  physics Physics { density -1 mass 0.2 } }
        }
        BallJoint {
          jointParameters BallJointParameters { anchor -0.1 0 0 }
          endPoint Camera {
            translation -0.1 0 0  name "head camera"  width 32 height 24
            children [ Shape { geometry Box { size 0.03 0.03 0.03 } } ]
            physics Physics { density -1 mass 0.1 }
          }
        }
      ]
      physics Physics { density -1 mass 2 }
    }
    """)
    arm = robot(scene)
    assert scene.warnings == ()
    sensors = {s.name: s for s in arm.sensors}
    assert isinstance(sensors['wrist gyro'], Gyroscope)
    assert isinstance(sensors['accelerometer'], Accelerometer)  # Webots' default device name
    assert isinstance(sensors['head camera'], Camera)
    assert (sensors['head camera'].width, sensors['head camera'].height) == (32, 24)
    joints = {j.child: j for j in arm.joints}
    for name, kind in (('wrist gyro', 'revolute'), ('accelerometer', 'prismatic'),
                       ('head camera', 'ball')):
        assert sensors[name].link == name and joints[name].type == kind
        assert joints[name].parent == 'arm'
    links = {link.name: link for link in arm.links}
    assert links['wrist gyro'].inertial.mass == 0.05 and len(links['wrist gyro'].collisions) == 1
    assert links['accelerometer'].inertial.mass == 0.2
    assert links['head camera'].inertial.mass == 0.1 and len(links['head camera'].visuals) == 1
    assert joints['wrist gyro'].name == 'yaw'
    assert joints['wrist gyro'].origin.position == pytest.approx((0.0, 0.0, 0.1))


def test_touch_sensor_end_point_collides_under_the_sensor_names_only(write_file):
    arm = robot(one(write_file, """
    Robot { children [ HingeJoint {
      endPoint TouchSensor { translation 0.2 0 0  name "bumper"
        boundingObject Box { size 0.01 0.1 0.1 }  physics Physics { } }
    } ] }
    """))
    (bumper,) = arm.sensors
    assert isinstance(bumper, CollisionSensor) and bumper.link == 'bumper'
    link = next(link for link in arm.links if link.name == 'bumper')
    assert [c.name for c in link.collisions] == ['bumper:0']
    assert link.inertial.mass == pytest.approx(1000 * 0.01 * 0.1 * 0.1)  # density * box


def test_slots_pass_their_end_point_through_in_children_and_as_joint_end_points(write_file):
    arm = robot(one(write_file, """
    Robot { name "r" children [
      Slot { type "sensor" endPoint Slot { type "sensor" endPoint Gyro {
        translation 0 0 0.3  name "slot gyro" } } }
      HingeJoint {
        endPoint Slot { type "hand" endPoint Slot { type "hand" endPoint Solid {
          translation 0.5 0 0  name "hand"
          children [ Accelerometer { name "hand accelerometer" } ]
          physics Physics { density -1 mass 1 } } } }
      }
      Slot { type "empty" }
    ] }
    """))
    sensors = {s.name: s for s in arm.sensors}
    assert sensors['slot gyro'].link == 'r'
    assert sensors['slot gyro'].pose.position == pytest.approx((0.0, 0.0, 0.3))
    assert sensors['hand accelerometer'].link == 'hand'
    (joint,) = arm.joints
    hand = next(link for link in arm.links if link.name == 'hand')
    # the link frame sits on the hinge anchor (the origin); the Solid 0.5 m along x from it
    assert joint.child == 'hand' and hand.inertial.com == pytest.approx((0.5, 0.0, 0.0))


def test_group_transform_and_pose_nesting_composes_device_mounts(write_file):
    arm = robot(one(write_file, """
    Robot { name "r" children [
      Group { children [ Pose { translation 1 0 0 children [
        Transform { translation 0 2 0 children [
          Group { children [ Camera { translation 0 0 3  name "deep camera" } ] }
        ] }
      ] } ] }
      Solid { translation 0 0 1 name "plate" children [
        Pose { translation 0.5 0 0 children [ Gyro { name "plate gyro" } ] } ] }
    ] }
    """))
    sensors = {s.name: s for s in arm.sensors}
    assert sensors['deep camera'].link == 'r'
    assert sensors['deep camera'].pose.position == pytest.approx((1.0, 2.0, 3.0))
    # a Solid without physics is fused into its parent: its devices move along
    assert sensors['plate gyro'].link == 'r'
    assert sensors['plate gyro'].pose.position == pytest.approx((0.5, 0.0, 1.0))


def test_device_children_hold_its_shapes_and_further_devices(write_file):
    arm = robot(one(write_file, """
    Robot { name "r" children [
      Camera { translation 0.1 0 0.2  name "camera"
        children [
          Pose { translation -0.01 0 0 children [ Shape { geometry Box { size 0.02 0.05 0.05 } } ] }
          Gyro { translation 0 0 0.01 name "camera gyro" }
        ]
        boundingObject Box { size 0.02 0.05 0.05 }
      }
      Accelerometer { name "weighed" physics Physics { density -1 mass 0.3 } }
    ] }
    """))
    sensors = {s.name: s for s in arm.sensors}
    root = arm.links[0]
    assert sensors['camera'].link == 'r'
    assert [v.pose.position for v in root.visuals] == [pytest.approx((0.09, 0.0, 0.2))]
    assert sensors['camera gyro'].pose.position == pytest.approx((0.1, 0.0, 0.21))
    assert len(root.collisions) == 1  # the camera's bounding object collides
    # a device with physics is a body of its own, fixed to its parent as a nested Solid is
    assert sensors['weighed'].link == 'weighed'
    assert any(j.child == 'weighed' and j.type == 'fixed' for j in arm.joints)


def test_devices_that_cannot_be_mapped_are_warnings_not_silent(write_file):
    scene = one(write_file, """
    Robot { name "r" children [
      HingeJoint { endPoint Connector { translation 0 0 0.2 name "dock"
        children [ Gyro { name "dock gyro" } ] physics Physics { } } }
      Display { children [ Gyro { name "display gyro" } ] }
      HingeJoint { endPoint Pose { } }
    ] }
    """)
    arm = robot(scene)
    assert {s.name: s.link for s in arm.sensors} == {'dock gyro': 'dock', 'display gyro': 'r'}
    warnings = '\n'.join(scene.warnings)
    assert 'Connector is not simulated' in warnings
    # a Display is refused with the reason (no controller draws on it here)
    assert 'Display is not simulated (nothing draws on it' in warnings
    assert 'HingeJoint.endPoint Pose is not supported' in warnings
