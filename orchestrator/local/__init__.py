"""Running promotions on this machine: the local engine's session, stand-ins and the demo."""
