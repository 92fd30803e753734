"""Any ROS message as plain data (dicts, lists, numbers, strings), then YAML or JSON.

Generic: fields come from the message class (``get_fields_and_field_types()``), so every type
the graph carries is printed without per-type code, like ``ros2 topic echo``. Arrays longer than
``limit`` are cut to their first items plus one string saying how many more there are, unless
``full``.
"""

from __future__ import annotations

import array
import math
from typing import Any

ARRAY_LIMIT = 32
"""Arrays longer than this are abbreviated (``--full`` prints them whole)."""

HEAD = 8
"""How many items an abbreviated array keeps."""


def is_message(value: Any) -> bool:
    return hasattr(type(value), 'get_fields_and_field_types')


def to_data(value: Any, *, full: bool = False) -> Any:
    """``value`` (a message, sequence or scalar) as plain Python data."""
    if is_message(value):
        return {name: to_data(getattr(value, name), full=full)
                for name in value.get_fields_and_field_types()}
    if isinstance(value, (bytes, bytearray)):
        value = list(value)
    elif isinstance(value, array.array) or hasattr(value, 'tolist') and not isinstance(value, (int, float)):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        items = list(value)
        if not full and len(items) > ARRAY_LIMIT:
            head = [to_data(item, full=full) for item in items[:HEAD]]
            return head + [f'... {len(items) - HEAD} more, {len(items)} in all (--full prints all)']
        return [to_data(item, full=full) for item in items]
    if isinstance(value, bytes):
        return value[0] if len(value) == 1 else list(value)
    return value


def select(data: Any, path: str) -> Any:
    """The part of ``data`` at ``path``: dotted field names, integer indexes for arrays
    (``header.stamp``, ``position.0``); KeyError naming what exists where it fails."""
    for part in (p for p in path.split('.') if p):
        if isinstance(data, dict):
            if part not in data:
                raise KeyError(f'no field {part!r} in {path!r}; fields there: {", ".join(data)}')
            data = data[part]
        elif isinstance(data, list):
            try:
                data = data[int(part)]
            except (ValueError, IndexError):
                raise KeyError(f'{part!r} in {path!r} is no index of an array of '
                               f'{len(data)}') from None
        else:
            raise KeyError(f'{path!r}: {part!r} is below a plain value')
    return data


def to_yaml(data: Any) -> str:
    """Block-style YAML as ``ros2 topic echo`` prints it (key order kept, no line wrapping)."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text_block(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        if '\n' in value:  # URDFs and other documents: readable, as a literal block
            return dumper.represent_scalar('tag:yaml.org,2002:str', value, style='|')
        return dumper.represent_str(value)

    Dumper.add_representer(str, text_block)
    text = yaml.dump(data, Dumper=Dumper, default_flow_style=False, sort_keys=False,
                     allow_unicode=True, width=math.inf)
    if not isinstance(data, (dict, list)) and text.endswith('\n...\n'):
        text = text[:-len('...\n')]  # a lone scalar: no document end marker
    return text


def json_safe(data: Any) -> Any:
    """Plain data with NaN and infinities as the strings 'nan', 'inf', '-inf' (JSON has none)."""
    if isinstance(data, float) and not math.isfinite(data):
        return 'nan' if math.isnan(data) else ('inf' if data > 0 else '-inf')
    if isinstance(data, dict):
        return {k: json_safe(v) for k, v in data.items()}
    if isinstance(data, list):
        return [json_safe(v) for v in data]
    return data
