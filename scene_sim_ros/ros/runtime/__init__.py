"""The node's runtime: the node (:mod:`.node`), the physics thread that owns the simulation
(:mod:`.stepper`, :mod:`.step_loop`), publishing that never raises (:mod:`.publishing`,
:mod:`.native_publish`), parameters and start-up (:mod:`.parameters`, :mod:`.startup`), each
entity wired in (:mod:`.entities`) and what ``run`` offers for a scene, as text
(:mod:`.interface_list`). The other concerns see the node through the Protocols of
:mod:`scene_sim_ros.ros.bridge.host` and :mod:`scene_sim_ros.ros.bridge.bridged_node`."""
