"""``promoflow demo``: a whole promotion on a laptop, with local stand-ins for the cluster."""
