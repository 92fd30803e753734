"""What leaves the node besides its topics: the tap of every published message (:mod:`.tap`),
MCAP recording (:mod:`.recorder`) and the Foxglove live view (:mod:`.foxglove_bridge`); the node
starts them through :mod:`.extension`."""
