"""Configuration loading: YAML files and Python modules -> resource models with positions."""

from orchestrator.loading.config import Config, load_config

__all__ = ["Config", "load_config"]
