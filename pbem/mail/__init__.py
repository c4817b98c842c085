"""Email: what is sent (compose), the outbox it waits in, and the sender that delivers it."""
