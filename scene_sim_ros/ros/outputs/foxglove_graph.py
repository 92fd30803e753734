"""The live view's connection graph (``ConnectionGraph`` capability, as foxglove_bridge offers
it): which node publishes and subscribes to each topic and which advertises each service, on
the whole ROS graph the simulation sees, sent to viewers that ask (Foxglove's Topic Graph)."""

from __future__ import annotations

from typing import Any

Graph = tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]


def ros_graph(node: Any) -> Graph:
    """(published, subscribed, services), each ``((name, (node, ...)), ...)``, sorted."""
    published, subscribed = [], []
    for topic, _ in node.get_topic_names_and_types():
        published.append((topic, _names(node.get_publishers_info_by_topic(topic))))
        subscribed.append((topic, _names(node.get_subscriptions_info_by_topic(topic))))
    providers: dict[str, set[str]] = {}
    for name, namespace in node.get_node_names_and_namespaces():
        full = _full(namespace, name)
        for service, _ in node.get_service_names_and_types_by_node(name, namespace):
            providers.setdefault(service, set()).add(full)
    services = [(service, tuple(sorted(nodes))) for service, nodes in providers.items()]
    return (tuple(sorted(p for p in published if p[1])),
            tuple(sorted(s for s in subscribed if s[1])), tuple(sorted(services)))


def connection_graph(graph: Graph) -> Any:
    from foxglove.websocket import ConnectionGraph
    published, subscribed, services = graph
    result = ConnectionGraph()
    for topic, nodes in published:
        result.set_published_topic(topic, list(nodes))
    for topic, nodes in subscribed:
        result.set_subscribed_topic(topic, list(nodes))
    for service, nodes in services:
        result.set_advertised_service(service, list(nodes))
    return result


def _names(endpoints: Any) -> tuple[str, ...]:
    return tuple(sorted({_full(e.node_namespace, e.node_name) for e in endpoints}))


def _full(namespace: str, name: str) -> str:
    return f'{namespace.rstrip("/")}/{name}'
