"""The option table (scene_sim_ros/ros/options.py) is whole: config/params.yaml is the text it
generates, every parameter of it has a declarer and a place in that file, and what a
command-line option sets is a parameter. That the running node declares exactly the table's
parameters is checked on a live node (test/ros/test_node_parameters.py)."""

from pathlib import Path

import yaml

from scene_sim_ros.ros import options
from scene_sim_ros.ros.runtime import params_yaml
from scene_sim_ros.ros.runtime.parameters import PUBLISH_RATES

ROOT = Path(__file__).resolve().parents[1]
EVERY_OPTION = options.node_options(PUBLISH_RATES)
PARAMETERS = [o for o in EVERY_OPTION if o.is_parameter]


def flattened(mapping: dict, prefix: str = '') -> dict:
    """``{'a': {'b': 1}}`` as ``{'a.b': 1}`` (the node's parameter names)."""
    flat = {}
    for key, value in mapping.items():
        if isinstance(value, dict):
            flat.update(flattened(value, f'{prefix}{key}.'))
        else:
            flat[f'{prefix}{key}'] = value
    return flat


def test_committed_params_yaml_is_the_generated_text():
    committed = (ROOT / 'config' / 'params.yaml').read_text()
    assert committed == params_yaml.params_yaml(EVERY_OPTION), \
        'regenerate it: python -m scene_sim_ros.ros.runtime.params_yaml > config/params.yaml'


def test_params_yaml_holds_the_defaults_of_the_parameters_it_does_not_comment_out():
    document = yaml.safe_load(params_yaml.params_yaml(EVERY_OPTION))
    written = {o.name: o.parameter_default for o in PARAMETERS if not o.params_yaml.commented_out}
    assert flattened(document['/**']['ros__parameters']) == written
    assert {f'publish_rates.{kind}' for kind in PUBLISH_RATES} <= set(written)


def test_every_parameter_has_a_declarer_and_a_place_in_params_yaml():
    names = [o.name for o in EVERY_OPTION]
    assert len(names) == len(set(names))
    assert {o.declared_by for o in PARAMETERS} <= set(options.DECLARERS)
    assert [o.name for o in PARAMETERS if o.params_yaml is None] == []
    assert {o.params_yaml.section for o in PARAMETERS} <= set(params_yaml.SECTIONS)


def test_empty_arrays_are_commented_out_in_params_yaml():
    """rcl's parameter file parser cannot type an empty array."""
    empty = [o.name for o in PARAMETERS if o.default == () and not o.params_yaml.commented_out]
    assert empty == []


def test_what_a_command_line_option_sets_is_a_parameter():
    parameters = {o.name for o in PARAMETERS} | {'use_sim_time'}  # rclpy declares use_sim_time
    sets = {o.command_line.sets for o in options.OPTIONS if o.command_line is not None}
    assert sets - {None} <= parameters


def test_the_hint_for_ros_parameter_syntax_names_flags_that_take_the_value_as_given():
    assert options.run_flag_setting('real_time_factor').run_flag_name == '--real-time-factor'
    assert options.run_flag_setting('foxglove.port').run_flag_name == '--foxglove'
    assert options.run_flag_setting('worlds.paths') is None  # a list, one --worlds per folder
    assert options.run_flag_setting('publish_link_tf') is None  # --robot-state-publisher: more
