"""The interface packages the node needs are installed and match the ROS 2 standards."""

import json
import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
EXPECTED_HASHES = json.loads((Path(__file__).parent / 'expected_type_hashes.json').read_text())


def test_interface_modules_import():
    import simulation_interfaces.action
    import simulation_interfaces.msg
    import simulation_interfaces.srv
    import tf2_msgs.msg

    assert tf2_msgs.msg.TFMessage().transforms == []
    assert simulation_interfaces.srv.StepSimulation.Request().steps == 1  # the standard's default
    assert simulation_interfaces.action.SimulateSteps.Goal().steps == 0


def test_simulation_interfaces_constants_match_the_standard():
    from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
    from simulation_interfaces.srv import ResetSimulation

    assert (Result.RESULT_FEATURE_UNSUPPORTED, Result.RESULT_OK, Result.RESULT_NOT_FOUND,
            Result.RESULT_INCORRECT_STATE, Result.RESULT_OPERATION_FAILED) == (0, 1, 2, 3, 4)
    assert (SimulationState.STATE_STOPPED, SimulationState.STATE_PLAYING,
            SimulationState.STATE_PAUSED) == (0, 1, 2)
    assert SimulatorFeatures.STEP_SIMULATION_ACTION == 33
    assert ResetSimulation.Request.SCOPE_ALL == 255


def _share_directory(package: str) -> Path:
    """``share/<package>`` through the ament index; the venv's prefix where it is not set up."""
    if os.environ.get('AMENT_PREFIX_PATH'):
        from ament_index_python.packages import get_package_share_directory

        return Path(get_package_share_directory(package))
    return Path(sys.prefix) / 'share' / package


def _installed_hashes(package: str) -> dict[str, str]:
    seen = {}
    for path in sorted(_share_directory(package).glob('*/*.json')):
        for entry in json.loads(path.read_text())['type_hashes']:
            seen[entry['type_name']] = entry['hash_string']
    return seen


def _installed_version(package: str) -> str:
    xml = (_share_directory(package) / 'package.xml').read_text()
    return xml.split('<version>', 1)[1].split('</version>', 1)[0].strip()


@pytest.mark.parametrize('package', ['tf2_msgs'])
def test_type_hashes_equal_the_standard(package):
    """RIHS01 type hashes (over names, types and order of all fields) equal upstream's builds.

    Equal hashes are what real ROS 2 nodes check before they talk: a single differing
    field would break interoperability with ros_gz_sim, Isaac Sim or tf2_ros.
    """
    seen = _installed_hashes(package)
    expected = {k: v for k, v in EXPECTED_HASHES.items() if k.startswith(package + '/')}
    assert expected, 'no expected hashes for ' + package
    assert {k: seen.get(k) for k in expected} == expected


@pytest.mark.parametrize('package', ['simulation_interfaces', 'control_msgs'])
def test_hashes_equal_those_of_the_installed_release(package):
    """Whichever release is installed (ours, built from interfaces/<package>, or a
    distribution's), its hashes are upstream's for that release."""
    version = _installed_version(package)
    recorded = EXPECTED_HASHES[package]
    if version not in recorded:
        pytest.skip(f'{package} {version}: no recorded hashes ({", ".join(recorded)})')
    expected = recorded[version]
    seen = _installed_hashes(package)
    assert {k: seen.get(k) for k in expected} == expected


def test_jazzy_and_kilted_releases_share_their_definitions():
    """1.5.1 (Jazzy) and 1.6.1 (Kilted) differ only in package.xml: one build serves both.
    2.1.0 changed SetEntityState, SpawnEntity, Spawnable and LoadWorld (and what holds them)."""
    recorded = EXPECTED_HASHES['simulation_interfaces']
    assert recorded['1.5.1'] == recorded['1.6.1']
    changed = {k.rsplit('/', 1)[1].split('_')[0] for k, v in recorded['2.1.0'].items()
               if recorded['1.6.1'].get(k) != v}
    assert changed == {'SetEntityState', 'SpawnEntity', 'Spawnable', 'GetSpawnables',
                       'LoadWorld'}


def _kept_versions() -> list[tuple[str, str]]:
    return [(package, p.name) for package in ('simulation_interfaces', 'control_msgs')
            for p in sorted((REPO_ROOT / 'interfaces' / package / 'versions').iterdir())
            if p.is_dir()]


@pytest.mark.parametrize(('package', 'version'), _kept_versions())
def test_kept_definitions_hash_as_upstream(package, version):
    """The definitions kept in interfaces/<package>/versions/ hash as upstream's release
    (computed with rosidl, no build needed: support/type_hashes.py)."""
    from support.type_hashes import type_hashes
    definitions = REPO_ROOT / 'interfaces' / package / 'versions' / version
    assert type_hashes(package, definitions) == EXPECTED_HASHES[package][version]
    assert f'<version>{version}</version>' in (definitions / 'package.xml').read_text()


def test_control_msgs_jazzy_layout_differs_in_the_feedback_only():
    """control_msgs 5.x (Jazzy) has no index/multi_dof_index in FollowJointTrajectory's
    feedback; every other type the node uses hashes as 6.x (Kilted)."""
    recorded = EXPECTED_HASHES['control_msgs']
    changed = {k for k, v in recorded['5.8.0'].items() if recorded['6.10.0'][k] != v}
    assert changed == {'control_msgs/action/FollowJointTrajectory',
                       'control_msgs/action/FollowJointTrajectory_Feedback',
                       'control_msgs/action/FollowJointTrajectory_FeedbackMessage'}


def test_control_msgs_follow_joint_trajectory_has_the_layout_of_its_release():
    """control_msgs 6.x (Kilted): feedback has ``index``, 5.x (Jazzy) not; the result codes
    of JTC in both."""
    from control_msgs.action import FollowJointTrajectory
    from control_msgs.msg import JointComponentTolerance, JointTrajectoryControllerState

    result = FollowJointTrajectory.Result
    assert (result.SUCCESSFUL, result.INVALID_GOAL, result.INVALID_JOINTS,
            result.OLD_HEADER_TIMESTAMP, result.PATH_TOLERANCE_VIOLATED,
            result.GOAL_TOLERANCE_VIOLATED) == (0, -1, -2, -3, -4, -5)
    has_index = 'index' in FollowJointTrajectory.Feedback.get_fields_and_field_types()
    assert has_index == (int(_installed_version('control_msgs').split('.')[0]) >= 6)
    assert JointComponentTolerance.ROTATION == 5
    assert JointTrajectoryControllerState().speed_scaling_factor == 0.0
