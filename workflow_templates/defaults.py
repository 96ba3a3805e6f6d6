"""Settings the committed YAML is generated with: the defaults, never this shell's env.

`promoflow apply` builds the same templates with the settings of its environment
(PROMOFLOW_STEP_IMAGE, PROMOFLOW_SERVICE_ACCOUNT, ...); these files show the defaults.
"""

from orchestrator.settings import StepSettings

SETTINGS = StepSettings.model_construct()
