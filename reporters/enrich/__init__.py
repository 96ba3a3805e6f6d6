"""Context Argo CD does not know, added to events: the commits a sync brought for each
source, the images, the Jira issues. Optional, cached, and never in the way of delivery."""
