"""The scheduler: APScheduler's wiring (``jobs``) and the sweeps that claim what is due (``sweeps``)."""
