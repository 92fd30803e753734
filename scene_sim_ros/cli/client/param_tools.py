"""``scene-sim-ros param get|set|list``: the node's parameters through its rcl_interfaces
services, as ``ros2 param`` does (values parsed as YAML scalars / flow arrays, see
:func:`.values.parse_value`)."""

from __future__ import annotations

import json
from typing import Any

from scene_sim_ros.cli.client.session import UserError, call, client_node, resolve
from scene_sim_ros.cli.client.values import BadValue, parse_value

NODE = 'scene_sim'

# ParameterValue.type -> (name, field of ParameterValue)
TYPES = {1: ('bool', 'bool_value'), 2: ('integer', 'integer_value'), 3: ('double', 'double_value'),
         4: ('string', 'string_value'), 5: ('byte_array', 'byte_array_value'),
         6: ('bool_array', 'bool_array_value'), 7: ('integer_array', 'integer_array_value'),
         8: ('double_array', 'double_array_value'), 9: ('string_array', 'string_array_value')}


def _service(namespace: str, node: str, name: str) -> str:
    return resolve(namespace, node, name)


def from_parameter_value(value: Any) -> tuple[str, Any]:
    """(type name, plain value) of an ``rcl_interfaces/ParameterValue``; ('not set', None)."""
    if value.type not in TYPES:
        return 'not set', None
    kind, field = TYPES[value.type]
    data = getattr(value, field)
    if kind.endswith('_array'):
        data = [bytes(x)[0] if isinstance(x, bytes) else x for x in list(data)]
        data = [float(x) if kind == 'double_array' else x for x in data]
    return kind, data


def to_parameter_value(value: Any) -> Any:
    """A ParameterValue for a parsed value (bool, int, float, str or a list of one kind)."""
    from rcl_interfaces.msg import ParameterValue
    if isinstance(value, bool):
        return ParameterValue(type=1, bool_value=value)
    if isinstance(value, int):
        return ParameterValue(type=2, integer_value=value)
    if isinstance(value, float):
        return ParameterValue(type=3, double_value=value)
    if isinstance(value, str):
        return ParameterValue(type=4, string_value=value)
    if not value:
        raise UserError('an empty array has no type; nothing was set')
    if all(isinstance(v, bool) for v in value):
        return ParameterValue(type=6, bool_array_value=value)
    if all(isinstance(v, int) for v in value):
        return ParameterValue(type=7, integer_array_value=value)
    if all(isinstance(v, float) for v in value):
        return ParameterValue(type=8, double_array_value=value)
    return ParameterValue(type=9, string_array_value=[str(v) for v in value])


def list_parameters(namespace: str = '/', node_name: str = NODE, as_json: bool = False,
                    timeout: float = 10.0) -> int:
    from rcl_interfaces.srv import ListParameters
    with client_node('scene_sim_ros_param') as node:
        response = call(node, ListParameters, _service(namespace, node_name, 'list_parameters'),
                        ListParameters.Request(), timeout)
    names = sorted(response.result.names)
    print(json.dumps(names) if as_json else '\n'.join(f'  {n}' for n in names))
    return 0


def get_parameter(name: str, namespace: str = '/', node_name: str = NODE,
                  as_json: bool = False, timeout: float = 10.0) -> int:
    from rcl_interfaces.srv import GetParameters
    with client_node('scene_sim_ros_param') as node:
        response = call(node, GetParameters, _service(namespace, node_name, 'get_parameters'),
                        GetParameters.Request(names=[name]), timeout)
    if not response.values:
        raise UserError(f'no parameter {name!r} on {resolve(namespace, node_name)}')
    kind, value = from_parameter_value(response.values[0])
    if kind == 'not set':
        raise UserError(f'parameter {name!r} is not set on {resolve(namespace, node_name)} '
                        '(scene-sim-ros param list shows the declared ones)')
    if as_json:
        print(json.dumps({'name': name, 'type': kind, 'value': value}))
    else:
        print(f'{kind.replace("_", " ").capitalize()} value is: {value}')
    return 0


def set_parameter(name: str, text: str, namespace: str = '/', node_name: str = NODE,
                  timeout: float = 10.0) -> int:
    from rcl_interfaces.msg import Parameter
    from rcl_interfaces.srv import SetParameters
    try:
        value = parse_value(text)
    except BadValue as err:
        raise UserError(str(err)) from None
    request = SetParameters.Request(parameters=[Parameter(name=name,
                                                          value=to_parameter_value(value))])
    with client_node('scene_sim_ros_param') as node:
        response = call(node, SetParameters, _service(namespace, node_name, 'set_parameters'),
                        request, timeout)
    result = response.results[0]
    if not result.successful:
        raise UserError(f'setting {name} failed' + (f': {result.reason}' if result.reason else ''))
    print('Set parameter successful')
    return 0
