"""What the reporter has seen and delivered, in a store of its own."""
