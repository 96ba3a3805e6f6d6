"""What changed in an Application, as events: transitions from old/new pairs (pure), their
deterministic ids, and their CloudEvents form."""
