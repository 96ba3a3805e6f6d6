"""Step programs run inside workflow pods (``promoflow step NAME ...``), one module each."""
