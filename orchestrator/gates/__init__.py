"""Gates: decisions (pure) and waits that tell whether a promotion may move on."""
