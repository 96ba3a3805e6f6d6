"""Notifications configured as Argo CD Notifications users know them: services, templates,
triggers and subscriptions, evaluated by the reporter against its own store."""
