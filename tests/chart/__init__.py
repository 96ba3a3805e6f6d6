"""Tests of the Helm chart in charts/promoflow."""
