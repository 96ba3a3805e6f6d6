"""Watching Applications: list + watch with resume, relist on 410 Gone, sharding by a
stable hash of each app's name."""
