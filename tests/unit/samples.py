"""Small valid documents that tests combine and break in one place."""

HEADER = "apiVersion: promoflow.dev/v1alpha1"

ENVIRONMENTS = """\
apiVersion: promoflow.dev/v1alpha1
kind: Environment
metadata: {name: dev}
---
apiVersion: promoflow.dev/v1alpha1
kind: Environment
metadata: {name: staging}
---
apiVersion: promoflow.dev/v1alpha1
kind: Environment
metadata: {name: prod}
spec: {production: true}
"""

FLOW = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionFlow
metadata: {name: standard}
spec:
  trigger: dev
  steps:
    - {environment: staging, dependsOn: [dev]}
    - {environment: prod, dependsOn: [staging]}
"""

TEMPLATE = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionTemplate
metadata: {name: helm}
spec:
  files:
    - {file: values.yaml, paths: [image.tag]}
"""

PRODUCT = """\
apiVersion: promoflow.dev/v1alpha1
kind: Product
metadata: {name: shop}
spec:
  repo: {url: https://git.example.com/gitops.git}
  flow: standard
  template: helm
"""
