{{/* Names, labels and the pieces every workload shares. */}}

{{- define "promoflow.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "promoflow.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "promoflow.component" -}}
{{- printf "%s-%s" (include "promoflow.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "promoflow.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "promoflow.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: promoflow
{{- end -}}

{{- define "promoflow.selector" -}}
app.kubernetes.io/name: {{ include "promoflow.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "promoflow.componentLabels" -}}
{{ include "promoflow.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "promoflow.image" -}}
{{- $repository := required "image.repository: set it to your build of the repository's Dockerfile (docs/install.md, \"The image\"); no image of promoflow is published" .Values.image.repository -}}
{{- printf "%s:%s" $repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "promoflow.workflowsNamespace" -}}
{{- .Values.workflows.namespace | default .Release.Namespace -}}
{{- end -}}

{{- define "promoflow.reporterNamespaces" -}}
{{- if .Values.reporters.namespaces -}}
{{- join "," .Values.reporters.namespaces -}}
{{- else if not .Values.reporters.allNamespaces -}}
{{- .Values.argocd.namespace -}}
{{- end -}}
{{- end -}}

{{- define "promoflow.configMap" -}}
{{- if .Values.config.files -}}
{{- include "promoflow.component" (dict "root" . "component" "config") -}}
{{- else -}}
{{- .Values.config.configMap -}}
{{- end -}}
{{- end -}}

{{- define "promoflow.reporterService" -}}
{{- printf "http://%s.%s.svc:%v" (include "promoflow.component" (dict "root" . "component" "reporters")) .Release.Namespace .Values.reporters.port -}}
{{- end -}}

{{/* The environment every promoflow process reads its connections from. */}}
{{- define "promoflow.connections" -}}
- name: ARGO_SERVER
  value: {{ .Values.argo.server | quote }}
- name: ARGO_NAMESPACE
  value: {{ include "promoflow.workflowsNamespace" . | quote }}
- name: ARGO_INSECURE_SKIP_VERIFY
  value: {{ .Values.argo.insecureSkipVerify | quote }}
- name: PROMOFLOW_STEP_IMAGE
  value: {{ include "promoflow.image" . | quote }}
- name: PROMOFLOW_SERVICE_ACCOUNT
  value: {{ .Values.workflows.serviceAccount.name | quote }}
- name: PROMOFLOW_GIT_SECRET
  value: {{ .Values.secrets.git | quote }}
- name: PROMOFLOW_ARGOCD_SECRET
  value: {{ .Values.secrets.argocd | quote }}
- name: PROMOFLOW_ARGOCD_SERVER
  value: {{ .Values.argocd.server | quote }}
{{- if .Values.argocd.opts }}
- name: PROMOFLOW_ARGOCD_OPTS
  value: {{ .Values.argocd.opts | quote }}
{{- end }}
{{- if .Values.reporters.enabled }}
- name: PROMOFLOW_REPORT_URL
  value: {{ include "promoflow.reportURL" . | quote }}
{{- end }}
{{- if .Values.argo.ui }}
- name: PROMOFLOW_UI_URL
  value: {{ .Values.argo.ui | quote }}
{{- end }}
{{- /* both processes that load the configuration: the webhook service and the apply job */}}
- name: PROMOFLOW_CONFIG_PYTHON
  value: {{ .Values.config.python | quote }}
{{- end -}}

{{/* The Argo Server token of a ServiceAccount, from the token Secret the chart makes for it. */}}
{{- /* The Argo Server (--auth-mode=client) acts with the token a pod sends: a projected
       ServiceAccount token, short-lived and renewed by the kubelet, which promoflow reads
       at every request (ARGO_TOKEN_FILE). The pod itself mounts no token. */}}
{{- define "promoflow.argoToken" -}}
- name: ARGO_TOKEN_FILE
  value: /var/run/secrets/promoflow/argo/token
{{- end -}}

{{- define "promoflow.argoTokenMount" -}}
- {name: argo-token, mountPath: /var/run/secrets/promoflow/argo, readOnly: true}
{{- end -}}

{{- define "promoflow.argoTokenVolume" -}}
- name: argo-token
  projected:
    sources:
      - serviceAccountToken:
          path: token
          expirationSeconds: {{ .Values.tokens.expirationSeconds | int }}
{{- end -}}

{{- define "promoflow.network" -}}
{{- if .Values.hostNetwork -}}
hostNetwork: true
dnsPolicy: ClusterFirstWithHostNet
{{- end -}}
{{- end -}}

{{- define "promoflow.reportURL" -}}
{{- .Values.reporters.reportURL | default (printf "%s/reports" (include "promoflow.reporterService" .)) -}}
{{- end -}}

{{- define "promoflow.podSecurity" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}

{{- /* A step container's environment as the compiler defines it (orchestrator/compiler/
       library.py, step_environment), with this release's values and Secret names put in
       place; a variable the chart does not know passes as it is. Takes (dict "root" $
       "env" LIST); gives YAML (fromYamlArray). Used for each step's container and for
       the executor plugin's sidecar, which has every step's environment. */}}
{{- define "promoflow.stepEnv" -}}
{{- $ := .root }}
{{- $env := list }}
{{- range $variable := .env }}
{{- $ref := (($variable.valueFrom | default dict).secretKeyRef) }}
{{- if and (eq $variable.name "PROMOFLOW_REPORT_URL") $.Values.reporters.enabled }}
{{- $env = append $env (dict "name" "PROMOFLOW_REPORT_URL" "value" (include "promoflow.reportURL" $)) }}
{{- else if and $ref (eq $ref.name "promoflow-report") }}
{{- if $.Values.secrets.reportToken }}
{{- $_ := set $ref "name" $.Values.secrets.reportToken }}
{{- $env = append $env $variable }}
{{- end }}
{{- else if eq $variable.name "ARGOCD_SERVER" }}
{{- $env = append $env (dict "name" "ARGOCD_SERVER" "value" $.Values.argocd.server) }}
{{- else if eq $variable.name "ARGOCD_OPTS" }}
{{- $env = append $env (dict "name" "ARGOCD_OPTS" "value" $.Values.argocd.opts) }}
{{- else if and $ref (eq $ref.name "promoflow-git") }}
{{- $_ := set $ref "name" $.Values.secrets.git }}
{{- $env = append $env $variable }}
{{- else if and $ref (eq $ref.name "promoflow-argocd") }}
{{- $_ := set $ref "name" $.Values.secrets.argocd }}
{{- $env = append $env $variable }}
{{- else }}
{{- $env = append $env $variable }}
{{- end }}
{{- end }}
{{- toYaml $env }}
{{- end }}
