"""Flask blueprints and request plumbing: thin views over the services."""
