"""Wall-clock schedules in IANA time zones: cron expressions and the local time they name.

Pure functions, standard library and cronsim only, below the configuration models (which
validate a ``PromotionWindow`` with them) and the window logic (which evaluates them).
Every instant they return is an aware datetime in UTC: Python compares and subtracts two
datetimes of the same zone by their wall clocks, ignoring ``fold``, which orders the two
02:30s of a fall-back night wrongly; UTC has no such readings.
"""
