"""Mail going out: the transactional outbox, the sender and its transports."""
